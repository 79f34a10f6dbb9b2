"""One question in, one answer out: memory, parallelism, throughput, time, the eta factors and
what binds. The answer serialises to the estimate contract's JSON with `as_dict()`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, TypeAlias

import numpy as np

from planner.engine.advice import does_not_fit
from planner.engine.batch import batch_answer, searched_batches
from planner.engine.compute import dense_peak
from planner.engine.derating import thermal_and_fault
from planner.engine.inference import InferenceTime, inference_time
from planner.engine.memory import Bytes, inference_memory, rounded_gib, usable_memory_gib
from planner.engine.messages import Message, message, plain
from planner.engine.parallel import (
    SearchResult,
    candidate_layouts,
    evaluate,
    fixed_layout,
    serving_tp,
)
from planner.engine.replica import kv_bound
from planner.engine.shapes import expert_ranks, model_flops_per_token
from planner.engine.specs import ETA_KEYS, EstimateRequest, ParallelSpec
from planner.engine.stack import stack_note
from planner.engine.version import MODEL_VERSION

# One section of the estimate contract's JSON answer.
Section: TypeAlias = dict[str, Any]

DAY_S = 86_400.0
# A decode step that spends more than this share on the scale-up link is bound by the link.
LINK_BOUND_SHARE = 0.3
# A tensor-parallel group the question fixes is called a poor choice when the engine's own
# serves more than this many times its tokens per second on the same devices.
GIVEN_TP_SLACK = 1.05


@dataclass(frozen=True)
class Estimate:
    memory: Section
    parallelism: Section
    throughput: Section
    time: Section
    inference: Section
    efficiency: dict[str, float]
    explanations: dict[str, Message]
    bottleneck: Message
    warnings: list[Message]
    breakdown: Section = field(default_factory=dict)
    search: Section = field(default_factory=dict)

    calibration: Section | None = None
    batch: Section | None = None  # training: the global batch, given or chosen

    def as_dict(self) -> dict[str, Any]:
        """The contract's JSON, its sentences as message codes with their figures (the edge
        writes them in the reader's language); sections are copied one level deep."""
        out = {
            name: (
                {k: plain(v) for k, v in value.items()} if isinstance(value, dict) else plain(value)
            )
            for name, value in ((f, getattr(self, f)) for f in self.__dataclass_fields__)
        }
        out["model_version"] = MODEL_VERSION
        for optional in ("calibration", "batch"):
            if out[optional] is None:
                del out[optional]
        return out


def _memory_dict(
    components: Mapping[str, Bytes], index: int | None, capacity_gib: float
) -> Section:
    """The memory section: each component in GiB for the chosen layout (`index`), or for the
    one layout there is."""

    def pick(v: Bytes) -> Bytes | np.floating:
        if index is None or type(v) is float:  # one layout, or one layout's number
            return v
        picked: np.floating = np.asarray(v).reshape(-1)[index]
        return picked

    out: Section = {
        "per_device_gib": rounded_gib(pick(components["total"])),
        "weights_gib": rounded_gib(pick(components["weights"])),
        "gradients_gib": rounded_gib(pick(components["gradients"])),
        "optimizer_gib": rounded_gib(pick(components["optimizer"])),
        "activations_gib": rounded_gib(pick(components["activations"])),
        "kv_cache_gib": rounded_gib(pick(components["kv_cache"])),
        "overhead_gib": rounded_gib(pick(components["overhead"])),
    }
    out["capacity_gib"] = capacity_gib
    out["fits"] = out["per_device_gib"] <= capacity_gib
    return out


def _apply_overrides(
    req: EstimateRequest, computed: dict[str, float]
) -> tuple[dict[str, float], float, list[Message]]:
    """Overridden factors replace computed ones; throughput scales by their ratio so that an
    override equal to the computed value changes nothing. eta_fault acts on time, not on
    throughput, so it never enters the scale."""
    scale, final, notes = 1.0, dict(computed), list[Message]()
    for key, value in req.efficiency.items():
        if key != "eta_fault" and computed[key] > 0:
            scale *= value / computed[key]
        final[key] = value
        notes.append(message("override", factor=key, value=value, computed=computed[key]))
    return final, scale, notes


