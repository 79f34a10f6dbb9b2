"""When a job does not fit in memory: how far over capacity it is, and which single changes a
user can make would bring it under, each one tried through the same memory model."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from planner.engine.memory import inference_memory, rounded_gib
from planner.engine.parallel import candidate_layouts, evaluate, smallest_fitting_tp
from planner.engine.specs import EstimateRequest

TWICE_THE_DEVICES = "twice the devices"


def _inference_options(req: EstimateRequest) -> list[tuple[str, EstimateRequest]]:
    options: list[tuple[str, EstimateRequest]] = []
    replace = dataclasses.replace
    for precision, label in (("int8", "int8 weights"), ("int4", "int4 weights")):
        if req.precision not in (precision, "int4") and req.accelerator.peak_tflops("bf16"):
            options.append((label, replace(req, precision=precision)))
    if req.inference.kv_precision not in ("fp8", "int8", "int4"):
        options.append(
            ("an fp8 KV cache", replace(req, inference=replace(req.inference, kv_precision="fp8")))
        )
    if req.inference.batch > 1:
        options.append(
            (
                "half the batch",
                replace(req, inference=replace(req.inference, batch=req.inference.batch // 2)),
            )
        )
    options.append(
        (TWICE_THE_DEVICES, replace(req, count=req.count * 2, per_node=min(req.per_node * 2, 8)))
    )
    return options


def _training_options(req: EstimateRequest) -> list[tuple[str, EstimateRequest]]:
    options: list[tuple[str, EstimateRequest]] = []
    replace = dataclasses.replace
    free = replace(req, parallelism=None)
    if req.recompute != "full":
        options.append(("full recompute", replace(free, recompute="full")))
    if (req.zero_stage or 0) < 3:
        options.append(("ZeRO-3 / FSDP", replace(free, zero_stage=3)))
    if req.task == "finetune" and req.method == "full":
        options.append(("LoRA", replace(free, method="lora")))
        options.append(("QLoRA", replace(free, method="qlora")))
    elif req.task == "finetune" and req.method == "lora":
        options.append(("QLoRA", replace(free, method="qlora")))
    options.append(
        (
            TWICE_THE_DEVICES,
            replace(free, count=req.count * 2, global_batch=req.global_batch * 2),
        )
    )
    return options


def fit_options(req: EstimateRequest) -> list[tuple[str, EstimateRequest]]:
    """Changes a user can make, most modest first, each as the request it would become."""
    return _inference_options(req) if req.task == "inference" else _training_options(req)


def fits(req: EstimateRequest) -> bool:
    """Whether some layout fits: for serving the one `estimate` picks, compared in GiB as the
    answer reports it; for training any layout of the search."""
    if req.task == "inference":
        total = inference_memory(req, tp=smallest_fitting_tp(req))["total"]
        return rounded_gib(total) <= req.accelerator.memory_gib
    layouts = candidate_layouts(req)
    return len(layouts) > 0 and bool(evaluate(req, layouts).fits.any())


def does_not_fit(req: EstimateRequest, memory: Mapping[str, Any]) -> str:
    """How far over capacity, and which single changes would make it fit (each one tried)."""
    over = memory["per_device_gib"] - memory["capacity_gib"]
    options = fit_options(req)
    working = [label for label, alt in options if fits(alt)]
    if working:
        advice = f"it would fit with {' or '.join(working)}."
    else:
        advice = f"none of {', '.join(label for label, _ in options)} alone makes it fit."
    return (
        f"Needs {memory['per_device_gib']:.1f} GiB per device, {over:.1f} GiB more than the "
        f"{memory['capacity_gib']:g} GiB available; {advice}"
    )
