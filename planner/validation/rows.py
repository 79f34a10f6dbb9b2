"""What the three validation tables share: the columns that name a row (its id, source and
split, and the reason written beside a large error), cells read as true or false, a model given
by its shape, and the summary of a group's errors."""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from planner.engine.shapes import param_split
from planner.engine.specs import ModelSpec

SPLITS = ("calibration", "held_out")
# The columns (or report fields) that give a model by its shape, named as ModelSpec names them.
SHAPE_FIELDS = ("layers", "hidden", "heads", "kv_heads", "ffn", "vocab")


@dataclass(frozen=True, kw_only=True)
class Row:
    """What names every validation row: its id, its source, its split (calibration: the
    engine's constants were set on it; held_out: reported, never fitted) and, where its figure
    is off by more than 25 %, why that is not modelled."""

    id: str
    source: str
    split: str = "calibration"
    reason: str = ""


def row_names(row: Mapping[str, str]) -> dict[str, str]:
    """The fields of `Row` from a table's row (a table without a reason column gives none);
    the split must be one of `SPLITS`."""
    if row["split"] not in SPLITS:
        raise ValueError(f"{row['id']}: split must be one of {SPLITS}, not {row['split']!r}")
    return {
        "id": row["id"],
        "source": row["source"],
        "split": row["split"],
        "reason": row.get("reason", "").strip(),
    }


def flag(row: Mapping[str, str], name: str) -> bool:
    value = row[name].strip().lower()
    if value not in ("true", "false"):
        raise ValueError(f"{row['id']}: {name} must be true or false, not {row[name]!r}")
    return value == "true"


def shaped_model(shape: Mapping[str, Any], *, gated_mlp: bool, name: str) -> ModelSpec:
    """The model of the `SHAPE_FIELDS` in `shape`, its size following from them: the layers
    plus separate input and output embeddings."""
    model = ModelSpec(
        params=0.0,
        **{field: int(shape[field]) for field in SHAPE_FIELDS},
        gated_mlp=gated_mlp,
        name=name,
    )
    return replace(model, params=param_split(model).body + 2 * model.embedding_params)


def error_summary(errors: Sequence[float]) -> dict[str, float]:
    """How many absolute errors, their median and the largest."""
    return {
        "rows": len(errors),
        "median_abs_error": statistics.median(errors),
        "max_abs_error": max(errors),
    }
