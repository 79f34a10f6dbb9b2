"""The ranking: every build judged; those that break no hard constraint first, ordered by the
objective the user picks, then by the five-dimension score under the sliders' weights, then by
fewer devices and less time; the builds without a figure for the objective after those with
one. Under "cost" like is compared with like: the builds with a TCO first, by their TCO, then
those with only the rent of the job, by that rent. The first build comes with one sentence
saying why it is first."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from planner.engine import scoring
from planner.engine.messages import Message, message
from planner.engine.recommend.builds import builds
from planner.engine.recommend.judging import hard_failures, memory_time_per_token, score
from planner.engine.recommend.plan import Candidate, PlanQuestion, Ranking


def _cost(c: Candidate) -> float | None:
    amount: float | None = c.cost.get("amount")
    return amount


def _capex(c: Candidate) -> float | None:
    capex: float | None = c.cost.get("capex")
    return capex


def _rent(c: Candidate) -> float | None:
    rent: float | None = c.cost.get("rent_job")
    return rent


def _time(c: Candidate) -> float:
    seconds: float = c.estimate["time"]["seconds"]
    return seconds


def _joules(c: Candidate) -> float | None:
    per_joule: float | None = c.cost.get("tokens_per_joule")
    return None if not per_joule else -per_joule


# Lower is better; None: the build has no figure for it.
OBJECTIVES: dict[str, Callable[[Candidate], float | None]] = {
    "cost": _cost,  # the TCO where purchase prices exist, else the rent of the job (COST_BASES)
    "capex": _capex,
    "rent": _rent,
    "time": _time,
    "devices": lambda c: float(c.count),
    "tokens_per_joule": _joules,
    "score": lambda c: -c.overall,
}
DEFAULT_OBJECTIVE = "cost"
# What a cost amount is, in the order the "cost" objective ranks them: owning the build for the
# plan's years and renting it for one job are different quantities, so a rent (a few dollars
# for a fine-tune) is never set against a TCO (the purchase and years of power), and a build
# whose server has no purchase price cannot beat every build that has one.
COST_BASES = ("tco", "rent")


def cost_tier(cost: Mapping[str, Any]) -> int:
    """Where a build's cost ranks under "cost": 0 a TCO, 1 only the rent of the job, 2 neither.
    Amounts are compared only within a tier."""
    basis = cost.get("basis")
    return COST_BASES.index(basis) if basis in COST_BASES else len(COST_BASES)


def _tier(objective: str, c: Candidate) -> int:
    return cost_tier(c.cost) if objective == "cost" else 0


def ranking_key(objective: str) -> Callable[[Candidate], tuple[Any, ...]]:
    figure = OBJECTIVES[objective]

    def key(c: Candidate) -> tuple[Any, ...]:
        value = figure(c)
        names = (c.accelerator, c.server, c.nodes)
        if value is None:
            # Without the figure: fewest devices, then shortest time, then the score.
            return (1, float(c.count), _time(c), -c.overall, *names)
        # Cents and seconds apart are a tie: the scores decide, not rounding noise.
        return (0, _tier(objective, c), round(value, 2), -c.overall, c.count, _time(c), *names)

    return key


@dataclass(frozen=True)
class Said:
    """What the sentence about the first build needs of the plan's question."""

    task: str
    years: float
    currency: str

    @classmethod
    def of(cls, question: PlanQuestion) -> Said:
        return cls(question.workload.task, question.years, question.currency)


def why_first(candidates: list[Candidate], plan: Said, objective: str) -> Message | None:
    """One sentence: what put the first build first."""
    if not candidates:
        return None
    first = candidates[0]
    said = {
        "accelerator": first.accelerator,
        "server": first.server,
        "count": first.count,
        "viable": len(candidates),
    }
    if len(candidates) == 1:
        return message("first.only", **said)
    value = OBJECTIVES[objective](first)
    if value is None:
        return message("first.no_figure", objective=message(f"objective.{objective}"), **said)
    tier = _tier(objective, first)
    # The builds the first is compared with: those with the objective's figure, and under
    # "cost" only those of the first's basis (a TCO first means none with a TCO costs less).
    priced = sum(
        1
        for c in candidates
        if OBJECTIVES[objective](c) is not None and _tier(objective, c) == tier
    )
    money = {"amount": value, "currency": plan.currency, "priced": priced}
    serving = plan.task == "inference"
    if objective == "cost":
        basis = COST_BASES[tier]
        code = "first.cost_rent_years" if serving and basis == "rent" else f"first.cost_{basis}"
        return message(code, years=plan.years, **money, **said)
    if objective == "rent" and serving:
        return message("first.rent_years", years=plan.years, **money, **said)
    if objective in ("capex", "rent"):
        return message(f"first.{objective}", **money, **said)
    if objective == "time" and plan.task == "inference":
        return message("first.latency", ms=value * 1000, **said)
    if objective == "time":
        return message("first.time", days=value / 86400, **said)
    if objective == "tokens_per_joule":
        return message("first.tokens_per_joule", per_joule=-value, **said)
    if objective == "devices":
        return message("first.devices", **said)
    return message("first.score", overall=first.overall, **said)


def recommend(question: PlanQuestion) -> Ranking:
    task = question.workload.task
    weights = scoring.normalised_weights(task, question.weights)
    built, unusable = builds(question)
    best_memory = min((memory_time_per_token(task, c) for c, _ in built), default=0.0)
    ranked: list[Candidate] = []
    rejected: list[Candidate] = []
    for candidate, context in built:
        score(candidate, context, task, best_memory, weights)
        candidate.failures = hard_failures(question, candidate)
        (rejected if candidate.failures else ranked).append(candidate)
    ranked.sort(key=ranking_key(question.objective))
    rejected.extend(unusable)
    rejected.sort(key=lambda c: (c.accelerator, c.server, c.count))
    return Ranking(
        ranked,
        rejected,
        len(built) + len(unusable),
        weights,
        question.objective,
        why_first(ranked, Said.of(question), question.objective),
    )


def rerank(
    ranking: Ranking,
    plan: Said,
    weights: Mapping[str, float] | None,
    objective: str | None = None,
) -> Ranking:
    """New weights or a new objective, same candidates: only the overall score and the order
    change."""
    chosen = scoring.normalised_weights(plan.task, weights)
    goal = objective or ranking.objective
    for c in ranking.candidates:
        c.overall = scoring.overall(c.scores, chosen)
    ordered = sorted(ranking.candidates, key=ranking_key(goal))
    return Ranking(
        ordered,
        ranking.rejected,
        ranking.evaluated,
        chosen,
        goal,
        why_first(ordered, plan, goal),
    )
