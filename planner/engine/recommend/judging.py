"""Judging a build: its five scores, each with a reason, and the hard constraints it breaks."""

from __future__ import annotations

import math

from planner.engine import scoring
from planner.engine.messages import Message, binding_label, message
from planner.engine.recommend.builds import BuildContext
from planner.engine.recommend.plan import Candidate, PlanQuestion


def memory_time_per_token(task: str, c: Candidate) -> float:
    """Seconds of memory-bound work per token on one device."""
    per_device: float = c.estimate["throughput"]["tokens_per_s_per_device"]
    if per_device <= 0:
        return math.inf
    if task == "inference":
        return 1 / per_device  # decode is memory-bound throughout
    parts: dict[str, float] = c.estimate["breakdown"]
    return parts["memory bandwidth"] / parts["step_s"] / per_device


def score(
    candidate: Candidate,
    context: BuildContext,
    task: str,
    best_memory: float,
    weights: dict[str, float],
) -> None:
    option, facility = context.option, context.facility
    est = candidate.estimate
    mem, eff, par = est["memory"], est["efficiency"], est["parallelism"]
    results = {
        "memory_capacity": scoring.memory_capacity(
            need_gib=mem["per_device_gib"], capacity_gib=mem["capacity_gib"]
        ),
        "memory_bandwidth": scoring.memory_bandwidth(
            task=task,
            per_token_s=memory_time_per_token(task, candidate),
            best_per_token_s=best_memory,
            bound_share=1 - eff["eta_mem"],
            bw_gb_s=option.spec.memory_bw_gb_s,
        ),
        "interconnect": scoring.interconnect(
            eta_interconnect=eff["eta_interconnect"],
            link=option.scale_up_link,
            tp=par["tp"],
            dp=par["dp"],
            nodes=candidate.nodes,
        ),
        "cooling": scoring.cooling(
            hostable=candidate.fit["hostable"],
            binding=candidate.fit["binding"],
            eta_thermal=candidate.fit["eta_thermal"],
            consumer_cooling=option.consumer_cooling or facility.open_air_cards,
            kw_per_u=facility.power_kw / max(facility.units, 1),
        ),
        "software": scoring.software(
            task=task,
            stack=option.software_stack,
            training=option.training_maturity,
            inference=option.inference_maturity,
            ecc=option.ecc,
            partitions=option.mig_instances,
            precision_native=context.native,
        ),
    }
    candidate.scores = {k: round(v[0], 1) for k, v in results.items()}
    candidate.reasons = {k: v[1] for k, v in results.items()}
    candidate.overall = scoring.overall(candidate.scores, weights)


def hard_failures(question: PlanQuestion, c: Candidate) -> list[Message]:
    out: list[Message] = []
    est = c.estimate
    if not est["memory"]["fits"]:
        out.append(
            message(
                "failure.memory",
                need_gib=est["memory"]["per_device_gib"],
                capacity_gib=est["memory"]["capacity_gib"],
            )
        )
    if not c.fit["hostable"]:
        out.append(message("failure.racks", binding=binding_label(c.fit["binding"])))
    if (question.capex_budget is not None or question.tco_budget is not None) and c.cost[
        "capex"
    ] is None:
        # Unpriced builds stay in the ranking: a missing price is not a broken budget.
        c.cost["notes"] = [*c.cost["notes"], message("cost.budget_unchecked").as_dict()]
    if (
        question.capex_budget is not None
        and c.cost["capex"] is not None
        and c.cost["capex"] > question.capex_budget
    ):
        out.append(message("failure.capex", capex=c.cost["capex"], budget=question.capex_budget))
    if (
        question.tco_budget is not None
        and c.cost["tco"] is not None
        and c.cost["tco"] > question.tco_budget
    ):
        out.append(message("failure.tco", tco=c.cost["tco"], budget=question.tco_budget))
    if (
        question.deadline_days is not None
        and question.workload.task != "inference"
        and est["time"]["days"] > question.deadline_days
    ):
        out.append(
            message("failure.deadline", days=est["time"]["days"], deadline=question.deadline_days)
        )
    if question.workload.task == "inference":
        inf = est["inference"]
        # With a rate to meet, the capacity is found within the bounds; the latencies of one
        # request alone say why where no load meets them.
        searched = question.target_rps is not None and est["capacity_rps"] > 0
        if not searched and question.ttft_ms is not None and inf["ttft_ms"] > question.ttft_ms:
            out.append(message("failure.ttft", ttft_ms=inf["ttft_ms"], target=question.ttft_ms))
        if not searched and question.tpot_ms is not None and inf["tpot_ms"] > question.tpot_ms:
            out.append(message("failure.tpot", tpot_ms=inf["tpot_ms"], target=question.tpot_ms))
        if question.target_rps is not None:
            capacity = est["capacity_rps"]
            if capacity < question.target_rps:
                out.append(
                    message("failure.rate", capacity_rps=capacity, target=question.target_rps)
                )
    return out
