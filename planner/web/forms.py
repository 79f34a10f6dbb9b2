"""What the planner's question forms share besides their fields: the groups they are shown in,
and questions that carry only the values given."""

from __future__ import annotations

from typing import Any

from django import forms


class FieldsetsMixin:
    """`FIELDSETS`, pairs of a legend and field names, as bound fields for
    templates/htmx/fieldsets.html; a field the form leaves out (one only a new record asks
    for) is skipped."""

    FIELDSETS: tuple

    def fieldsets(self: Any) -> list[tuple[Any, list[forms.BoundField]]]:
        return [
            (legend, [self[name] for name in names if name in self.fields])
            for legend, names in self.FIELDSETS
        ]


def filled(question: dict[str, Any], values: dict[str, Any]) -> dict[str, Any]:
    """`question` with those of `values` that were given: a blank field takes the engine's
    default, and the same question asked from the API or a command hashes the same."""
    question.update({key: value for key, value in values.items() if value is not None})
    return question