def _calibration_note(req: EstimateRequest) -> Section | None:
    """Which figures came from measurement rather than the datasheet and the engine."""
    cal = req.calibration
    if cal is None:
        return None
    measured = [
        message("measured.gemm_efficiency", precision=p) for p in sorted(cal.gemm_efficiency)
    ]
    if cal.memory_bw_efficiency:
        measured.append(message("measured.memory_bw_efficiency"))
    if cal.scale_up_efficiency:
        measured.append(message("measured.scale_up_efficiency"))
    if cal.step_efficiency != 1.0:
        measured.append(message("measured.step_efficiency"))
    return {
        "profile": cal.name,
        "measured": [m.as_dict() for m in measured],
        "step_efficiency": round(cal.step_efficiency, 4),
    }


def _throughput(
    tokens_per_s: float, *, devices: int, flops_per_token: float, peak_tflops: float
) -> Section:
    per_device = tokens_per_s / devices
    model_tflops = per_device * flops_per_token / 1e12
    return {
        "tokens_per_s": round(tokens_per_s, 3),
        "tokens_per_s_per_device": round(per_device, 3),
        "model_tflops_per_device": round(model_tflops, 3),
        "mfu": round(model_tflops / peak_tflops, 4),
    }


def _parallelism(spec: ParallelSpec, *, ep: int = 1) -> Section:
    return {
        "tp": spec.tp,
        "pp": spec.pp,
        "dp": spec.dp,
        "cp": spec.cp,
        "vp": spec.vp,
        "ep": ep,
        "micro_batch": spec.micro_batch,
        "zero_stage": spec.zero_stage,
        "recompute": spec.recompute,
    }


def bottleneck(part: str) -> Message:
    """What binds, by the name of its part of the step (the breakdown's keys): "memory
    bandwidth" is bottleneck.memory_bandwidth."""
    return message("bottleneck." + part.replace(" ", "_").replace("-", "_"))


# Training ------------------------------------------------------------------------------------


def _training_search(req: EstimateRequest) -> tuple[SearchResult, ParallelSpec]:
    """The layout the request fixes, or the best of the search; and its spec."""
    layouts = (
        fixed_layout(req.parallelism, searched_batches(req))
        if req.parallelism
        else candidate_layouts(req)
    )
    if len(layouts) == 0:
        raise ValueError(
            "no parallel layout divides the global batch; change global_batch or count"
        )
    result = evaluate(req, layouts)
    if req.parallelism is None:
        return result, result.layouts.spec(result.best)
    return result, result.layouts.spec(
        result.best,
        sequence_parallel=req.parallelism.sequence_parallel,
        recompute_fraction=req.parallelism.recompute_fraction,
        ep=req.parallelism.ep,
    )


def _training_parts(result: SearchResult) -> dict[str, float]:
    """Where the chosen layout's step goes, in seconds."""
    step = result.step
    return {
        "compute": result.pick(step.compute_s),
        "memory bandwidth": result.pick(step.memory_s),
        "scale-up link": result.pick(step.tp_comm_s),
        "fabric": result.pick(step.fabric_s),
        "pipeline bubble": result.pick(step.pp_bubble_s),
    }


def _training_etas(parts: dict[str, float], step_s: float) -> dict[str, float]:
    """eta_mem, eta_interconnect and eta_sched from where the step goes."""
    return {
        "eta_mem": parts["compute"] / max(parts["compute"] + parts["memory bandwidth"], 1e-12),
        "eta_interconnect": 1 - (parts["scale-up link"] + parts["fabric"]) / step_s,
        "eta_sched": 1 - parts["pipeline bubble"] / step_s,
    }


def _training_explanations(
    computed: dict[str, float], spec: ParallelSpec, micro_batches: float
) -> dict[str, Message]:
    return {
        "eta_mem": message("eta_mem.training", compute_percent=100 * computed["eta_mem"]),
        "eta_interconnect": message(
            "eta_interconnect.training", percent=100 * (1 - computed["eta_interconnect"])
        ),
        "eta_sched": message(
            "eta_sched.training",
            pp=spec.pp,
            vp=spec.vp,
            micro_batches=micro_batches,
            percent=100 * (1 - computed["eta_sched"]),
        ),
    }


