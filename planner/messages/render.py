"""Writing one message, or one error, in the active language.

The engine never writes a finished sentence: a message is a code with its figures (planner.
engine.messages), an error a template with its values (`RequestError.template`, `.params`).
Here the template is translated into the active language and filled, numbers rounded as Python
rounds them and written with that language's separators, lists joined as the language joins
them."""

from __future__ import annotations

import string
import time
from collections.abc import Mapping
from typing import Any

from django.utils import formats
from django.utils.translation import gettext, ngettext

from catalog.selectors import display_names
from planner.engine import RequestError
from planner.engine.messages import Message
from planner.messages.catalogue import TEMPLATES, Plural

# Parameters that hold a catalog slug: the engine names cards and servers by slug, a reader
# by what the catalog calls them.
NAMED = frozenset({"accelerator", "server", "card"})
NAMES_TTL_S = 60.0
_NAMES: dict[str, tuple[float, str]] = {}

# How a list placeholder is joined, by its format spec ("" for a plain {name}).
JOINS = {"": "join.comma", "or": "join.or", "semicolon": "join.semicolon"}


class LocaleFormatter(string.Formatter):
    """str.format, with numbers written with the active language's decimal and thousands
    separators and lists joined with its words."""

    def format_field(self, value: Any, format_spec: str) -> str:
        if isinstance(value, list):
            return gettext(TEMPLATES[JOINS[format_spec]]).join(str(v) for v in value)
        text = super().format_field(value, format_spec)
        if isinstance(value, bool) or not isinstance(value, int | float):
            return text
        decimal = formats.get_format("DECIMAL_SEPARATOR")
        thousands = formats.get_format("THOUSAND_SEPARATOR")
        if (decimal, thousands) == (".", ","):
            return text
        return text.replace(",", "\0").replace(".", decimal).replace("\0", thousands)


FORMATTER = LocaleFormatter()


def fill(template: str, params: Mapping[str, Any]) -> str:
    """A translated template filled with its values; a plural one in the form its count asks
    for."""
    if isinstance(template, Plural):
        translated = ngettext(template.one, template, int(params[template.count]))
    else:
        translated = gettext(template)
    return FORMATTER.format(translated, **params) if params else translated


def is_message(value: Any) -> bool:
    """A message as the engine makes it, or as JSON once stored."""
    return isinstance(value, Message) or (
        isinstance(value, Mapping) and set(value) == {"code", "params"}
    )


def _parts(value: Any) -> tuple[str, Mapping[str, Any]]:
    if isinstance(value, Message):
        return value.code, value.params
    return value["code"], value["params"]


def catalog_name(slug: str) -> str:
    """What the catalog calls the card or server `slug`, remembered for NAMES_TTL_S seconds
    (a catalog edit shows within that); a slug it does not know is said as it is."""
    now = time.monotonic()
    known = _NAMES.get(slug)
    if known is None or now - known[0] > NAMES_TTL_S:
        name = display_names(slugs=[slug]).get(slug)
        if name is None:
            return slug
        known = _NAMES[slug] = (now, name)
    return known[1]


def _param(key: str, value: Any) -> Any:
    if is_message(value):
        return render(value)
    if isinstance(value, list):
        return [_param(key, v) for v in value]
    if key in NAMED and isinstance(value, str):
        return catalog_name(value)
    return value


def render(value: Any) -> str:
    """A message in the active language. A plain string (a ranking stored before sentences
    became messages) is shown as it is."""
    if not is_message(value):
        return str(value)
    code, params = _parts(value)
    return fill(TEMPLATES[code], {k: _param(k, v) for k, v in params.items()})


def as_json(value: Any) -> dict[str, Any] | None:
    """A message as programs read it ({"code", "params"}); None for a plain string."""
    if isinstance(value, Message):
        return value.as_dict()
    return dict(value) if is_message(value) else None


def error_message(exc: RequestError) -> str:
    """What is wrong, in the active language."""
    return fill(exc.template, exc.params)


def error_line(exc: RequestError) -> str:
    """The error as one line naming the field: `inference.batch: must be at least 1, not 0`."""
    return f"{exc.field}: {error_message(exc)}"
