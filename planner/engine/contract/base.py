"""What every question of the contract shares: the error it raises, the value types it accepts,
and the turn of pydantic's errors into one line naming the dotted field path.

The rules are the contract's, not pydantic's defaults: numbers are JSON numbers (not strings,
not booleans) and finite; whole numbers may be written 8 or 8.0; an optional key given as null
means its default, as if it were left out; unknown keys are errors."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Annotated, Any, TypeVar

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError, model_validator
from pydantic_core import PydanticCustomError

from planner.engine.errors import RequestError

# The error types this module raises: a message of its own, and the same with a sub-path
# (a cross-field rule naming the field at fault inside the object that checks it).
MESSAGE = "flopfit"
MESSAGE_AT = "flopfit_at"


def problem(message: str, *, at: str | None = None) -> PydanticCustomError:
    """A validation error with the contract's own wording, optionally about a field below the
    object being checked (`at="kv_heads"` inside the model's validator)."""
    if at is None:
        return PydanticCustomError(MESSAGE, "{message}", {"message": message})
    return PydanticCustomError(MESSAGE_AT, "{message}", {"message": message, "at": at})


def shown(value: Any) -> str:
    """A value as the error messages quote it: numbers plainly, the rest as Python writes it."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return repr(value)
    return str(value)


# --- value types ------------------------------------------------------------------------------


def _number(value: Any) -> float | int:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise problem(f"must be a number, not {value!r}")
    if not math.isfinite(value):
        raise problem("must be finite")
    return value


def _whole(value: Any) -> int:
    value = _number(value)
    if value != int(value):
        raise problem(f"must be a whole number, not {value!r}")
    return int(value)


def _bounded(check: Callable[[Any], Any], ge: float | None, le: float | None, gt: float | None):
    def validate(value: Any) -> Any:
        value = check(value)
        if gt is not None and value <= gt:
            raise problem(f"must be greater than {shown(gt)}, not {shown(value)}")
        if ge is not None and value < ge:
            raise problem(f"must be at least {shown(ge)}, not {shown(value)}")
        if le is not None and value > le:
            raise problem(f"must be at most {shown(le)}, not {shown(value)}")
        return value

    return validate


def _bounds_schema(ge: float | None, le: float | None, gt: float | None) -> Any:
    """The bounds as JSON Schema states them; the check itself is the validator's, which words
    its errors as the contract does."""
    named = {"minimum": ge, "maximum": le, "exclusiveMinimum": gt}
    return Field(json_schema_extra={k: v for k, v in named.items() if v is not None})


def Number(*, ge: float | None = None, le: float | None = None, gt: float | None = None) -> Any:
    """A finite JSON number within the bounds, described with them in the schema."""
    return Annotated[
        float, BeforeValidator(_bounded(_number, ge, le, gt)), _bounds_schema(ge, le, gt)
    ]


def Whole(*, ge: int | None = None, le: int | None = None) -> Any:
    """A whole number (8 or 8.0) within the bounds."""
    return Annotated[
        int, BeforeValidator(_bounded(_whole, ge, le, None)), _bounds_schema(ge, le, None)
    ]


def _flag(value: Any) -> bool:
    if not isinstance(value, bool):
        raise problem(f"must be true or false, not {value!r}")
    return value


Flag = Annotated[bool, BeforeValidator(_flag)]


def one_of(options: Sequence[str]) -> Callable[[Any], Any]:
    """The check a choice field runs first, so its message lists the options as the contract
    spells them."""

    def validate(value: Any) -> Any:
        if value not in options:
            raise problem(f"must be one of {', '.join(options)}, not {value!r}")
        return value

    return validate


def _text(value: Any) -> str:
    if not isinstance(value, str):
        raise problem(f"must be text, not {value!r}")
    return value


Text = Annotated[str, BeforeValidator(_text)]


def _slug_given(value: Any) -> Any:
    if value == "":
        raise problem("is required")
    return value


# A catalog slug, or an inline object; the union's branch is chosen by the value's JSON type, so
# an error names the field (model.kv_heads), not the branch.
SlugGiven = BeforeValidator(_slug_given)


def without_nulls(data: Any) -> Any:
    """The question with every key given as null left out: what the contract reads it as, and
    the form in which it is kept (so later readers never meet a null that means "default")."""
    if isinstance(data, Mapping):
        return {k: without_nulls(v) for k, v in data.items() if v is not None}
    if isinstance(data, list):
        return [without_nulls(v) for v in data]
    return data


class Question(BaseModel):
    """Base of every object in a question: unknown keys are errors, and an optional key given as
    null means its default, as if it were left out."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    @model_validator(mode="before")
    @classmethod
    def _null_means_default(cls, data: Any) -> Any:
        if isinstance(data, Mapping):
            return {k: v for k, v in data.items() if v is not None}
        return data


class Answer(BaseModel):
    """Base of every object in an answer (the OpenAPI document's response schemas)."""

    model_config = ConfigDict(extra="forbid", frozen=True)


# --- from pydantic's errors to one line --------------------------------------------------------

# Branches of a union (slug or inline object, number or object) are tagged "#slug", "#inline"...
# so a field's path can leave them out.
UNION_TAG = "#"
# What "is required" adds for keys whose absence deserves a pointer.
MISSING_HINTS = {
    "workload": "is required: the job, as an estimate question without accelerator and count",
    "kind": "is required: training or serving",
    "estimate": "is required: the workload as an estimate question",
    "accelerator.tflops": "is required: dense TFLOP/s by precision",
}


def dotted(loc: Sequence[str | int]) -> str:
    path = ""
    for part in loc:
        if isinstance(part, int):
            path += f"[{part}]"
        elif part.startswith((UNION_TAG, "function-")):
            continue
        else:
            path = f"{path}.{part}" if path else part
    return path


def _message(error: Mapping[str, Any], path: str) -> str:
    kind, ctx = error["type"], error.get("ctx") or {}
    if kind in (MESSAGE, MESSAGE_AT):
        return str(ctx["message"])
    if kind == "missing":
        return MISSING_HINTS.get(path, "is required")
    if kind == "extra_forbidden":
        return "is not a known field"
    if kind in ("model_type", "model_attributes_type", "dict_type"):
        return "must be an object"
    if kind in ("list_type", "tuple_type"):
        return "must be a list"
    if kind == "string_type":
        return f"must be text, not {error.get('input')!r}"
    return str(error["msg"])


def first_error(exc: ValidationError, *, root: str = "request") -> RequestError:
    """The one error a person sees: an unknown key first (it often explains the rest), else the
    first in the order the question declares its fields."""
    errors = exc.errors()
    chosen = next((e for e in errors if e["type"] == "extra_forbidden"), errors[0])
    loc = list(chosen["loc"])
    if chosen["type"] == MESSAGE_AT:
        loc.extend(str(chosen["ctx"]["at"]).split("."))
    path = dotted(loc)
    if not path and chosen["type"] in ("model_type", "model_attributes_type", "dict_type"):
        path = root
    return RequestError(path or root, _message(chosen, path))


Q = TypeVar("Q", bound=BaseModel)


def parse(model: type[Q], data: Any, *, root: str = "request") -> Q:
    """Validate JSON-like data against a declared question, or raise `RequestError`."""
    if not isinstance(data, Mapping):
        raise RequestError(root, "must be an object")
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise first_error(exc, root=root) from None