def _training_warnings(
    req: EstimateRequest, *, memory: Section, seconds: float, notes: list[Message], suggest: bool
) -> list[Message]:
    warnings = list(notes)
    if not memory["fits"] and suggest:
        warnings.insert(0, does_not_fit(req, memory))
    if seconds > 365 * DAY_S:
        warnings.append(
            message(
                "warning.years",
                tokens=req.tokens,
                years=seconds / DAY_S / 365,
                devices=req.count,
            )
        )
    if req.accelerator.consumer_cooling:
        warnings.append(message("warning.consumer_cards"))
    return warnings


def training_answer(
    req: EstimateRequest, result: SearchResult, spec: ParallelSpec, *, suggest: bool = True
) -> Estimate:
    """The answer for the layout a search chose (`result.best`, whose spec is `spec`)."""
    chosen = int(result.layouts.global_batch[result.best])
    batch, batch_note = batch_answer(req, chosen)
    step_s = result.pick(result.step.step_s)
    parts = _training_parts(result)
    factors, notes = thermal_and_fault(req)
    computed = {**_training_etas(parts, step_s), **factors}
    final, scale, override_notes = _apply_overrides(req, computed)
    if req.calibration is not None:
        # What the engine's model misses on this card, measured end to end on a probe step.
        scale *= req.calibration.step_efficiency
    tokens_per_s = chosen * req.seq_len / step_s * scale
    flops_token = model_flops_per_token(req.model, req.seq_len)
    if req.method != "full":
        flops_token *= 2 / 3  # no weight gradients for frozen weights
    # Failures and checkpoints stretch wall time, not the steady throughput.
    seconds = req.tokens / max(tokens_per_s * final["eta_fault"], 1e-12)
    memory = _memory_dict(result.memory, result.best, usable_memory_gib(req.accelerator))
    micro_batches = result.pick(result.step.micro_batches)
    return Estimate(
        memory=memory,
        parallelism=_parallelism(spec, ep=int(expert_ranks(req.model, spec.dp, spec.ep or None))),
        throughput=_throughput(
            tokens_per_s,
            devices=req.count,
            flops_per_token=flops_token,
            peak_tflops=dense_peak(req.accelerator, req.precision),
        ),
        time={"seconds": round(seconds, 1), "days": round(seconds / DAY_S, 3)},
        inference={"prefill_tokens_per_s": 0, "decode_tokens_per_s": 0, "ttft_ms": 0, "tpot_ms": 0},
        efficiency={k: round(final[k], 4) for k in ETA_KEYS},
        explanations={
            **_training_explanations(computed, spec, micro_batches),
            **notes,
            "global_batch": batch_note,
            "stack": stack_note(req),
        },
        bottleneck=bottleneck(
            "memory capacity" if not memory["fits"] else max(parts, key=parts.__getitem__)
        ),
        warnings=_training_warnings(
            req, memory=memory, seconds=seconds, notes=override_notes, suggest=suggest
        ),
        breakdown={"step_s": round(step_s, 6), **{k: round(v, 6) for k, v in parts.items()}},
        search={
            "evaluated": result.evaluated,
            "feasible": result.feasible,
            "searched": req.parallelism is None,
        },
        calibration=_calibration_note(req),
        batch=batch,
    )


# Inference -----------------------------------------------------------------------------------


def _decode_compute_share(timing: InferenceTime) -> float:
    """Roofline: the share of a decode step the math units would need if memory kept up."""
    return min(
        1.0, timing.decode_compute_s / max(timing.decode_memory_s, timing.decode_compute_s, 1e-12)
    )


def _inference_etas(timing: InferenceTime) -> dict[str, float]:
    """eta_mem, eta_interconnect and eta_sched of one decode step."""
    return {
        "eta_mem": _decode_compute_share(timing),
        "eta_interconnect": 1 - timing.comm_s / max(timing.decode_step_s, 1e-12),
        "eta_sched": 1.0,
    }


def _inference_explanations(
    computed: dict[str, float], timing: InferenceTime, tp: int
) -> dict[str, Message]:
    return {
        "eta_mem": message("eta_mem.decode", compute_percent=100 * _decode_compute_share(timing)),
        "eta_interconnect": message(
            "eta_interconnect.decode",
            devices=tp,
            percent=100 * (1 - computed["eta_interconnect"]),
        ),
        "eta_sched": message("eta_sched.decode"),
    }


