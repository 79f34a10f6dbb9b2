"""Published training runs (planner/validation/training_public.csv) replayed through the
engine with each run's own model, hardware and parallel layout.

The engine never sees the measured figure: a row becomes an `EstimateRequest` built from the
shape and layout columns and the catalog's datasheet figures, and only the answer is compared.
"""

from __future__ import annotations

import csv
import statistics
from dataclasses import dataclass, replace
from pathlib import Path

from planner.adapters import accelerator_spec, fabric_spec
from planner.engine.estimate import estimate
from planner.engine.shapes import param_split
from planner.engine.specs import EstimateRequest, ModelSpec, ParallelSpec
from planner.validation.catalog import catalog_rows

DATA_FILE = Path(__file__).resolve().parent / "training_public.csv"
SPLITS = ("calibration", "held_out")


@dataclass(frozen=True)
class Case:
    id: str
    source: str
    model_name: str
    request: EstimateRequest
    measured_tokens_per_s_per_device: float
    # calibration: the engine's constants were set on it; held_out: reported, never fitted.
    split: str = "calibration"
    # Why the row is off by more than groups.REASON_ABOVE, where it is.
    reason: str = ""


@dataclass(frozen=True)
class Outcome:
    case: Case
    predicted_tokens_per_s_per_device: float
    mfu: float

    @property
    def error(self) -> float:
        measured = self.case.measured_tokens_per_s_per_device
        return (self.predicted_tokens_per_s_per_device - measured) / measured


def model_from_row(row: dict) -> ModelSpec:
    shape = ModelSpec(
        params=0.0,
        layers=int(row["layers"]),
        hidden=int(row["hidden"]),
        heads=int(row["heads"]),
        kv_heads=int(row["kv_heads"]),
        ffn=int(row["ffn"]),
        vocab=int(row["vocab"]),
        gated_mlp=row["gated_mlp"] == "true",
        name=row["model"],
    )
    # Sizes follow from the shape: the layers plus separate input and output embeddings.
    return replace(shape, params=param_split(shape).body + 2 * shape.embedding_params)


# Columns that are ParallelSpec fields of the same name, and every column read as a whole number.
LAYOUT_COLUMNS = ("tp", "pp", "dp", "cp", "vp", "micro_batch", "zero_stage")
WHOLE_COLUMNS = (*LAYOUT_COLUMNS, "seq_len", "global_batch", "gpus")


def _flag(row: dict, name: str) -> bool:
    value = row[name].strip().lower()
    if value not in ("true", "false"):
        raise ValueError(f"{row['id']}: {name} must be true or false, not {row[name]!r}")
    return value == "true"


def load_cases(path: Path = DATA_FILE) -> list[Case]:
    accelerators = catalog_rows("accelerators")
    fabrics = catalog_rows("fabrics")
    cases = []
    with path.open(newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            if row["split"] not in SPLITS:
                raise ValueError(
                    f"{row['id']}: split must be one of {SPLITS}, not {row['split']!r}"
                )
            n = {k: int(row[k]) for k in WHOLE_COLUMNS}
            layout = ParallelSpec(
                **{k: n[k] for k in LAYOUT_COLUMNS},
                recompute=row["recompute"],
                sequence_parallel=row["sequence_parallel"] == "true",
                recompute_fraction=float(row["recompute_fraction"]),
            )
            request = EstimateRequest(
                task="train",
                model=model_from_row(row),
                accelerator=accelerator_spec(accelerators[row["accelerator"]]),
                count=n["gpus"],
                per_node=8,
                fabric=fabric_spec(fabrics[row["fabric"]]),
                precision=row["precision"],
                fp8_recipe=row["fp8_recipe"] or None,
                seq_len=n["seq_len"],
                global_batch=n["global_batch"],
                micro_batch=n["micro_batch"],
                tokens=1e9,
                attention=row["attention"],
                # Each run names its stack, so the engine's defaults never decide a row.
                framework=row["framework"],
                compile=_flag(row, "compile"),
                parallelism=layout,
            )
            cases.append(
                Case(
                    row["id"],
                    row["source"],
                    row["model"],
                    request,
                    float(row["measured_tokens_per_s_per_gpu"]),
                    row["split"],
                    row["reason"],
                )
            )
    return cases


def run_case(case: Case) -> Outcome:
    answer = estimate(case.request)
    return Outcome(case, answer.throughput["tokens_per_s_per_device"], answer.throughput["mfu"])


def run_all(cases: list[Case] | None = None) -> list[Outcome]:
    return [run_case(c) for c in (cases if cases is not None else load_cases())]


def summary(outcomes: list[Outcome]) -> dict[str, float]:
    errors = [abs(o.error) for o in outcomes]
    return {
        "rows": len(errors),
        "median_abs_error": statistics.median(errors),
        "max_abs_error": max(errors),
    }


def table(outcomes: list[Outcome]) -> str:
    head = (
        f"{'row':<5} {'source':<34} {'model':<16} {'measured':>10} {'predicted':>10} {'error':>8}"
    )
    lines = [head, "-" * len(head)]
    for o in outcomes:
        lines.append(
            f"{o.case.id:<5} {o.case.source[:34]:<34} {o.case.model_name[:16]:<16} "
            f"{o.case.measured_tokens_per_s_per_device:>10,.1f} {o.predicted_tokens_per_s_per_device:>10,.1f} "
            f"{100 * o.error:>+7.1f}%"
        )
    s = summary(outcomes)
    lines.append("-" * len(head))
    lines.append(
        f"{s['rows']} rows, tokens/s per device: median |error| {100 * s['median_abs_error']:.1f} %, "
        f"max {100 * s['max_abs_error']:.1f} %"
    )
    return "\n".join(lines)
