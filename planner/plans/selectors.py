"""Reads of plans and workloads, always through what a user may see."""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db.models import QuerySet

from accounts.services import user_team
from planner.choices import SimulationStatus
from planner.engine.recommend import (
    DEFAULT_OBJECTIVE,
    OBJECTIVES,
    Candidate,
    Ranking,
    Said,
    rerank,
)
from planner.engine.scoring import DEFAULT_WEIGHTS, DIMENSIONS
from planner.engine.simulate.plan_check import simulated_failure
from planner.models import Plan, Simulation, Workload

# Weights show on a 0-100 scale; the engine normalises them.
WEIGHT_SCALE = 100


def plan_visible_to(user) -> QuerySet[Plan]:
    """The plans of the user's team; another team's plan is a 404, whatever the role."""
    team = user_team(user)
    return Plan.objects.filter(team=team) if team else Plan.objects.none()


# Decoded rankings of the plans a process showed last. A ranking is written once, by
# `plan_create`, and only read after (Candidate.as_dict shares its sections rather than copy
# them, for the same reason). A whole-catalog plan stores about 1.4 MB of JSON: decoding it
# took its page about 20 ms of a 65 ms view, more than re-ordering it (5 ms); decoded, one
# takes about 3.4 MiB, so a process keeps a few.
RANKING_CACHE_PLANS = 8
_rankings: OrderedDict[tuple[int, datetime], dict | None] = OrderedDict()
_rankings_lock = threading.Lock()


def plan_with_ranking(*, plans: QuerySet[Plan], pk: int) -> Plan | None:
    """The plan `pk` among `plans` (None when it is not one of them), its ranking decoded once
    per process for each version of the row (`updated_at`). Treat the ranking as read-only:
    later requests share it."""
    plan = plans.defer("ranking").filter(pk=pk).first()
    if plan is None:
        return None
    key = (plan.pk, plan.updated_at)
    with _rankings_lock:
        hit = key in _rankings
        if hit:
            _rankings.move_to_end(key)
            ranking = _rankings[key]
    if not hit:
        row = Plan.objects.filter(pk=plan.pk).values_list("ranking", "updated_at").first()
        if row is None:  # deleted since the first query
            return None
        ranking, updated_at = row
        with _rankings_lock:
            _rankings[(plan.pk, updated_at)] = ranking
            while len(_rankings) > RANKING_CACHE_PLANS:
                _rankings.popitem(last=False)
    plan.ranking = ranking
    return plan


def workload_visible_to(user) -> QuerySet[Workload]:
    team = user_team(user)
    return Workload.objects.filter(team=team) if team else Workload.objects.none()


def plan_said(plan: Plan) -> Said:
    """What the sentence about a plan's first build needs: its task, horizon and currency."""
    return Said(plan_task(plan), float(plan.question.get("years", 4)), plan.currency)


def plan_objective(plan: Plan, objective: str | None = None) -> str:
    """The objective to rank by: the one asked for, else the plan's own, else the default."""
    if objective in OBJECTIVES:
        return str(objective)
    asked = plan.question.get("objective")
    return asked if asked in OBJECTIVES else DEFAULT_OBJECTIVE


def plan_ranking(
    *, plan: Plan, weights: dict | None = None, objective: str | None = None
) -> Ranking:
    """The plan's viable candidates ordered by `objective` and `weights` (the plan's own when
    None), with the sentence saying why the first is first."""
    candidates = [Candidate(**c) for c in plan.ranking["candidates"]]
    return rerank(
        Ranking(candidates, [], len(candidates), {}),
        plan_said(plan),
        weights or plan.question.get("weights"),
        plan_objective(plan, objective),
    )


def plan_task(plan: Plan) -> str:
    return (plan.question.get("workload") or {}).get("task", "train")


def default_weights(*, plan: Plan) -> dict[str, float]:
    """The task's defaults on the 0-100 scale, overridden by any the question gave."""
    weights = {k: WEIGHT_SCALE * v for k, v in DEFAULT_WEIGHTS[plan_task(plan)].items()}
    weights.update((plan.question.get("weights") or {}).items())
    return {k: round(float(weights[k]), 2) for k in DIMENSIONS}


