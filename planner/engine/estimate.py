"""One question in, one answer out: memory, parallelism, throughput, time, the eta factors and
what binds. The answer serialises to the estimate contract's JSON with `as_dict()`."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field

import numpy as np

from planner.engine import MODEL_VERSION
from planner.engine import efficiency as eff
from planner.engine.compute import dense_peak, inference_time, model_flops_per_token
from planner.engine.memory import inference_memory, smallest_fitting_tp
from planner.engine.parallel import candidate_layouts, evaluate, fixed_layout
from planner.engine.specs import BYTES, ETA_KEYS, GIB, EstimateRequest

DAY_S = 86_400.0


@dataclass(frozen=True)
class Estimate:
    memory: dict
    parallelism: dict
    throughput: dict
    time: dict
    inference: dict
    efficiency: dict
    explanations: dict
    bottleneck: str
    warnings: list[str]
    breakdown: dict = field(default_factory=dict)
    search: dict = field(default_factory=dict)

    calibration: dict | None = None

    def as_dict(self) -> dict:
        """The contract's JSON; sections are copied one level deep (their values are plain)."""
        out = {
            name: (
                dict(value)
                if isinstance(value, dict)
                else list(value)
                if isinstance(value, list)
                else value
            )
            for name, value in ((f, getattr(self, f)) for f in self.__dataclass_fields__)
        }
        out["model_version"] = MODEL_VERSION
        if out["calibration"] is None:
            del out["calibration"]
        return out


def _gib(x) -> float:
    return round(float(x) / GIB, 3)


def _memory_dict(components: dict, index: int | None, capacity_gib: float) -> dict:
    pick = (lambda v: np.asarray(v).reshape(-1)[index]) if index is not None else (lambda v: v)
    out = {
        "per_device_gib": _gib(pick(components["total"])),
        "weights_gib": _gib(pick(components["weights"])),
        "gradients_gib": _gib(pick(components["gradients"])),
        "optimizer_gib": _gib(pick(components["optimizer"])),
        "activations_gib": _gib(pick(components["activations"])),
        "kv_cache_gib": _gib(pick(components["kv_cache"])),
        "overhead_gib": _gib(pick(components["overhead"])),
    }
    out["capacity_gib"] = capacity_gib
    out["fits"] = out["per_device_gib"] <= capacity_gib
    return out


def _fault(req: EstimateRequest) -> tuple[float, str]:
    if req.task == "inference":
        return 1.0, "Serving restarts a replica without losing a job's progress; not counted."
    rel = req.reliability
    trainable_bytes = req.model.params * (BYTES["bf16"] + 12)
    if req.method != "full":
        trainable_bytes = 7 * req.lora_rank * 2 * req.model.hidden * req.model.layers * 16
    checkpoint_s = trainable_bytes / (rel.checkpoint_gb_s * 1e9)
    value, mtbf, interval = eff.fault_efficiency(
        devices=req.count,
        failures_per_gpu_hour=rel.failures_per_gpu_hour,
        checkpoint_s=checkpoint_s,
        restart_s=rel.restart_s,
    )
    if math.isinf(mtbf):
        return 1.0, "No failures assumed."
    return value, (
        f"{req.count} devices at {rel.failures_per_gpu_hour:g} failures per GPU-hour fail every "
        f"{mtbf / 3600:.1f} h; {checkpoint_s:.0f} s checkpoints every {interval / 60:.0f} min "
        f"(Young/Daly) plus {rel.restart_s / 60:.0f} min restarts lose {100 * (1 - value):.1f} % of wall time."
    )


def _thermal(req: EstimateRequest) -> tuple[float, str]:
    if req.accelerator.consumer_cooling:
        return eff.CONSUMER_THERMAL_FACTOR, (
            "Open-air or blower consumer cooling cannot hold boost clocks under sustained load in a "
            f"server chassis: {100 * (1 - eff.CONSUMER_THERMAL_FACTOR):.0f} % lower clocks assumed."
        )
    return 1.0, "Data-centre cooling holds sustained clocks; no thermal derating."


