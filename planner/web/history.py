"""A record's history as pages show it: who changed what, with values as people read them."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django.db.models import Model
from django.utils.text import capfirst
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from planner.history import history_of

HISTORY_KINDS = {
    "created": gettext_lazy("created"),
    "changed": gettext_lazy("changed"),
    "deleted": gettext_lazy("deleted"),
}


def _has_slug(model) -> bool:
    return any(f.name == "slug" for f in model._meta.get_fields())


def shown_value(field, value) -> str:
    """A history value as people read it: choice labels, fabric names, an em dash for empty."""
    if value is None or value == "" or value == []:
        return "—"
    if field is not None and field.many_to_many and _has_slug(field.related_model):
        # planner.history names related rows by slug; people read their names.
        related = field.related_model.objects.filter(slug__in=value)
        names = {row.slug: str(getattr(row, "name", row)) for row in related}
        return ", ".join(sorted(names.get(v, str(v)) for v in value)) or "—"
    if field is not None and field.choices:
        return str(dict(field.flatchoices).get(value, value))
    if isinstance(value, bool):
        return _("yes") if value else _("no")
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, Decimal):
        # Without the column's padding: 12500, not 12500.000000.
        return format(value.normalize(), "f")
    return str(value)


def history_rows(obj: Model) -> list[dict[str, Any]]:
    meta = type(obj)._meta
    fields = {f.name: f for f in meta.get_fields() if hasattr(f, "verbose_name")}
    entries = history_of(obj)
    for entry in entries:
        entry["kind_label"] = HISTORY_KINDS.get(entry["kind"], entry["kind"])
        entry["changes"] = [
            {
                "label": capfirst(fields[c["field"]].verbose_name)
                if c["field"] in fields
                else c["field"],
                "old": shown_value(fields.get(c["field"]), c["old"]),
                "new": shown_value(fields.get(c["field"]), c["new"]),
            }
            for c in entry["changes"]
        ]
    return entries
