"""What every question of the contract shares: the error it raises, the value types it accepts,
and the turn of pydantic's errors into one line naming the dotted field path.

The rules are the contract's, not pydantic's defaults: numbers are JSON numbers (not strings,
not booleans) and finite; whole numbers may be written 8 or 8.0; an optional key given as null
means its default, as if it were left out (null for a key that is not optional is an error);
unknown keys are errors."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, TypeVar, get_args

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    GetCoreSchemaHandler,
    GetJsonSchemaHandler,
    ValidationError,
    model_validator,
)
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import PydanticCustomError, core_schema

from planner.engine.errors import RequestError as RequestError
from planner.engine.errors import gettext_noop as _

# The error types this module raises: a message of its own, and the same with a sub-path
# (a cross-field rule naming the field at fault inside the object that checks it).
MESSAGE = "flopfit"
MESSAGE_AT = "flopfit_at"


def problem(template: str, *, at: str | None = None, **params: Any) -> PydanticCustomError:
    """A validation error with the contract's own wording (a template and its values, as
    `RequestError` takes them), optionally about a field below the object being checked
    (`at="kv_heads"` inside the model's validator)."""
    context = {
        "message": template.format(**params) if params else template,
        "template": template,
        "params": params,
    }
    if at is None:
        return PydanticCustomError(MESSAGE, "{message}", context)
    return PydanticCustomError(MESSAGE_AT, "{message}", {**context, "at": at})


def shown(value: Any) -> str:
    """A value as the error messages quote it: numbers plainly, the rest as Python writes it."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return repr(value)
    return str(value)


# --- value types ------------------------------------------------------------------------------


def _number(value: Any) -> float | int:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise problem(_("must be a number, not {value}"), value=repr(value))
    number: float | int = value
    if not math.isfinite(number):
        raise problem(_("must be finite"))
    return number


def _whole(value: Any) -> int:
    value = _number(value)
    if value != int(value):
        raise problem(_("must be a whole number, not {value}"), value=repr(value))
    return int(value)


def _bounded(
    check: Callable[[Any], Any], ge: float | None, le: float | None, gt: float | None
) -> Callable[[Any], Any]:
    def validate(value: Any) -> Any:
        value = check(value)
        if gt is not None and value <= gt:
            raise problem(
                _("must be greater than {bound}, not {value}"), bound=shown(gt), value=shown(value)
            )
        if ge is not None and value < ge:
            raise problem(
                _("must be at least {bound}, not {value}"), bound=shown(ge), value=shown(value)
            )
        if le is not None and value > le:
            raise problem(
                _("must be at most {bound}, not {value}"), bound=shown(le), value=shown(value)
            )
        return value

    return validate


@dataclass(frozen=True)
class Range:
    """A number within bounds, as field metadata: `Annotated[int, whole(ge=1)]`. The check is
    the contract's own (its errors say "must be at least 1, not 0"), and the document states
    the bounds as JSON Schema does."""

    ge: float | None = None
    le: float | None = None
    gt: float | None = None
    integer: bool = False

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        check = _bounded(_whole if self.integer else _number, self.ge, self.le, self.gt)
        return core_schema.no_info_before_validator_function(check, handler(source))

    def __get_pydantic_json_schema__(
        self, schema: core_schema.CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        json_schema = handler(schema)
        named = {"minimum": self.ge, "maximum": self.le, "exclusiveMinimum": self.gt}
        json_schema.update({k: v for k, v in named.items() if v is not None})
        return json_schema


def number(*, ge: float | None = None, le: float | None = None, gt: float | None = None) -> Range:
    """A finite JSON number within the bounds."""
    return Range(ge=ge, le=le, gt=gt)


def whole(*, ge: int | None = None, le: int | None = None) -> Range:
    """A whole number (8 or 8.0) within the bounds."""
    return Range(ge=ge, le=le, integer=True)


# A model's shape within what any model could have, hundreds of times the largest published
# ones (2e12 parameters, 126 layers, hidden 16,384, 128 heads, a vocabulary of 256k, 256
# experts), so that every sum of an answer stays a finite number.
MAX_PARAMS = 1e15
MAX_LAYERS = 100_000
MAX_WIDTH = 10_000_000
MAX_HEADS = 1_000_000
# Tokens a job may process: ten thousand times the largest published pre-training run (about
# 4e13), bounded for the same reason.
MAX_TOKENS = 1e18

# The bounds most fields share, named once.
Count = Annotated[int, whole(ge=1)]  # a degree, a batch, a length, a layer count
# A figure that must be positive: a thousandth of its unit at least, so a zero never divides.
PositiveFigure = Annotated[float, number(ge=0.001)]
NonNegative = Annotated[float, number(ge=0)]  # a power, a rate or a price that may be nothing


def _flag(value: Any) -> bool:
    if not isinstance(value, bool):
        raise problem(_("must be true or false, not {value}"), value=repr(value))
    return value


Flag = Annotated[bool, BeforeValidator(_flag)]


def one_of(options: Sequence[str]) -> Callable[[Any], Any]:
    """The check a choice field runs first, so its message lists the options as the contract
    spells them."""

    def validate(value: Any) -> Any:
        if value not in options:
            raise problem(
                _("must be one of {options}, not {value}"),
                options=", ".join(options),
                value=repr(value),
            )
        return value

    return validate


def _text(value: Any) -> str:
    if not isinstance(value, str):
        raise problem(_("must be text, not {value}"), value=repr(value))
    return value


Text = Annotated[str, BeforeValidator(_text)]


def _slug_given(value: Any) -> Any:
    if value == "":
        raise problem(_("is required"))
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


# Per question class, the keys for which null means "left out" (read once).
_NULLABLE_KEYS: dict[type, frozenset[str]] = {}


def _admits_none(annotation: Any) -> bool:
    return annotation is None or type(None) in get_args(annotation)


class Question(BaseModel):
    """Base of every object in a question: unknown keys are errors, and an optional key (one
    whose type admits None) given as null means its default, as if it were left out. Null for a
    key whose default is a value is an error naming it (`"servers": null` is not a number of
    servers); null for a required key reads as missing."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    @classmethod
    def _nullable_keys(cls) -> frozenset[str]:
        keys = _NULLABLE_KEYS.get(cls)
        if keys is None:
            keys = _NULLABLE_KEYS[cls] = frozenset(
                key
                for name, field in cls.model_fields.items()
                # A required key given as null reads as missing: "is required" names it best.
                if _admits_none(field.annotation) or field.is_required()
                for key in (name, field.alias or name)
            )
        return keys

    @model_validator(mode="before")
    @classmethod
    def _null_means_default(cls, data: Any) -> Any:
        if isinstance(data, Mapping):
            nullable = cls._nullable_keys()
            return {k: v for k, v in data.items() if v is not None or k not in nullable}
        return data

    def same_named(self, names: str) -> dict[str, Any]:
        """The fields `names` (space-separated) as parsed, for the engine dataclass fields of
        the same name and meaning; fields that need converting are passed on their own."""
        return {name: getattr(self, name) for name in names.split()}


class GivenFigures(Question):
    """Optional figures, each named by its key (loss factors, weights): those given replace
    what the engine would use, those left out keep it."""

    def given(self) -> dict[str, float]:
        """The figures given, by key, in the order they are declared."""
        return {name: float(value) for name, value in self if value is not None}


class Answer(BaseModel):
    """Base of every object in an answer (the OpenAPI document's response schemas)."""

    model_config = ConfigDict(extra="forbid", frozen=True)


# --- from pydantic's errors to one line --------------------------------------------------------

# Branches of a union (slug or inline object, number or object) are tagged "#slug", "#inline"...
# so a field's path can leave them out.
UNION_TAG = "#"
# What "is required" adds for keys whose absence deserves a pointer.
MISSING_HINTS = {
    "workload": _("is required: the job, as an estimate question without accelerator and count"),
    "kind": _("is required: training or serving"),
    "estimate": _("is required: the workload as an estimate question"),
    "accelerator.tflops": _("is required: dense TFLOP/s by precision"),
}
OBJECT_TYPES = ("model_type", "model_attributes_type", "dict_type")


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


def _template(error: Mapping[str, Any], path: str) -> tuple[str, dict[str, Any]]:
    kind, ctx = error["type"], error.get("ctx") or {}
    if kind in (MESSAGE, MESSAGE_AT):
        return str(ctx["template"]), dict(ctx["params"])
    if kind == "missing":
        return MISSING_HINTS.get(path, _("is required")), {}
    if kind == "extra_forbidden":
        return _("is not a known field"), {}
    if kind in OBJECT_TYPES:
        return _("must be an object"), {}
    if kind in ("list_type", "tuple_type"):
        return _("must be a list"), {}
    if kind == "string_type":
        return _("must be text, not {value}"), {"value": repr(error.get("input"))}
    return str(error["msg"]), {}


def first_error(exc: ValidationError, *, root: str = "request") -> RequestError:
    """The one error a person sees: an unknown key first (it often explains the rest), else the
    first in the order the question declares its fields."""
    errors = exc.errors()
    chosen = next((e for e in errors if e["type"] == "extra_forbidden"), errors[0])
    loc = list(chosen["loc"])
    if chosen["type"] == MESSAGE_AT:
        loc.extend(str(chosen["ctx"]["at"]).split("."))
    path = dotted(loc)
    if not path and chosen["type"] in OBJECT_TYPES:
        path = root
    template, params = _template(chosen, path)
    return RequestError(path or root, template, **params)


Q = TypeVar("Q", bound=BaseModel)


def parse(model: type[Q], data: Any, *, root: str = "request") -> Q:
    """Validate JSON-like data against a declared question, or raise `RequestError`."""
    if not isinstance(data, Mapping):
        raise RequestError(root, _("must be an object"))
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise first_error(exc, root=root) from None