@dataclass(frozen=True)
class Ordered:
    """A plan's candidates in the order asked for, and why the first is first."""

    candidates: list[dict[str, Any]]
    objective: str
    first: dict[str, Any] | None  # a message: {"code", "params"}


def ranked_candidates(
    *,
    plan: Plan,
    weights: dict[str, float],
    objective: str | None = None,
    simulated: bool = True,
) -> Ordered:
    """The plan's viable candidates ordered by the objective and `weights`, each with its
    `rank` (1 = best) and an `id` that stays the same whatever the order (its place in the
    stored ranking). With `simulated`, builds whose serving check missed the SLO are left out
    (`plan_serving_check` lists them among the rejected)."""
    goal = plan_objective(plan, objective)
    if not plan.ranking:
        return Ordered([], goal, None)
    ids = {
        (c["accelerator"], c["server"], c["count"]): i
        for i, c in enumerate(plan.ranking["candidates"])
    }
    ranking = plan_ranking(plan=plan, weights=weights, objective=goal)
    missed = set(plan_serving_check(plan=plan).failed) if simulated else set()
    if missed:
        kept = [c for c in ranking.candidates if (c.accelerator, c.server, c.count) not in missed]
        ranking = rerank(Ranking(kept, [], len(kept), {}), plan_said(plan), ranking.weights, goal)
    ranked = [c.as_dict() for c in ranking.candidates]
    for rank, candidate in enumerate(ranked, 1):
        candidate["rank"] = rank
        candidate["id"] = ids[(candidate["accelerator"], candidate["server"], candidate["count"])]
    return Ordered(ranked, goal, None if ranking.first is None else ranking.first.as_dict())


def plan_candidate(
    *, plan: Plan, candidate_id: int, weights: dict[str, float], objective: str | None = None
) -> dict[str, Any] | None:
    """One viable build of the plan by its `id` (its place in the stored ranking), with its
    `rank` under the objective and `weights`; None when the plan has no such build."""
    stored = (plan.ranking or {}).get("candidates") or []
    if not 0 <= candidate_id < len(stored):
        return None
    ordered = ranked_candidates(plan=plan, weights=weights, objective=objective)
    return next((c for c in ordered.candidates if c["id"] == candidate_id), None)


@dataclass(frozen=True)
class ServingCheck:
    """A serving plan's best builds simulated at its load: the sweep's row (None before any
    check), one row per build checked (its stored candidate, the simulated figures and why it
    fails, or None), and the builds that failed, as (accelerator, server, count)."""

    simulation: Simulation | None
    rows: list[dict[str, Any]]
    failed: dict[tuple[str, str, int], dict[str, Any]]

    @property
    def key(self) -> str:
        """What a cached page showing the check depends on."""
        if self.simulation is None:
            return "unchecked"
        return f"{self.simulation.pk}:{self.simulation.status}"


def plan_serving_check(*, plan: Plan) -> ServingCheck:
    """The plan's serving check as it stands: rows with figures once the sweep succeeded."""
    simulation = plan.serving_check
    if simulation is None:
        return ServingCheck(None, [], {})
    if simulation.status != SimulationStatus.SUCCEEDED or not simulation.result:
        return ServingCheck(simulation, [], {})
    stored = {
        (c["accelerator"], c["server"], c["count"]): c
        for c in (plan.ranking or {}).get("candidates", [])
    }
    rows, failed = [], {}
    summaries = simulation.result.get("candidates") or []
    for build, summary in zip(plan.serving_check_builds, summaries, strict=False):
        key = (build[0], build[1], int(build[2]))
        candidate = stored.get(key)
        if candidate is None:  # ranked again since the check: it no longer applies
            continue
        failure = simulated_failure(summary)
        reason = None if failure is None else failure.as_dict()
        if reason is not None:
            failed[key] = {
                "accelerator": key[0],
                "server": key[1],
                "count": key[2],
                "nodes": candidate["nodes"],
                "failures": [reason],
            }
        rows.append({"candidate": candidate, "simulated": summary, "failure": reason})
    return ServingCheck(simulation, rows, failed)
