"""From a probe's measurements to a calibration: the achievable share of each dense peak, of
memory bandwidth and of the scale-up link, and the end-to-end efficiency of a measured
training step against the engine's prediction for the same step."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from planner.engine import efficiency as eff
from planner.engine.estimate import estimate
from planner.engine.specs import (
    AcceleratorSpec,
    CalibrationSpec,
    EstimateRequest,
    ModelSpec,
    ParallelSpec,
)

PRECISIONS = ("fp32", "tf32", "bf16", "fp16", "fp8", "int8")
# A measured rate under a quarter of the peak says more about the benchmark's code path than the
# card (PyTorch's int8 matmul on Hopper, for one): shown, not used.
MIN_CREDIBLE_SHARE = 0.25


@dataclass(frozen=True)
class Derivation:
    spec: CalibrationSpec
    rows: list[dict[str, Any]]  # figure, measured, datasheet, engine default, unit

    def as_dict(self) -> dict[str, Any]:
        spec = {f: getattr(self.spec, f) for f in self.spec.__dataclass_fields__}
        spec["gemm_efficiency"] = dict(self.spec.gemm_efficiency)
        return {"calibration": spec, "rows": self.rows}


# The probe step's keys that are ModelSpec fields of the same name and unit.
PROBE_SHAPE_KEYS = ("layers", "hidden", "heads", "kv_heads", "ffn", "vocab", "name")


def figure_row(
    figure: str, unit: str, *, measured: float, datasheet: float, efficiency: float
) -> dict[str, Any]:
    """One compared figure: what the probe measured, the datasheet's, and what the engine
    assumes without calibration (the datasheet times its default efficiency)."""
    return {
        "figure": figure,
        "unit": unit,
        "measured": measured,
        "datasheet": datasheet,
        "engine": round(datasheet * efficiency, 1),
    }


def step_request(
    step: dict[str, Any],
    accelerator: AcceleratorSpec,
    *,
    calibration: CalibrationSpec | None = None,
) -> EstimateRequest:
    """The engine's question for one of the probe's training steps: no recompute, flash
    attention, the probe's model shape, sequence and micro-batch, on one device or data
    parallel over the `dp` devices of one node (one micro-batch each, no ZeRO)."""
    dp = int(step.get("dp", 1))
    model = ModelSpec(params=float(step["params"]), **{key: step[key] for key in PROBE_SHAPE_KEYS})
    return EstimateRequest(
        task="train",
        model=model,
        accelerator=accelerator,
        count=dp,
        per_node=dp,
        precision=step.get("precision", "bf16"),
        seq_len=step["seq_len"],
        global_batch=step["micro_batch"] * dp,
        micro_batch=step["micro_batch"],
        tokens=1e9,
        attention=step.get("attention", "flash"),
        parallelism=ParallelSpec(
            tp=1,
            pp=1,
            dp=dp,
            micro_batch=step["micro_batch"],
            zero_stage=0,
            recompute=step.get("recompute", "none"),
        ),
        calibration=calibration,
    )


def predicted_tokens_per_s(
    step: dict[str, Any], accelerator: AcceleratorSpec, calibration: CalibrationSpec | None = None
) -> float:
    """What the engine predicts for one of the probe's training steps."""
    answer = estimate(step_request(step, accelerator, calibration=calibration), advise=False)
    tokens_per_s: float = answer.throughput["tokens_per_s"]
    return tokens_per_s


def _gemm_rows(
    probe: dict[str, Any], accelerator: AcceleratorSpec
) -> tuple[dict[str, float], list[dict[str, Any]]]:
    """The measured share of each dense peak; shares too low to credit are shown, not used."""
    gemm, rows = {}, []
    for precision in PRECISIONS:
        measured = (probe.get("matmul", {}).get(precision) or {}).get("tflops")
        peak = accelerator.peak_tflops(precision)
        if measured and peak:
            share = round(measured / peak, 4)
            if share >= MIN_CREDIBLE_SHARE:
                gemm[precision] = share
            row = figure_row(
                f"{precision} matrix multiply",
                "TFLOP/s",
                measured=measured,
                datasheet=peak,
                efficiency=eff.GEMM_EFFICIENCY.get(precision, 0.75),
            )
            rows.append({**row, "used": share >= MIN_CREDIBLE_SHARE})
    return gemm, rows


