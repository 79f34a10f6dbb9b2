"""When a job does not fit in memory: how far over capacity it is, and which single changes a
user can make would bring it under, each one tried through the same memory model."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from planner.engine.memory import inference_memory, rounded_gib, usable_memory_gib
from planner.engine.messages import Message, message
from planner.engine.parallel import candidate_layouts, evaluate, serving_tp
from planner.engine.specs import EstimateRequest

TWICE_THE_DEVICES = message("fit.option.twice_the_devices")


def _inference_options(req: EstimateRequest) -> list[tuple[Message, EstimateRequest]]:
    options: list[tuple[Message, EstimateRequest]] = []
    replace = dataclasses.replace
    for precision in ("int8", "int4"):
        if req.precision not in (precision, "int4") and req.accelerator.peak_tflops("bf16"):
            label = message("fit.option.quantised_weights", precision=precision)
            options.append((label, replace(req, precision=precision)))
    if req.inference.kv_precision not in ("fp8", "int8", "int4"):
        options.append(
            (
                message("fit.option.fp8_kv_cache"),
                replace(req, inference=replace(req.inference, kv_precision="fp8")),
            )
        )
    if req.inference.batch > 1:
        options.append(
            (
                message("fit.option.half_the_batch"),
                replace(req, inference=replace(req.inference, batch=req.inference.batch // 2)),
            )
        )
    options.append(
        (TWICE_THE_DEVICES, replace(req, count=req.count * 2, per_node=min(req.per_node * 2, 8)))
    )
    return options


def _training_options(req: EstimateRequest) -> list[tuple[Message, EstimateRequest]]:
    options: list[tuple[Message, EstimateRequest]] = []
    replace = dataclasses.replace
    free = replace(req, parallelism=None)
    if req.recompute != "full":
        options.append((message("fit.option.full_recompute"), replace(free, recompute="full")))
    if (req.zero_stage or 0) < 3:
        options.append((message("fit.option.zero3"), replace(free, zero_stage=3)))
    if req.task == "finetune" and req.method == "full":
        options.append((message("fit.option.method", method="LoRA"), replace(free, method="lora")))
        options.append(
            (message("fit.option.method", method="QLoRA"), replace(free, method="qlora"))
        )
    elif req.task == "finetune" and req.method == "lora":
        options.append(
            (message("fit.option.method", method="QLoRA"), replace(free, method="qlora"))
        )
    # Twice the devices keep the batch per device: a given batch doubles, a chosen one is
    # chosen again for the larger cluster.
    batch = req.global_batch * 2 if req.global_batch is not None else None
    options.append((TWICE_THE_DEVICES, replace(free, count=req.count * 2, global_batch=batch)))
    return options


def fit_options(req: EstimateRequest) -> list[tuple[Message, EstimateRequest]]:
    """Changes a user can make, most modest first, each as the request it would become."""
    return _inference_options(req) if req.task == "inference" else _training_options(req)


def fits(req: EstimateRequest) -> bool:
    """Whether some layout fits: for serving the one `estimate` picks, compared in GiB as the
    answer reports it; for training any layout of the search."""
    if req.task == "inference":
        total = inference_memory(req, tp=serving_tp(req)[0])["total"]
        return rounded_gib(total) <= usable_memory_gib(req.accelerator)
    layouts = candidate_layouts(req)
    return len(layouts) > 0 and bool(evaluate(req, layouts).fits.any())


def does_not_fit(req: EstimateRequest, memory: Mapping[str, Any]) -> Message:
    """How far over capacity, and which single changes would make it fit (each one tried)."""
    figures = {
        "need_gib": memory["per_device_gib"],
        "over_gib": memory["per_device_gib"] - memory["capacity_gib"],
        "capacity_gib": memory["capacity_gib"],
    }
    options = fit_options(req)
    working = [label for label, alt in options if fits(alt)]
    if working:
        return message("fit.does_not_fit.would_fit", **figures, options=working)
    return message("fit.does_not_fit.none_alone", **figures, options=[o for o, _ in options])