def _apply_overrides(req: EstimateRequest, computed: dict) -> tuple[dict, float, list[str]]:
    """Overridden factors replace computed ones; throughput scales by their ratio so that an
    override equal to the computed value changes nothing. eta_fault acts on time, not on
    throughput, so it never enters the scale."""
    scale, final, notes = 1.0, dict(computed), []
    for key, value in req.efficiency.items():
        if key != "eta_fault" and computed[key] > 0:
            scale *= value / computed[key]
        final[key] = value
        notes.append(f"{key} set to {value:g} by the request (computed {computed[key]:.3f}).")
    return final, scale, notes


def _training(req: EstimateRequest, *, suggest: bool = True) -> Estimate:
    layouts = fixed_layout(req.parallelism) if req.parallelism else candidate_layouts(req)
    if len(layouts) == 0:
        raise ValueError(
            "no parallel layout divides the global batch; change global_batch or count"
        )
    result = evaluate(req, layouts)
    i = result.best
    spec = layouts.spec(
        i,
        **(
            {}
            if req.parallelism is None
            else {
                "sequence_parallel": req.parallelism.sequence_parallel,
                "recompute_fraction": req.parallelism.recompute_fraction,
            }
        ),
    )
    step = result.step
    pick = lambda a: float(np.asarray(a)[i])  # noqa: E731
    step_s = pick(step.step_s)
    parts = {
        "compute": pick(step.compute_s),
        "memory bandwidth": pick(step.memory_s),
        "scale-up link": pick(step.tp_comm_s),
        "fabric": pick(step.fabric_s),
        "pipeline bubble": pick(step.pp_bubble_s),
    }
    thermal, thermal_note = _thermal(req)
    fault, fault_note = _fault(req)
    computed = {
        "eta_mem": parts["compute"] / max(parts["compute"] + parts["memory bandwidth"], 1e-12),
        "eta_interconnect": 1 - (parts["scale-up link"] + parts["fabric"]) / step_s,
        "eta_sched": 1 - parts["pipeline bubble"] / step_s,
        "eta_thermal": thermal,
        "eta_fault": fault,
    }
    final, scale, override_notes = _apply_overrides(req, computed)
    if req.calibration is not None:
        # What the engine's model misses on this card, measured end to end on a probe step.
        scale *= req.calibration.step_efficiency
    tokens_per_s = req.global_batch * req.seq_len / step_s * scale
    per_device = tokens_per_s / req.count
    flops_token = model_flops_per_token(req.model, req.seq_len)
    if req.method != "full":
        flops_token *= 2 / 3  # no weight gradients for frozen weights
    peak = dense_peak(req.accelerator, req.precision)
    model_tflops = per_device * flops_token / 1e12
    # Failures and checkpoints stretch wall time, not the steady throughput.
    seconds = req.tokens / max(tokens_per_s * final["eta_fault"], 1e-12)
    memory = _memory_dict(result.memory, i, req.accelerator.memory_gib)

    explanations = {
        "eta_mem": f"{100 * computed['eta_mem']:.0f} % of on-device time runs at the compute roofline; "
        "the rest waits on memory bandwidth (norms, activations, optimizer, small matrices).",
        "eta_interconnect": f"Tensor-parallel collectives on the scale-up link and exposed data-parallel, "
        f"pipeline and expert traffic take {100 * (1 - computed['eta_interconnect']):.0f} % of the step.",
        "eta_sched": f"The pipeline bubble, (p-1)/v of a stage per step with p={spec.pp}, v={spec.vp} and "
        f"{pick(step.micro_batches):.0f} micro-batches, idles {100 * (1 - computed['eta_sched']):.1f} % of the step.",
        "eta_thermal": thermal_note,
        "eta_fault": fault_note,
    }
    warnings = list(override_notes)
    bottleneck = max(parts, key=parts.get)
    if not memory["fits"]:
        bottleneck = "memory capacity"
        if suggest:
            warnings.insert(0, _does_not_fit(req, memory))
    if seconds > 365 * DAY_S:
        warnings.append(
            f"Processing {req.tokens:.3g} tokens takes {seconds / DAY_S / 365:.1f} years on {req.count} devices."
        )
    if req.accelerator.consumer_cooling:
        warnings.append(
            "Consumer cards lack ECC and data-centre cooling; expect throttling and silent errors on long runs."
        )
    return Estimate(
        memory=memory,
        parallelism={
            "tp": spec.tp,
            "pp": spec.pp,
            "dp": spec.dp,
            "cp": spec.cp,
            "vp": spec.vp,
            "micro_batch": spec.micro_batch,
            "zero_stage": spec.zero_stage,
            "recompute": spec.recompute,
        },
        throughput={
            "tokens_per_s": round(tokens_per_s, 3),
            "tokens_per_s_per_device": round(per_device, 3),
            "model_tflops_per_device": round(model_tflops, 3),
            "mfu": round(model_tflops / peak, 4),
        },
        time={"seconds": round(seconds, 1), "days": round(seconds / DAY_S, 3)},
        inference={"prefill_tokens_per_s": 0, "decode_tokens_per_s": 0, "ttft_ms": 0, "tpot_ms": 0},
        efficiency={k: round(final[k], 4) for k in ETA_KEYS},
        explanations=explanations,
        bottleneck=bottleneck,
        warnings=warnings,
        breakdown={"step_s": round(step_s, 6), **{k: round(v, 6) for k, v in parts.items()}},
        search={
            "evaluated": result.evaluated,
            "feasible": int(result.fits.sum()),
            "searched": req.parallelism is None,
        },
        calibration=_calibration_note(req),
    )


