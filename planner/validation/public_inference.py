"""Published inference measurements (planner/validation/inference_public.csv) replayed through
the engine: each row names its source (URL, table, date), the catalog's model and card, the
serving stack and the question (batch, context), and the figure as published.

The engine never sees the figure: the row becomes an `EstimateRequest` and only the answer's
time per output token is compared with 1 / the published tokens per second."""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

from planner.adapters import accelerator_spec, model_spec
from planner.engine.estimate import estimate
from planner.engine.specs import EstimateRequest, InferenceSpec
from planner.engine.stack import INFERENCE_FRAMEWORKS
from planner.validation.catalog import catalog_rows
from planner.validation.rows import Row, row_names

DATA_FILE = Path(__file__).resolve().parent / "inference_public.csv"
SOURCE_COLUMNS = ("source", "citation", "table", "date")


@dataclass(frozen=True)
class InferenceCase(Row):
    citation: str
    framework: str
    request: EstimateRequest
    measured_tpot_s: float


@dataclass(frozen=True)
class InferenceOutcome:
    case: InferenceCase
    predicted_tpot_s: float

    @property
    def error(self) -> float:
        return (self.predicted_tpot_s - self.case.measured_tpot_s) / self.case.measured_tpot_s


def _whole(row: dict[str, str], name: str) -> int:
    try:
        value = int(row[name])
    except ValueError:
        raise ValueError(f"{row['id']}: {name} must be a whole number, not {row[name]!r}") from None
    if value < 1:
        raise ValueError(f"{row['id']}: {name} must be at least 1")
    return value


def _case(row: dict[str, str], models: dict, accelerators: dict) -> InferenceCase:
    row_id = row["id"]
    for name in SOURCE_COLUMNS:
        if not row[name].strip():
            raise ValueError(f"{row_id}: {name} is required (every published figure names it)")
    names = row_names(row)
    if row["framework"] not in INFERENCE_FRAMEWORKS:
        raise ValueError(f"{row_id}: framework {row['framework']!r} does not serve")
    if row["catalog_model"] not in models:
        raise ValueError(f"{row_id}: catalog_model {row['catalog_model']!r} is not in the catalog")
    if row["accelerator"] not in accelerators:
        raise ValueError(f"{row_id}: accelerator {row['accelerator']!r} is not in the catalog")
    tokens_per_s = float(row["measured_tokens_per_s"])
    if tokens_per_s <= 0:
        raise ValueError(f"{row_id}: measured_tokens_per_s must be positive")
    request = EstimateRequest(
        task="inference",
        model=model_spec(models[row["catalog_model"]]),
        accelerator=accelerator_spec(accelerators[row["accelerator"]]),
        count=1,
        per_node=1,
        precision=row["precision"],
        attention="flash",
        # The row names its stack, so the engine's defaults never decide it.
        framework=row["framework"],
        inference=InferenceSpec(
            batch=_whole(row, "batch"), prompt_len=_whole(row, "ctx"), output_len=1
        ),
    )
    return InferenceCase(
        **names,
        citation=row["citation"],
        framework=row["framework"],
        request=request,
        # A batch of one: the published tokens per second is one sequence's, 1 / time per token.
        measured_tpot_s=1.0 / tokens_per_s,
    )


def load_inference_cases(path: Path = DATA_FILE) -> list[InferenceCase]:
    models, accelerators = catalog_rows("models"), catalog_rows("accelerators")
    with path.open(newline="", encoding="utf-8") as handle:
        return [_case(row, models, accelerators) for row in csv.DictReader(handle)]


def run_inference_case(case: InferenceCase) -> InferenceOutcome:
    answer = estimate(case.request, advise=False)
    return InferenceOutcome(case, float(answer.inference["tpot_ms"]) / 1e3)


def run_all_inference(cases: list[InferenceCase] | None = None) -> list[InferenceOutcome]:
    chosen = cases if cases is not None else load_inference_cases()
    return [run_inference_case(c) for c in chosen]
