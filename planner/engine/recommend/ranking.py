"""The ranking: every build judged, those that break no hard constraint first by their overall
score, then by time and cost."""

from __future__ import annotations

import math
from collections.abc import Mapping

from planner.engine import scoring
from planner.engine.recommend.builds import builds
from planner.engine.recommend.judging import hard_failures, memory_time_per_token, score
from planner.engine.recommend.plan import Candidate, PlanQuestion, Ranking


def _ranking_key(c: Candidate) -> tuple[float, float, float, str, str, int]:
    """Best overall score first; then faster, cheaper, and by name for a stable order."""
    return (
        -c.overall,
        c.estimate["time"]["seconds"],
        c.cost["tco"] or math.inf,
        c.accelerator,
        c.server,
        c.count,
    )


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
    ranked.sort(key=_ranking_key)
    rejected.extend(unusable)
    rejected.sort(key=lambda c: (c.accelerator, c.server, c.count))
    return Ranking(ranked, rejected, len(built) + len(unusable), weights)


def rerank(ranking: Ranking, task: str, weights: Mapping[str, float] | None) -> Ranking:
    """New weights, same candidates: only the overall score and the order change."""
    chosen = scoring.normalised_weights(task, weights)
    for c in ranking.candidates:
        c.overall = scoring.overall(c.scores, chosen)
    ordered = sorted(ranking.candidates, key=_ranking_key)
    return Ranking(ordered, ranking.rejected, ranking.evaluated, chosen)