def _calibration_note(req: EstimateRequest) -> dict | None:
    """Which figures came from measurement rather than the datasheet and the engine."""
    cal = req.calibration
    if cal is None:
        return None
    measured = [f"{p} matrix-multiply efficiency" for p in sorted(cal.gemm_efficiency)]
    if cal.memory_bw_efficiency:
        measured.append("memory bandwidth efficiency")
    if cal.scale_up_efficiency:
        measured.append("scale-up link efficiency")
    if cal.step_efficiency != 1.0:
        measured.append("end-to-end step efficiency")
    return {
        "profile": cal.name,
        "measured": measured,
        "step_efficiency": round(cal.step_efficiency, 4),
    }


def _fit_options(req: EstimateRequest) -> list[tuple[str, EstimateRequest]]:
    """Changes a user can make, most modest first, each as the request it would become."""
    options: list[tuple[str, EstimateRequest]] = []
    replace = dataclasses.replace
    if req.task == "inference":
        for precision, label in (("int8", "int8 weights"), ("int4", "int4 weights")):
            if req.precision not in (precision, "int4") and req.accelerator.peak_tflops("bf16"):
                options.append((label, replace(req, precision=precision)))
        if req.inference.kv_precision not in ("fp8", "int8", "int4"):
            options.append(
                (
                    "an fp8 KV cache",
                    replace(req, inference=replace(req.inference, kv_precision="fp8")),
                )
            )
        if req.inference.batch > 1:
            options.append(
                (
                    "half the batch",
                    replace(req, inference=replace(req.inference, batch=req.inference.batch // 2)),
                )
            )
        options.append(
            (
                "twice the devices",
                replace(req, count=req.count * 2, per_node=min(req.per_node * 2, 8)),
            )
        )
        return options
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
        ("twice the devices", replace(free, count=req.count * 2, global_batch=req.global_batch * 2))
    )
    return options


def _fits(req: EstimateRequest) -> bool:
    if req.task == "inference":
        return bool(_inference(req, suggest=False).memory["fits"])
    layouts = candidate_layouts(req)
    return len(layouts) > 0 and bool(evaluate(req, layouts).fits.any())


def _does_not_fit(req: EstimateRequest, memory: dict) -> str:
    """How far over capacity, and which single changes would make it fit (each one tried)."""
    over = memory["per_device_gib"] - memory["capacity_gib"]
    options = _fit_options(req)
    working = [label for label, alt in options if _fits(alt)]
    if working:
        advice = f"it would fit with {' or '.join(working)}."
    else:
        advice = f"none of {', '.join(label for label, _ in options)} alone makes it fit."
    return (
        f"Needs {memory['per_device_gib']:.1f} GiB per device, {over:.1f} GiB more than the "
        f"{memory['capacity_gib']:g} GiB available; {advice}"
    )


def _inference(req: EstimateRequest, *, suggest: bool = True) -> Estimate:
    inf = req.inference
    tp = smallest_fitting_tp(req)
    memory = inference_memory(req, tp=tp)
    replicas = req.count // tp
    timing = inference_time(req, tp=tp)
    thermal, thermal_note = _thermal(req)
    fault, fault_note = _fault(req)
    # Roofline: the share of a decode step the math units would need if memory kept up.
    decode_compute_share = min(
        1.0, timing.decode_compute_s / max(timing.decode_memory_s, timing.decode_compute_s, 1e-12)
    )
    computed = {
        "eta_mem": decode_compute_share,
        "eta_interconnect": 1 - timing.comm_s / max(timing.decode_step_s, 1e-12),
        "eta_sched": 1.0,
        "eta_thermal": thermal,
        "eta_fault": fault,
    }
    final, scale, override_notes = _apply_overrides(req, computed)
    tpot = timing.decode_step_s / scale
    ttft = timing.prefill_s / scale
    decode_tps = inf.batch / tpot * replicas
    prefill_tps = inf.batch * inf.prompt_len / ttft * replicas
    mem = _memory_dict(memory, None, req.accelerator.memory_gib)
    seconds = ttft + inf.output_len * tpot
    flops_token = model_flops_per_token(req.model, inf.prompt_len) / 3
    peak = dense_peak(req.accelerator, {"int4": "bf16"}.get(req.precision, req.precision))
    model_tflops = decode_tps / req.count * flops_token / 1e12
    warnings = list(override_notes)
    bottleneck = (
        "memory bandwidth" if timing.decode_memory_s >= timing.decode_compute_s else "compute"
    )
    if timing.comm_s > 0.3 * timing.decode_step_s:
        bottleneck = "scale-up link"
    if not mem["fits"]:
        bottleneck = "memory capacity"
        if suggest:
            warnings.insert(0, _does_not_fit(req, mem))
    explanations = {
        "eta_mem": "Each decode step streams the weights and the KV cache once for the whole batch; "
        f"the math takes {100 * decode_compute_share:.0f} % of the step, the rest waits on memory.",
        "eta_interconnect": f"Two all-reduces per layer across {tp} devices take "
        f"{100 * (1 - computed['eta_interconnect']):.0f} % of a decode step.",
        "eta_sched": "A fixed batch decoded together; queueing and continuous batching are the serving simulation's job.",
        "eta_thermal": thermal_note,
        "eta_fault": fault_note,
    }
    return Estimate(
        memory=mem,
        parallelism={
            "tp": tp,
            "pp": 1,
            "dp": replicas,
            "cp": 1,
            "vp": 1,
            "micro_batch": inf.batch,
            "zero_stage": 0,
            "recompute": "none",
        },
        throughput={
            "tokens_per_s": round(decode_tps, 3),
            "tokens_per_s_per_device": round(decode_tps / req.count, 3),
            "model_tflops_per_device": round(model_tflops, 3),
            "mfu": round(model_tflops / peak, 4),
        },
        time={"seconds": round(seconds, 4), "days": round(seconds / DAY_S, 6)},
        inference={
            "prefill_tokens_per_s": round(prefill_tps, 3),
            "decode_tokens_per_s": round(decode_tps, 3),
            "ttft_ms": round(ttft * 1000, 3),
            "tpot_ms": round(tpot * 1000, 3),
        },
        efficiency={k: round(final[k], 4) for k in ETA_KEYS},
        explanations=explanations,
        bottleneck=bottleneck,
        warnings=warnings,
        breakdown={
            "prefill_s": round(timing.prefill_s, 6),
            "decode_step_s": round(timing.decode_step_s, 6),
            "replicas": replicas,
        },
        search={
            "evaluated": tp.bit_length(),
            "feasible": 1 if mem["fits"] else 0,
            "searched": True,
        },
    )


def estimate(req: EstimateRequest, *, advise: bool = True) -> Estimate:
    """Answer one question. `advise=False` skips trying the changes that would make a job fit
    (the ranking of many builds does not need them)."""
    return (
        _inference(req, suggest=advise)
        if req.task == "inference"
        else _training(req, suggest=advise)
    )
