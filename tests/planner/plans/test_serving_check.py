"""A serving plan checks its answers by simulation: from its page a planner starts a sweep of
the best builds at the plan's rate and SLOs (100,000 requests each, one seed), the page shows
its progress over htmx and then, beside each build's analytic p99s, the simulated percentiles
and SLO attainment; a build whose simulated attainment misses moves to the rejected builds with
the simulated figures as its reason. In both languages, and without JavaScript."""

from html import unescape

import pytest
from django.urls import reverse

from planner.choices import SimulationKind, SimulationStatus
from planner.engine.simulate.plan_check import CHECK_REQUESTS, CHECK_SEED
from planner.models import Plan, Simulation
from planner.plans.selectors import plan_serving_check, ranked_candidates
from planner.plans.services import plan_create, plan_serving_check_start
from planner.simulations import services as simulations
from tests.planner.plans.test_serving_pages import SERVE

pytestmark = pytest.mark.django_db


@pytest.fixture
def plan(cast, reference_prices):
    return plan_create(data=SERVE, user=cast.planner, team=cast.team)


@pytest.fixture
def sweeps(monkeypatch) -> list[int]:
    """The sweep's tasks, held back as the broker would hold them for the worker."""
    sent: list[int] = []
    monkeypatch.setattr(
        simulations, "_publish_sweep", lambda parent, queued: sent.append(parent.pk)
    )
    return sent


def run_on_the_worker(sweep: Simulation) -> None:
    """What the worker does with a sweep: each part, then the gathering."""
    for part in sweep.parts.all():
        assert simulations.simulation_execute(simulation_id=part.pk) == SimulationStatus.SUCCEEDED
    assert simulations.simulation_gather(simulation_id=sweep.pk) == SimulationStatus.SUCCEEDED


def test_a_planner_starts_the_check_from_the_plan_page(cast, plan, sweeps):
    client = cast.browser("planner")
    assert "Check by simulation" in client.get(plan.get_absolute_url()).content.decode()
    answer = client.post(reverse("planner:plan_serving_check", args=[plan.pk]))
    assert answer.status_code == 302 and answer["Location"].endswith("#serving-check")
    sweep = Simulation.objects.get(kind=SimulationKind.SWEEP)
    assert sweeps == [sweep.pk]
    plan.refresh_from_db()
    assert plan.serving_check == sweep
    viable = plan.ranking["candidates"]
    assert len(plan.serving_check_builds) == len(sweep.inputs["candidates"]) == len(viable)
    # The plan's load and SLOs, a hundred thousand requests, one seed for every build.
    assert sweep.inputs["simulation"] == {
        "kind": "serving",
        "rate_per_s": SERVE["target_rps"],
        "ttft_slo_ms": SERVE["ttft_ms"],
        "tpot_slo_ms": SERVE["tpot_ms"],
        "requests": CHECK_REQUESTS,
        "seed": CHECK_SEED,
    }
    # While it runs the section polls for its progress, and the page says how far it got.
    html = client.get(plan.get_absolute_url()).content.decode()
    assert 'id="serving-check-bar"' in html and "every 2s" in html
    fragment = client.get(
        reverse("planner:plan_serving_check", args=[plan.pk]), HTTP_HX_REQUEST="true"
    ).content.decode()
    assert fragment.lstrip().startswith('<section id="serving-check"')


def test_over_htmx_the_check_answers_with_its_section(cast, plan, sweeps):
    answer = cast.browser("planner").post(
        reverse("planner:plan_serving_check", args=[plan.pk]), HTTP_HX_REQUEST="true"
    )
    assert answer.status_code == 200
    assert 'id="serving-check-bar"' in answer.content.decode()


@pytest.mark.parametrize(
    ("language", "heading", "verdict"),
    [
        ("en", "Serving answers checked by simulation", "meets the SLO"),
        ("zh-hans", "仿真核验服务答案", "满足 SLO"),
    ],
)
def test_a_finished_check_shows_simulated_figures_beside_the_analytic_ones(
    cast, plan, sweeps, language, heading, verdict
):
    sweep, _queued = plan_serving_check_start(plan=plan, user=cast.planner)
    run_on_the_worker(sweep)
    check = plan_serving_check(plan=Plan.objects.get(pk=plan.pk))
    assert len(check.rows) == len(plan.ranking["candidates"])
    for row in check.rows:
        simulated = row["simulated"]
        # Well below capacity every build meets the SLO, as the analytic ranking said.
        assert simulated["slo"]["attainment"] >= 0.99 and row["failure"] is None
        assert simulated["ttft_ms"]["p99"] <= SERVE["ttft_ms"]
    html = unescape(
        cast.browser("viewer")
        .get(plan.get_absolute_url(), HTTP_ACCEPT_LANGUAGE=language)
        .content.decode()
    )
    assert heading in html and verdict in html
    assert "every 2s" not in html  # finished: nothing polls


def test_a_build_that_misses_the_slo_in_simulation_moves_to_the_rejected(cast, plan, sweeps):
    sweep, _queued = plan_serving_check_start(plan=plan, user=cast.planner)
    run_on_the_worker(sweep)
    sweep.refresh_from_db()
    # The first build's simulated run loses a tenth of its requests to the SLO.
    result = sweep.result
    result["candidates"][0]["slo"]["attainment"] = 0.9
    Simulation.objects.filter(pk=sweep.pk).update(result=result)
    plan = Plan.objects.get(pk=plan.pk)
    missed = tuple(plan.serving_check_builds[0])
    ranked = ranked_candidates(plan=plan, weights={})
    assert missed not in [(c["accelerator"], c["server"], c["count"]) for c in ranked.candidates]
    assert [c["rank"] for c in ranked.candidates] == list(range(1, len(ranked.candidates) + 1))
    html = unescape(cast.browser("viewer").get(plan.get_absolute_url()).content.decode())
    p99 = result["candidates"][0]["ttft_ms"]["p99"]
    reason = f"simulated: 90.0 % of requests within the SLO, short of 99 % (TTFT p99 {p99:.0f} ms"
    assert reason in html
    rejected = html[html.index('id="rejected-heading"') :]
    assert reason in rejected


def test_only_planners_check_and_only_serving_plans(cast, plan, sweeps, reference_prices):
    url = reverse("planner:plan_serving_check", args=[plan.pk])
    assert cast.browser("viewer").post(url).status_code == 403
    assert cast.browser("outsider").post(url).status_code == 404
    assert (
        "Check by simulation"
        not in cast.browser("viewer").get(plan.get_absolute_url()).content.decode()
    )
    training = plan_create(
        data={
            "name": "Train",
            "workload": {"task": "train", "model": "meta-llama-3-8b", "tokens": 1e9},
            "count": {"max": 16},
        },
        user=cast.planner,
        team=cast.team,
    )
    answer = cast.browser("planner").post(
        reverse("planner:plan_serving_check", args=[training.pk]), follow=True
    )
    assert "only a serving plan is checked by simulation" in answer.content.decode()
    assert not Simulation.objects.exists()
