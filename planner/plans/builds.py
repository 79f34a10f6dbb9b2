"""The questions one build of a plan asks elsewhere: its estimate question (the plan's workload
on this accelerator, count and layout), the simulation form's fields for "simulate this build",
and the sweep of a plan's top builds. Pure reads of the stored ranking."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from planner.engine.simulate.question import MAX_SWEEP_CANDIDATES
from planner.models import Plan
from planner.plans.figures import capacity_rps, output_len_of
from planner.plans.selectors import plan_task

# A sweep compares at least two builds (the engine's rule) and at most the engine's cap.
SWEEP_MIN = 2
SWEEP_MAX = MAX_SWEEP_CANDIDATES
SWEEP_DEFAULT = 5


def simulation_kind(plan: Plan) -> str:
    """Serving for an inference workload, a training campaign for the others."""
    return "serving" if plan_task(plan) == "inference" else "training"


def estimate_question(plan: Plan, candidate: dict[str, Any]) -> dict[str, Any]:
    """The estimate question that answers `candidate`: the plan's workload with the card, the
    count and the layout the plan chose, so a simulation runs on the same step times the plan
    ranked rather than a layout searched again."""
    workload = dict(plan.question.get("workload") or {})
    layout = candidate["estimate"]["parallelism"]
    question: dict[str, Any] = {
        **workload,
        "accelerator": candidate["accelerator"],
        "count": candidate["count"],
        "per_node": max(candidate["count"] // max(candidate["nodes"], 1), 1),
        "parallelism": {
            key: layout[key] for key in ("tp", "pp", "dp", "cp", "vp") if layout.get(key)
        },
    }
    if workload.get("task") == "inference":
        # The layout the plan's capacity search chose (tensor parallelism and the batch per
        # replica up to the KV-cache bound), not the smallest group the weights fit in.
        serving = candidate["estimate"].get("serving") or {}
        if serving.get("tp"):
            question["parallelism"] = {"tp": serving["tp"]}
        question["inference"] = {
            **(workload.get("inference") or {}),
            "batch": serving.get("batch_per_replica") or layout["micro_batch"],
        }
        return question
    question["micro_batch"] = layout["micro_batch"]
    question["zero_stage"] = layout["zero_stage"]
    question["recompute"] = layout["recompute"]
    batch = candidate["estimate"].get("batch")
    if batch and batch.get("global_batch"):
        question["global_batch"] = batch["global_batch"]
    return question


def serving_rate(plan: Plan, candidates: list[dict[str, Any]]) -> float:
    """The arrival rate to simulate: the plan's target where it set one; else the lowest
    capacity among the builds, a load every one of them claims to carry."""
    target = plan.question.get("target_rps")
    if target:
        return float(target)
    output_len = output_len_of(plan)
    capacities = [r for r in (capacity_rps(c, output_len) for c in candidates) if r]
    # Without any capacity figure, one request a second still shows latency under load.
    return round(min(capacities), 3) if capacities else 1.0


def simulation_base(plan: Plan, candidates: list[dict[str, Any]]) -> dict[str, Any]:
    """The simulation asked of every build, without its estimate question."""
    if simulation_kind(plan) == "training":
        return {"kind": "training"}
    base: dict[str, Any] = {"kind": "serving", "rate_per_s": serving_rate(plan, candidates)}
    for key, slo in (("ttft_ms", "ttft_slo_ms"), ("tpot_ms", "tpot_slo_ms")):
        if plan.question.get(key) is not None:
            base[slo] = float(plan.question[key])
    return base


def build_simulation_question(plan: Plan, candidate: dict[str, Any]) -> dict[str, Any]:
    """The simulation of one build as the plan ranked it: its card, count, servers and layout
    (estimate_question), at the plan's load and SLOs when it serves."""
    return {**simulation_base(plan, [candidate]), "estimate": estimate_question(plan, candidate)}


def simulation_form_query(plan: Plan, candidate: dict[str, Any]) -> str:
    """The simulation form's fields for this build, as a query string that prefills it (the
    form has no layout: a person adjusting the question lets the estimate choose it again)."""
    workload = plan.question.get("workload") or {}
    fields: dict[str, Any] = {
        "accelerator": candidate["accelerator"],
        "count": candidate["count"],
        "precision": workload.get("precision") or "bf16",
    }
    if isinstance(workload.get("model"), str):
        fields["model"] = workload["model"]
    if simulation_kind(plan) == "training":
        fields["task"] = workload.get("task", "train")
        for key in ("method", "seq_len", "tokens"):
            if workload.get(key) is not None:
                fields[key] = workload[key]
        if isinstance(workload.get("fabric"), str):
            fields["fabric"] = workload["fabric"]
    else:
        base = simulation_base(plan, [candidate])
        inference = workload.get("inference") or {}
        fields["rate_per_s"] = base["rate_per_s"]
        fields.update(
            {
                f"{what}_value": inference[f"{what}_len"]
                for what in ("prompt", "output")
                if inference.get(f"{what}_len")
            }
        )
        fields.update({k: base[k] for k in ("ttft_slo_ms", "tpot_slo_ms") if k in base})
    return urlencode({k: f"{v:g}" if isinstance(v, float) else v for k, v in fields.items()})


def build_label(candidate: dict[str, Any], names: dict[str, dict[str, str]]) -> str:
    """ "#1 NVIDIA H100 SXM5 x 16 - NVIDIA DGX H100" (with a times sign and a dash): rank,
    card, count and server."""
    card = names["accelerator"].get(candidate["accelerator"], candidate["accelerator"])
    server = names["server"].get(candidate["server"], candidate["server"])
    return f"#{candidate['rank']} {card} \u00d7 {candidate['count']:,} \u2013 {server}"


def sweep_question(
    plan: Plan, candidates: list[dict[str, Any]], names: dict[str, dict[str, str]]
) -> dict[str, Any]:
    """The sweep simulation of `candidates` (a plan's top builds, best first)."""
    return {
        "kind": "sweep",
        "simulation": simulation_base(plan, candidates),
        "candidates": [estimate_question(plan, c) for c in candidates],
        "labels": [build_label(c, names) for c in candidates],
    }
