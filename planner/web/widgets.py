"""Form widgets for figures people type, some in scientific notation, or slide."""

from __future__ import annotations

from typing import Any

from django import forms


def number_input(placeholder: Any = None, **attrs: Any) -> forms.NumberInput:
    if placeholder is not None:
        attrs["placeholder"] = placeholder
    return forms.NumberInput(attrs=attrs)


def range_input(**attrs: Any) -> forms.NumberInput:
    """A slider: the browser sends its value as a number field would."""
    return forms.NumberInput(attrs={"type": "range", **attrs})


def decimal_text(placeholder: str) -> forms.TextInput:
    """Text, not number, so 2e-5 and 1e12 can be typed as they are usually written."""
    return forms.TextInput(attrs={"inputmode": "decimal", "placeholder": placeholder})


def date_input() -> forms.DateInput:
    """The browser's date picker, which reads and sends ISO dates (YYYY-MM-DD)."""
    return forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d")
