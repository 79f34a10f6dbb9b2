"""Reads that keep state between requests: the per-process cache of decoded plan rankings."""

import pytest

from accounts.services import team_get_or_create
from planner.models import Plan
from planner.plans import selectors
from planner.plans.selectors import plan_with_ranking

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def empty_cache():
    selectors._rankings.clear()
    yield
    selectors._rankings.clear()


def plan(team, name: str, best: str) -> Plan:
    return Plan.objects.create(
        name=name,
        team=team,
        question={},
        ranking={"candidates": [{"accelerator": best}]},
        model_version="test",
    )


def best_of(plan: Plan | None) -> str:
    return plan.ranking["candidates"][0]["accelerator"]


def test_each_plan_shows_its_own_ranking_and_others_are_not_found():
    alpha, beta = team_get_or_create(name="Alpha"), team_get_or_create(name="Beta")
    first, second = plan(alpha, "First", "h100"), plan(alpha, "Second", "a100")
    theirs = plan(beta, "Theirs", "mi300x")
    ours = Plan.objects.filter(team=alpha)
    for _ in range(2):  # the second round is answered from the cache
        assert best_of(plan_with_ranking(plans=ours, pk=first.pk)) == "h100"
        assert best_of(plan_with_ranking(plans=ours, pk=second.pk)) == "a100"
    assert plan_with_ranking(plans=ours, pk=theirs.pk) is None
    # Decoded once: later requests share the same ranking.
    again = [plan_with_ranking(plans=ours, pk=first.pk).ranking for _ in range(2)]
    assert again[0] is again[1]


def test_a_plan_saved_again_is_read_again():
    alpha = team_get_or_create(name="Alpha")
    first = plan(alpha, "First", "h100")
    assert best_of(plan_with_ranking(plans=Plan.objects.all(), pk=first.pk)) == "h100"
    first.ranking = {"candidates": [{"accelerator": "h200"}]}
    first.save()  # a new updated_at
    assert best_of(plan_with_ranking(plans=Plan.objects.all(), pk=first.pk)) == "h200"


def test_a_deleted_plan_is_not_found_even_when_cached():
    alpha = team_get_or_create(name="Alpha")
    first = plan(alpha, "First", "h100")
    assert plan_with_ranking(plans=Plan.objects.all(), pk=first.pk) is not None
    first.delete()
    assert plan_with_ranking(plans=Plan.objects.all(), pk=first.pk) is None


def test_the_cache_keeps_only_the_most_recent_plans():
    alpha = team_get_or_create(name="Alpha")
    plans = [plan(alpha, f"P{i}", f"card-{i}") for i in range(selectors.RANKING_CACHE_PLANS + 3)]
    for each in plans:
        plan_with_ranking(plans=Plan.objects.all(), pk=each.pk)
    assert len(selectors._rankings) == selectors.RANKING_CACHE_PLANS
    assert {pk for pk, _ in selectors._rankings} == {p.pk for p in plans[3:]}