def _bandwidth_rows(
    probe: dict[str, Any], accelerator: AcceleratorSpec
) -> tuple[float | None, float | None, list[dict[str, Any]]]:
    """The share of datasheet memory bandwidth a device-to-device copy reached, and of the
    scale-up link the best all-reduce reached (None where the probe or the card lacks it)."""
    copy = probe.get("memory", {}).get("d2d_gb_s")
    busbw = max((r["busbw_gb_s"] for r in probe.get("allreduce", [])), default=None)
    # Each: the probe's label, its measurement, the datasheet figure, the engine's default share.
    measured = (
        (
            "memory bandwidth (copy, read + write)",
            copy,
            accelerator.memory_bw_gb_s,
            eff.MEMORY_BW_EFFICIENCY,
        ),
        ("all-reduce bus bandwidth", busbw, accelerator.scale_up_gb_s, eff.SCALE_UP_EFFICIENCY),
    )
    shares: list[float | None] = []
    rows = []
    for figure, value, datasheet, efficiency in measured:
        if not (value and datasheet):
            shares.append(None)
            continue
        shares.append(round(value / datasheet, 4))
        rows.append(
            figure_row(figure, "GB/s", measured=value, datasheet=datasheet, efficiency=efficiency)
        )
    return shares[0], shares[1], rows


def _step_rows(
    steps: list[dict[str, Any]],
    accelerator: AcceleratorSpec,
    spec: CalibrationSpec,
    reference_step: str | None,
) -> tuple[CalibrationSpec, list[dict[str, Any]]]:
    """The end-to-end factor from the reference step, and every step predicted with and
    without the calibration."""
    if not steps:
        return spec, []
    single = [s for s in steps if s.get("dp", 1) == 1] or steps
    reference = next((s for s in single if s["name"] == reference_step), single[0])
    kernels_only = predicted_tokens_per_s(reference, accelerator, spec)
    spec = dataclasses.replace(
        spec, step_efficiency=round(reference["tokens_per_s"] / kernels_only, 4)
    )
    rows = [
        {
            "figure": f"training step '{step['name']}'"
            + (f" on {step['dp']} GPUs" if step.get("dp", 1) > 1 else ""),
            "unit": "tokens/s",
            "measured": step["tokens_per_s"],
            "datasheet": None,
            "engine": round(predicted_tokens_per_s(step, accelerator), 1),
            "calibrated": round(predicted_tokens_per_s(step, accelerator, spec), 1),
            "reference": step is reference,
        }
        for step in steps
    ]
    return spec, rows


def derive(
    probe: dict[str, Any],
    accelerator: AcceleratorSpec,
    *,
    name: str,
    reference_step: str | None = None,
) -> Derivation:
    """Calibrate `accelerator` from one probe report. The end-to-end factor comes from the
    reference training step (the first on one device by default); other steps, data-parallel
    ones included, stay free to check it."""
    gemm, gemm_rows = _gemm_rows(probe, accelerator)
    bw_eff, scale_up, bandwidth_rows = _bandwidth_rows(probe, accelerator)
    spec = CalibrationSpec(
        name=name,
        gemm_efficiency=MappingProxyType(gemm),
        memory_bw_efficiency=bw_eff,
        scale_up_efficiency=scale_up,
    )
    spec, step_rows = _step_rows(probe.get("training", []), accelerator, spec, reference_step)
    return Derivation(spec, gemm_rows + bandwidth_rows + step_rows)
