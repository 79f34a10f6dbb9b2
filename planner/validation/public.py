"""Published training runs (planner/validation/training_public.csv) replayed through the
engine with each run's own model, hardware and parallel layout.

The engine never sees the measured figure: a row becomes an `EstimateRequest` built from the
shape and layout columns and the catalog's datasheet figures, and only the answer is compared.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

from planner.adapters import accelerator_spec, fabric_spec
from planner.engine.estimate import estimate
from planner.engine.specs import EstimateRequest, ModelSpec, ParallelSpec
from planner.validation.catalog import catalog_rows
from planner.validation.rows import Row, error_summary, flag, row_names, shaped_model

DATA_FILE = Path(__file__).resolve().parent / "training_public.csv"


@dataclass(frozen=True)
class Case(Row):
    """A published training run: the model it trained, the question it becomes, and the
    throughput it reported per device."""

    model_name: str
    request: EstimateRequest
    measured_tokens_per_s_per_device: float


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
    return shaped_model(row, gated_mlp=row["gated_mlp"] == "true", name=row["model"])


# Columns that are ParallelSpec fields of the same name, and every column read as a whole number.
LAYOUT_COLUMNS = ("tp", "pp", "dp", "cp", "vp", "micro_batch", "zero_stage")
WHOLE_COLUMNS = (*LAYOUT_COLUMNS, "seq_len", "global_batch", "gpus")


def load_cases(path: Path = DATA_FILE) -> list[Case]:
    accelerators = catalog_rows("accelerators")
    fabrics = catalog_rows("fabrics")
    cases = []
    with path.open(newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            names = row_names(row)
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
                compile=flag(row, "compile"),
                parallelism=layout,
            )
            measured = float(row["measured_tokens_per_s_per_gpu"])
            cases.append(
                Case(
                    **names,
                    model_name=row["model"],
                    request=request,
                    measured_tokens_per_s_per_device=measured,
                )
            )
    return cases


def run_case(case: Case) -> Outcome:
    answer = estimate(case.request)
    return Outcome(case, answer.throughput["tokens_per_s_per_device"], answer.throughput["mfu"])


def run_all(cases: list[Case] | None = None) -> list[Outcome]:
    return [run_case(c) for c in (cases if cases is not None else load_cases())]


def summary(outcomes: list[Outcome]) -> dict[str, float]:
    return error_summary([abs(o.error) for o in outcomes])
