"""Runs measured on one NVIDIA H200 (the reports in planner/validation/measurements/, each with
the command that made it and its date) replayed through the engine.

planner/validation/h200_measured.csv declares the rows: each names its report, the one
measurement in it (`match`), the software stack it ran (`framework`, `compile`,
`cuda_graphs`, `param_dtype`) and its split. The figures are read from the report, never
copied into the table. Each question carries the row's stack, so the engine's defaults never
decide a row.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from planner.adapters import accelerator_spec, model_spec
from planner.engine.estimate import estimate
from planner.engine.specs import EstimateRequest, InferenceSpec, ModelSpec, ParallelSpec
from planner.validation.catalog import catalog_rows
from planner.validation.rows import Row, error_summary, flag, row_names, shaped_model

DATA_FILE = Path(__file__).resolve().parent / "h200_measured.csv"
MEASUREMENTS = Path(__file__).resolve().parent / "measurements"
ACCELERATOR = "nvidia-h200-sxm-141gb"
KINDS = ("train", "decode", "prefill")
# What each kind compares: the measured figure's name and the engine's answer for it.
METRICS = {
    "train": ("tokens_per_s", "peak_reserved_gib", "fits"),
    "decode": ("tpot_s",),
    "prefill": ("prefill_s",),
}
BOOL_FIELDS = ("compile", "cuda_graphs")
# A decode report's time per step, by measurement: the graph replay, generate()'s
# (17 tokens - 1) / 16, and the median of generate()'s individually timed steps.
DECODE_FIGURES = ("graph_step_s", "decode_s_per_token", "step_wall_s")
# The engine's framework for a measured stack. A hand-written decode step over a static cache
# with PyTorch's SDPA, captured as one CUDA graph, is what generate() runs with the static
# cache under torch.compile's "reduce-overhead" mode: the engine's hf stack compiled. (It is
# not vLLM: vLLM's attention splits the cache across blocks, SDPA does not.)
ENGINE_FRAMEWORK = {"static-graph": "hf", "hf": "hf"}
# The framework whose uncertainty band a row's error joins: a decode step replayed as a CUDA
# graph is the closest measurement there is of a serving engine's graph-replayed decode, whose
# weight-streaming figures (planner.engine.stack) these rows set.
BAND_FRAMEWORK = {"static-graph": "vllm", "hf": "hf"}


@dataclass(frozen=True)
class MeasuredCase(Row):
    kind: str
    framework: str
    compile: bool
    cuda_graphs: bool
    param_dtype: str
    note: str
    report: str
    request: EstimateRequest
    measured: dict[str, float | bool]

    @property
    def band_framework(self) -> str:
        return BAND_FRAMEWORK[self.framework]

    @property
    def stack(self) -> str:
        extras = [name for name in BOOL_FIELDS if getattr(self, name)]
        return "+".join([self.framework, *extras])


@dataclass(frozen=True)
class MeasuredOutcome:
    case: MeasuredCase
    predicted: dict[str, float | bool]

    def error(self, metric: str) -> float | None:
        """(predicted - measured) / measured, or None where the row has no such figure."""
        measured, predicted = self.case.measured.get(metric), self.predicted.get(metric)
        if isinstance(measured, bool) or measured is None or predicted is None:
            return None
        return (float(predicted) - measured) / measured

    @property
    def fits_agrees(self) -> bool | None:
        if "fits" not in self.case.measured:
            return None
        return self.predicted["fits"] == self.case.measured["fits"]


@cache
def _report(relative: str) -> dict[str, Any]:
    path = MEASUREMENTS / relative
    if not path.is_file():
        raise ValueError(f"report: no measurement report at {path}")
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def find_measurement(report: dict[str, Any], match: str, row_id: str) -> dict[str, Any]:
    """The one result in `report` whose fields equal every `key=value` of `match`."""
    try:
        wanted = dict(part.split("=", 1) for part in match.split(";") if part)
    except ValueError:
        raise ValueError(f"{row_id}: match must be key=value pairs joined by ';'") from None

    def same(result: dict[str, Any]) -> bool:
        return all(str(result.get(k)).lower() == v.lower() for k, v in wanted.items())

    found = [r for r in report.get("results", []) if same(r)]
    if len(found) != 1:
        raise ValueError(f"{row_id}: match {match!r} selects {len(found)} results, not one")
    return found[0]


def _train_model(result: dict[str, Any], row_id: str) -> ModelSpec:
    model = shaped_model(result, gated_mlp=True, name=str(result["model"]))
    if abs(model.params - result["params"]) > 1e-3 * result["params"]:
        raise ValueError(
            f"{row_id}: shape gives {model.params:.0f} parameters, the run had {result['params']}"
        )
    return model


def _stack(row: dict[str, str]) -> dict[str, Any]:
    """The question's stack fields from the row's columns."""
    if row["framework"] not in ENGINE_FRAMEWORK:
        raise ValueError(f"{row['id']}: framework {row['framework']!r} has no engine framework")
    param_dtype = row["param_dtype"]
    return {
        "framework": ENGINE_FRAMEWORK[row["framework"]],
        # The engine's hf stack replays decode as CUDA graphs only when compiled.
        "compile": flag(row, "compile") or flag(row, "cuda_graphs"),
        "param_dtype": param_dtype if param_dtype == "fp32" else None,
    }


def _train_case(result: dict[str, Any], row: dict[str, str], accelerator: Any) -> tuple[Any, dict]:
    row_id = row["id"]
    mb = int(result["micro_batch"])
    layout = ParallelSpec(
        micro_batch=mb,
        recompute="full" if result["activation_checkpointing"] else "none",
        sequence_parallel=False,
    )
    request = EstimateRequest(
        task="train",
        model=_train_model(result, row_id),
        accelerator=accelerator,
        count=1,
        per_node=1,
        precision="bf16",
        seq_len=int(result["seq_len"]),
        global_batch=mb,
        micro_batch=mb,
        tokens=1e9,
        attention="flash",
        parallelism=layout,
        # Run 1 kept transformers' default use_cache=True (its results do not name it); run 2
        # turned it off and says so.
        use_cache=bool(result.get("use_cache", True)),
        **_stack(row),
    )
    measured: dict[str, float | bool] = {"fits": not result["oom"]}
    if not result["oom"]:
        measured["tokens_per_s"] = float(result["tokens_per_s"])
        measured["peak_reserved_gib"] = float(result["memory"]["max_reserved_gib"])
        measured["peak_allocated_gib"] = float(result["memory"]["max_allocated_gib"])
    return request, measured


def _inference_case(
    kind: str, result: dict[str, Any], row: dict[str, str], accelerator: Any
) -> tuple[Any, dict]:
    models = catalog_rows("models")
    if row["catalog_model"] not in models:
        raise ValueError(
            f"{row['id']}: catalog_model {row['catalog_model']!r} is not in the catalog"
        )
    model = model_spec(models[row["catalog_model"]])
    if int(model.params) != int(result["params"]):
        raise ValueError(f"{row['id']}: {row['catalog_model']} is not the model that was measured")
    batch, ctx = int(result["batch"]), int(result["ctx"])
    request = EstimateRequest(
        task="inference",
        model=model,
        accelerator=accelerator,
        count=1,
        per_node=1,
        precision="bf16",
        attention="flash",
        inference=InferenceSpec(batch=batch, prompt_len=ctx, output_len=1),
        **_stack(row),
    )
    if kind == "prefill":
        return request, {"prefill_s": float(result["prefill_s"])}
    step = next(result[name] for name in DECODE_FIGURES if name in result)
    return request, {"tpot_s": float(step)}


def load_measured_cases(path: Path = DATA_FILE) -> list[MeasuredCase]:
    accelerator = accelerator_spec(catalog_rows("accelerators")[ACCELERATOR])
    cases = []
    with path.open(newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            if row["kind"] not in KINDS:
                raise ValueError(f"{row['id']}: kind must be one of {KINDS}, not {row['kind']!r}")
            names = row_names(row)
            result = find_measurement(_report(row["report"]), row["match"], row["id"])
            if "error" in result or "skipped" in result:
                raise ValueError(f"{row['id']}: the matched measurement has no figures")
            if row["kind"] == "train":
                request, measured = _train_case(result, row, accelerator)
            else:
                request, measured = _inference_case(row["kind"], result, row, accelerator)
            cases.append(
                MeasuredCase(
                    **names,
                    kind=row["kind"],
                    framework=row["framework"],
                    compile=flag(row, "compile"),
                    cuda_graphs=flag(row, "cuda_graphs"),
                    param_dtype=row["param_dtype"],
                    note=row["note"],
                    report=row["report"],
                    request=request,
                    measured=measured,
                )
            )
    return cases


def run_measured_case(case: MeasuredCase) -> MeasuredOutcome:
    answer = estimate(case.request, advise=False)
    if case.kind == "train":
        predicted: dict[str, float | bool] = {
            "tokens_per_s": float(answer.throughput["tokens_per_s_per_device"]),
            "peak_reserved_gib": float(answer.memory["per_device_gib"]),
            "fits": bool(answer.memory["fits"]),
        }
    elif case.kind == "decode":
        predicted = {"tpot_s": float(answer.inference["tpot_ms"]) / 1e3}
    else:
        predicted = {"prefill_s": float(answer.inference["ttft_ms"]) / 1e3}
    return MeasuredOutcome(case, predicted)


def run_all_measured(cases: list[MeasuredCase] | None = None) -> list[MeasuredOutcome]:
    return [run_measured_case(c) for c in (cases if cases is not None else load_measured_cases())]


def group_summary(outcomes: Iterable[MeasuredOutcome], metric: str) -> dict[str, float] | None:
    errors = [abs(e) for e in (o.error(metric) for o in outcomes) if e is not None]
    return error_summary(errors) if errors else None
