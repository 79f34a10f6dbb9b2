"""The array types that flow through the engine's vectorised functions: one value per candidate
parallel layout, or a single value where the caller passed scalars.

The functions below are numpy's for arrays and plain Python arithmetic for a single layout's
Python numbers, whose IEEE double results are numpy's to the bit. A one-layout question (a
fixed layout) then costs tens of nanoseconds per operation rather than the microsecond numpy
spends on a call however small its array. Their annotations say `Floats` for both: the engine's
formulas are written once and run on either."""

from __future__ import annotations

import math
from typing import Any, TypeAlias

import numpy as np
import numpy.typing as npt

Floats: TypeAlias = npt.NDArray[np.float64]
Ints: TypeAlias = npt.NDArray[np.int64]

_NUMBERS = (int, float)


def floats(x: Any) -> Floats:
    """`x` as floats: a Python number stays one."""
    if type(x) in _NUMBERS:
        return float(x)  # type: ignore[return-value]
    return np.asarray(x, dtype=float)


def values(x: Any) -> Any:
    """`x` as an array of its own type: a Python number stays one."""
    return x if type(x) in _NUMBERS else np.asarray(x)


def where(condition: Any, a: Any, b: Any) -> Floats:
    # Only all-scalar: numpy broadcasts a scalar condition to an array branch's shape.
    if type(condition) is bool and type(a) in _NUMBERS and type(b) in _NUMBERS:
        return a if condition else b  # type: ignore[no-any-return]
    return np.where(condition, a, b)  # type: ignore[no-any-return]


def maximum(a: Any, b: Any) -> Floats:
    if type(a) in _NUMBERS and type(b) in _NUMBERS:
        return a if a >= b else b  # type: ignore[no-any-return]
    return np.maximum(a, b)  # type: ignore[no-any-return]


def minimum(a: Any, b: Any) -> Floats:
    if type(a) in _NUMBERS and type(b) in _NUMBERS:
        return a if a <= b else b  # type: ignore[no-any-return]
    return np.minimum(a, b)  # type: ignore[no-any-return]


def floor(x: Any) -> Floats:
    if type(x) in _NUMBERS:
        return float(math.floor(x))  # type: ignore[return-value]
    return np.floor(x)  # type: ignore[no-any-return]


def ceil(x: Any) -> Floats:
    if type(x) in _NUMBERS:
        return float(math.ceil(x))  # type: ignore[return-value]
    return np.ceil(x)  # type: ignore[no-any-return]


def zeros_like(x: Any) -> Floats:
    return 0.0 if type(x) in _NUMBERS else np.zeros_like(x)  # type: ignore[return-value]


def ones_like(x: Any) -> Floats:
    return 1.0 if type(x) in _NUMBERS else np.ones_like(x)  # type: ignore[return-value]


def all_at_most(x: Any, bound: float) -> bool:
    """Whether every value of `x` is at most `bound`."""
    return bool(x <= bound) if type(x) in _NUMBERS else bool(np.all(np.asarray(x) <= bound))
