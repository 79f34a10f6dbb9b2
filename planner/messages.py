"""The engine's sentences in the reader's language.

The engine never writes a finished sentence: an error is a template with its values
(`RequestError.template`, `.params`), and the templates are in the translation catalogue (marked
`gettext_noop` where they are written). Here they are translated into the active language and
filled, with numbers formatted for that language."""

from __future__ import annotations

import string
from typing import Any

from django.utils import formats
from django.utils.translation import gettext

from planner.engine import RequestError


class LocaleFormatter(string.Formatter):
    """str.format, with numbers rounded as Python rounds them and written with the active
    language's decimal and thousands separators."""

    def format_field(self, value: Any, format_spec: str) -> str:
        text = super().format_field(value, format_spec)
        if isinstance(value, bool) or not isinstance(value, int | float):
            return text
        decimal = formats.get_format("DECIMAL_SEPARATOR")
        thousands = formats.get_format("THOUSAND_SEPARATOR")
        if (decimal, thousands) == (".", ","):
            return text
        return text.replace(",", "\0").replace(".", decimal).replace("\0", thousands)


FORMATTER = LocaleFormatter()


def fill(template: str, params: dict[str, Any]) -> str:
    """A translated template filled with its values (numbers formatted for the language)."""
    translated = gettext(template)
    return FORMATTER.format(translated, **params) if params else translated


def error_message(exc: RequestError) -> str:
    """What is wrong, in the active language."""
    return fill(exc.template, exc.params)


def error_line(exc: RequestError) -> str:
    """The error as one line naming the field: `inference.batch: must be at least 1, not 0`."""
    return f"{exc.field}: {error_message(exc)}"