def _inference_bottleneck(timing: InferenceTime, memory: Section) -> Message:
    if not memory["fits"]:
        return bottleneck("memory capacity")
    if timing.comm_s > LINK_BOUND_SHARE * timing.decode_step_s:
        return bottleneck("scale-up link")
    bound = timing.decode_memory_s >= timing.decode_compute_s
    return bottleneck("memory bandwidth" if bound else "compute")


def _decode_tokens_per_s(req: EstimateRequest, tp: int) -> float:
    """Every replica's decode tokens per second together, with groups of `tp` devices."""
    return req.inference.batch / inference_time(req, tp=tp).decode_step_s * (req.count // tp)


def _given_tp_notes(req: EstimateRequest, tp: int, engine_tp: int | None) -> list[Message]:
    """Why a tensor-parallel group the question fixed is a poor choice, when it is: it spans
    servers, or another group would serve more tokens per second on the same devices."""
    if engine_tp is None:
        return []
    notes: list[Message] = []
    if tp > req.per_node:
        notes.append(message("inference.tp_spans_servers", tp=tp, per_node=req.per_node))
    if engine_tp != tp:
        given, better = _decode_tokens_per_s(req, tp), _decode_tokens_per_s(req, engine_tp)
        if better > GIVEN_TP_SLACK * given:
            notes.append(
                message(
                    "inference.tp_poor_choice",
                    tp=tp,
                    tokens_per_s=given,
                    better_tp=engine_tp,
                    better_tokens_per_s=better,
                )
            )
    return notes


def _inference(req: EstimateRequest, *, suggest: bool = True) -> Estimate:
    inf = req.inference
    tp, engine_tp = serving_tp(req)
    replicas = max(req.count // tp, 1)
    timing = inference_time(req, tp=tp)
    factors, notes = thermal_and_fault(req)
    computed = {**_inference_etas(timing), **factors}
    final, scale, override_notes = _apply_overrides(req, computed)
    tpot = timing.decode_step_s / scale
    ttft = timing.prefill_s / scale
    decode_tps = inf.batch / tpot * replicas
    prefill_tps = inf.batch * inf.prompt_len / ttft * replicas
    mem = _memory_dict(inference_memory(req, tp=tp), None, usable_memory_gib(req.accelerator))
    seconds = ttft + inf.output_len * tpot
    warnings: list[Message] = [*_given_tp_notes(req, tp, engine_tp), *override_notes]
    if not mem["fits"] and suggest:
        warnings.insert(0, does_not_fit(req, mem))
    return Estimate(
        memory=mem,
        parallelism=_parallelism(
            ParallelSpec(tp=tp, dp=replicas, micro_batch=inf.batch, recompute="none")
        ),
        throughput=_throughput(
            decode_tps,
            devices=req.count,
            flops_per_token=model_flops_per_token(req.model, inf.prompt_len) / 3,
            peak_tflops=dense_peak(
                req.accelerator, {"int4": "bf16"}.get(req.precision, req.precision)
            ),
        ),
        time={"seconds": round(seconds, 4), "days": round(seconds / DAY_S, 6)},
        inference={
            "prefill_tokens_per_s": round(prefill_tps, 3),
            "decode_tokens_per_s": round(decode_tps, 3),
            "ttft_ms": round(ttft * 1000, 3),
            "tpot_ms": round(tpot * 1000, 3),
            **kv_bound(req, tp=tp),
        },
        efficiency={k: round(final[k], 4) for k in ETA_KEYS},
        explanations={
            **_inference_explanations(computed, timing, tp),
            **notes,
            "stack": stack_note(req),
        },
        bottleneck=_inference_bottleneck(timing, mem),
        warnings=warnings,
        breakdown={
            "prefill_s": round(timing.prefill_s, 6),
            "decode_step_s": round(timing.decode_step_s, 6),
            "replicas": replicas,
        },
        search={
            "evaluated": tp.bit_length(),
            "feasible": 1 if mem["fits"] else 0,
            "searched": engine_tp is None,
        },
    )


def estimate(req: EstimateRequest, *, advise: bool = True) -> Estimate:
    """Answer one question. `advise=False` skips trying the changes that would make a job fit
    (the ranking of many builds does not need them)."""
    return (
        _inference(req, suggest=advise)
        if req.task == "inference"
        else training_answer(req, *_training_search(req), suggest=advise)
    )
