"""A serving plan's builds are simulated in the layout the plan ranked them in: the tensor
parallelism its capacity search chose, not the smallest group the weights fit in. Two L40S
cards without NVLink serve short chats best as one replica at tensor parallelism 2; simulated
as two single-card replicas they carry well under half the rate the plan claims."""

import dataclasses

import pytest

from planner.engine.contract.simulation import simulation_from_dict
from planner.engine.simulate.serving import simulate_serving
from planner.estimates.services import estimate_request
from planner.plans.builds import estimate_question, simulation_base
from planner.plans.services import plan_create
from tests.planner.plans.test_serving_pages import SERVE

pytestmark = pytest.mark.django_db

# The serving pages' short chats (8B, 128 + 32 tokens, 20 requests/s, TTFT 500 ms, TPOT
# 50 ms) on two L40S.
L40S_CHATS = {
    **SERVE,
    "name": "Short chats on L40S",
    "accelerators": ["nvidia-l40s"],
    "count": {"min": 2, "max": 2},
}


@pytest.fixture
def first(cast, reference_prices):
    plan = plan_create(data=L40S_CHATS, user=cast.planner, team=cast.team)
    return plan, plan.ranking["candidates"][0]


def test_the_simulated_build_runs_the_tensor_parallelism_the_plan_chose(first):
    plan, candidate = first
    serving = candidate["estimate"]["serving"]
    assert serving["tp"] == 2 and serving["replicas"] == 1
    question = estimate_question(plan, candidate)
    assert question["parallelism"]["tp"] == serving["tp"]
    assert question["inference"]["batch"] == serving["batch_per_replica"]


def test_the_simulation_of_the_first_build_meets_the_slo_at_the_plans_rate(first):
    plan, candidate = first
    data = {
        **simulation_base(plan, [candidate]),
        "requests": 4_000,
        "seed": 0,
        "estimate": estimate_question(plan, candidate),
    }
    simulation = simulation_from_dict(data, estimate_request_of=lambda d: estimate_request(data=d))
    spec = simulation.spec
    assert spec.step.tp == 2 and spec.replicas == 1
    result = simulate_serving(dataclasses.replace(spec))
    assert result.attainment >= 0.99
