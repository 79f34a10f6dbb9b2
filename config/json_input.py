"""JSON from outside, read once with the limits every reader shares: the API's request bodies
(`StrictJSONParser`) and the commands' question files (planner/management/json_command.py).

Python's `json` accepts what the rest of the stack cannot hold: nesting deep enough to exhaust
the recursion limit (in the parser, pydantic or the database adapter), a lone UTF-16 surrogate
(`"\\ud800"`, which no UTF-8 encoder writes), a NUL character (PostgreSQL text refuses it),
`NaN` and `Infinity` (not JSON, and no column stores them), `1e400` (read as infinity) and
integers of thousands of digits (Python refuses to convert past 4,300 digits). Each is refused
here, with the path of the value at fault, before anything else sees it."""

from __future__ import annotations

import json
import math
from typing import Any

from django.utils.translation import gettext as _
from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

# Our deepest question (a sweep of plans' estimates with inline shapes) is 6 levels; 32 leaves
# room for any real document and none for a stack-exhausting one.
MAX_DEPTH = 32
# The largest whole number a question holds is a token count (~1e13); 30 digits pass any real
# value and keep int() far from its 4,300-digit limit.
MAX_INT_DIGITS = 30


class JsonInputError(ValueError):
    """A document refused, with the path of the value at fault ("" for the document)."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{path or 'request'}: {message}")
        self.path = path
        self.message = message


class _Refused:
    """A number the parser met and refused; `check_value` reports it with its path."""

    def __init__(self, message: str) -> None:
        self.message = message


def _parse_int(text: str) -> int | _Refused:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        return _Refused(_("a whole number may have at most %d digits") % MAX_INT_DIGITS)
    return int(text)


def _parse_float(text: str) -> float | _Refused:
    value = float(text)
    if not math.isfinite(value):
        return _Refused(_("%s is too large a number") % text[:40])
    return value


def _parse_constant(name: str) -> _Refused:
    return _Refused(_("%s is not a number JSON allows") % name)


def _text_problem(text: str) -> str | None:
    if "\x00" in text:
        return _("text may not contain NUL (0x00) characters")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return _("text holds a lone UTF-16 surrogate, which is not a character")
    return None


def _child(path: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else key


def check_value(value: Any, path: str = "") -> None:
    """Refuse a value too deep, holding text no store accepts or a number `loads` refused;
    iterative, so a deep value cannot exhaust the stack here either."""
    stack: list[tuple[Any, str, int]] = [(value, path, 1)]
    while stack:
        item, where, depth = stack.pop()
        if isinstance(item, dict | list) and depth > MAX_DEPTH:
            raise JsonInputError(where, _("nested more than %d levels deep") % MAX_DEPTH)
        if isinstance(item, dict):
            for key, child in item.items():
                problem = _text_problem(key)
                if problem:
                    raise JsonInputError(where, problem)
                stack.append((child, _child(where, key), depth + 1))
        elif isinstance(item, list):
            stack.extend((child, _child(where, i), depth + 1) for i, child in enumerate(item))
        elif isinstance(item, str):
            problem = _text_problem(item)
            if problem:
                raise JsonInputError(where, problem)
        elif isinstance(item, _Refused):
            raise JsonInputError(where, item.message)


def loads(text: str | bytes) -> Any:
    """The JSON document in `text`, checked; `JsonInputError` names what is wrong and where,
    `json.JSONDecodeError` (a ValueError too) says where the text stops being JSON."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise JsonInputError(
                "", _("not UTF-8 (byte %d cannot be decoded)") % exc.start
            ) from exc
    try:
        value = json.loads(
            text,
            parse_int=_parse_int,
            parse_float=_parse_float,
            parse_constant=_parse_constant,
        )
    except RecursionError as exc:
        raise JsonInputError("", _("nested more than %d levels deep") % MAX_DEPTH) from exc
    check_value(value)
    return value


class StrictJSONParser(JSONParser):
    """DRF's JSON parser reading through `loads`: a hostile body is a 400 that says what is
    wrong and where, never a 500."""

    def parse(self, stream, media_type=None, parser_context=None):
        try:
            return loads(stream.read() if stream is not None else b"")
        except JsonInputError as exc:
            raise ParseError({exc.path or "request": [exc.message]}) from exc
        except ValueError as exc:
            raise ParseError(_("JSON parse error - %s") % exc) from exc
