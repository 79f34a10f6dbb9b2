"""The plans API: who may create and read plans, bad questions answered 400 naming the field,
saved sites by id, and the candidates paged through under new weights.

Team Alpha's viewer, planner and admin (tests/cast.py) own the plans; the outsider, a planner
on team Beta, must not see them. Questions rank four accelerators on 8-64 devices, so each
plan takes a fraction of a second."""

import json

import pytest

from planner.choices import Visibility
from planner.engine.scoring import DEFAULT_WEIGHTS, DIMENSIONS
from planner.models import Plan
from planner.plans.services import plan_create
from tests.factories import RackGroupFactory, SiteFactory

pytestmark = pytest.mark.django_db

PLANS = "/api/v1/plans/"
QUESTION = {
    "name": "Llama 3 8B cluster",
    "workload": {"task": "train", "model": "meta-llama-3-8b", "tokens": 1e11, "seq_len": 4096},
    "deadline_days": 30,
    "accelerators": [
        "amd-mi300x",
        "nvidia-a100-sxm4-80gb",
        "nvidia-h100-sxm5-80gb",
        "nvidia-rtx-4090",
    ],
    "count": {"min": 8, "max": 64},
}
# Ordered by the five scores alone, so the weights decide the order.
BY_SCORE = {"objective": "score"}
ONLY_SOFTWARE = {"memory_capacity": 0, "memory_bandwidth": 0, "interconnect": 0, "cooling": 0}
ONLY_SOFTWARE["software"] = 100


@pytest.fixture
def plan(loaded_catalog, cast):
    return plan_create(data=QUESTION, user=cast.planner, team=cast.team)


def candidates_url(plan: Plan) -> str:
    return f"{PLANS}{plan.pk}/candidates/"


# --- who may do what -------------------------------------------------------------------------


def test_anonymous_requests_are_401(cast, plan):
    client = cast.api("anonymous")
    for url in (PLANS, f"{PLANS}{plan.pk}/", candidates_url(plan)):
        assert client.get(url).status_code == 401, url
    assert client.post(PLANS, QUESTION, format="json").status_code == 401


@pytest.mark.parametrize("role", ["viewer", "planner", "admin"])
def test_every_role_of_the_team_reads_plans(role, cast, plan):
    client = cast.api(role)
    listed = client.get(PLANS).json()
    assert [p["id"] for p in listed["results"]] == [plan.pk]
    assert client.get(f"{PLANS}{plan.pk}/").status_code == 200
    assert client.get(candidates_url(plan)).status_code == 200


def test_viewer_may_not_create_plans(loaded_catalog, cast):
    response = cast.api("viewer").post(PLANS, QUESTION, format="json")
    assert response.status_code == 403
    assert Plan.objects.count() == 0


@pytest.mark.parametrize("role", ["planner", "admin"])
def test_planners_and_admins_create_plans(role, loaded_catalog, cast):
    response = cast.api(role).post(PLANS, QUESTION, format="json")
    assert response.status_code == 201
    plan = Plan.objects.get()
    assert (plan.team, plan.created_by) == (cast.team, cast[role])
    assert response["Location"] == f"{PLANS}{plan.pk}/"


def test_another_teams_plans_are_404(cast, plan):
    client = cast.api("outsider")
    assert client.get(PLANS).json()["results"] == []
    assert client.get(f"{PLANS}{plan.pk}/").status_code == 404
    assert client.get(candidates_url(plan)).status_code == 404


# --- creating --------------------------------------------------------------------------------


def test_create_answers_the_plan_with_its_first_page(loaded_catalog, cast):
    data = cast.api("planner").post(PLANS, QUESTION, format="json").json()
    plan = Plan.objects.get()
    assert data["id"] == plan.pk
    assert data["name"] == "Llama 3 8B cluster"
    assert data["question"] == QUESTION
    assert data["currency"] == "USD"
    page = data["candidates"]
    viable = len(plan.ranking["candidates"])
    assert page["count"] == data["viable"] == viable
    assert page["page"] == 1 and page["page_size"] == 25
    assert len(page["results"]) == min(25, viable)
    assert [c["rank"] for c in page["results"]] == list(range(1, len(page["results"]) + 1))
    assert page["weights"] == pytest.approx(
        {k: 100 * v for k, v in DEFAULT_WEIGHTS["train"].items()}
    )
    assert set(page["results"][0]) >= {"accelerator", "server", "scores", "reasons", "cost"}
    assert data["rejected"] and {"reason", "accelerator"} <= set(data["rejected"][0])


def test_create_with_a_saved_site_uses_its_racks_and_currency(loaded_catalog, cast):
    site = SiteFactory(team=cast.team, currency="CNY")
    RackGroupFactory(site=site, count=4, power_kw=40, cooling_kw=40)
    response = cast.api("planner").post(PLANS, {**QUESTION, "site_id": site.pk}, format="json")
    assert response.status_code == 201
    plan = Plan.objects.get()
    assert plan.site == site
    assert plan.currency == "CNY"
    assert "site_id" not in plan.question
    assert response.json()["site"] == site.pk


def test_create_with_a_site_shared_by_another_team(loaded_catalog, cast):
    shared = SiteFactory(visibility=Visibility.SHARED)
    response = cast.api("planner").post(PLANS, {**QUESTION, "site_id": shared.pk}, format="json")
    assert response.status_code == 201


@pytest.mark.parametrize("site_id", ["private", "abc", True])
def test_create_refuses_a_site_it_cannot_see_naming_site_id(site_id, loaded_catalog, cast):
    private = SiteFactory()  # another team's, not shared
    value = private.pk if site_id == "private" else site_id
    response = cast.api("planner").post(PLANS, {**QUESTION, "site_id": value}, format="json")
    assert response.status_code == 400
    assert list(response.json()) == ["site_id"]
    assert Plan.objects.count() == 0


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"workload": {"task": "train", "model": "no-such-model"}}, "workload.model"),
        (
            {"workload": {"task": "train", "accelerator": "nvidia-h100-sxm5-80gb"}},
            "workload.accelerator",
        ),
        ({"budget": {"capex": -1}}, "budget.capex"),
        ({"count": {"min": 64, "max": 8}}, "count.max"),
        ({"weights": {"software": 150}}, "weights.software"),
        ({"accelerators": ["no-such-card"]}, "accelerators"),
        ({"colour": "blue"}, "colour"),
    ],
)
def test_bad_questions_are_400_naming_the_field(change, field, loaded_catalog, cast):
    response = cast.api("planner").post(PLANS, {**QUESTION, **change}, format="json")
    assert response.status_code == 400
    assert list(response.json()) == [field]
    assert Plan.objects.count() == 0


# A model past any real one (found by the API fuzz: its sums overflowed to infinity, which the
# database refused to store as JSON).
OVERFLOWING_MODEL = {
    "ffn": 417,
    "vocab": 6115473,
    "hidden": 56946,
    "layers": 6115473,
    "params": 1.7976931348623157e308,
    "heads": 56946,
}
LARGEST_MODEL = {
    "params": 1e15,
    "layers": 100_000,
    "hidden": 10_000_000,
    "heads": 1_000_000,
    "ffn": 10_000_000,
    "vocab": 10_000_000,
}


@pytest.mark.parametrize(
    ("workload", "field"),
    [
        ({"task": "finetune", "model": OVERFLOWING_MODEL}, "workload.model.params"),
        (
            {"task": "finetune", "model": {**LARGEST_MODEL, "layers": 100_001}},
            "workload.model.layers",
        ),
        ({"task": "train", "model": "meta-llama-3-8b", "tokens": 1.1e18}, "workload.tokens"),
    ],
)
def test_a_model_or_job_past_any_real_one_is_400_naming_the_field(
    workload, field, loaded_catalog, cast
):
    response = cast.api("planner").post(PLANS, {**QUESTION, "workload": workload}, format="json")
    assert response.status_code == 400
    assert list(response.json()) == [field]


def test_the_largest_model_and_job_allowed_are_answered_in_finite_numbers(loaded_catalog, cast):
    workload = {"task": "train", "model": LARGEST_MODEL, "tokens": 1e18, "seq_len": 10_000_000}
    response = cast.api("planner").post(
        PLANS, {**QUESTION, "workload": workload, "tpot_ms": 1e307}, format="json"
    )
    assert response.status_code == 201, response.json()
    # Stored as JSON, which has no infinity or NaN.
    json.dumps(Plan.objects.get().ranking, allow_nan=False)


def test_a_question_without_a_workload_names_it(loaded_catalog, cast):
    response = cast.api("planner").post(PLANS, {"deadline_days": 3}, format="json")
    assert response.status_code == 400
    assert list(response.json()) == ["workload"]


def test_a_body_that_is_not_an_object_is_400(loaded_catalog, cast):
    response = cast.api("planner").post(PLANS, [1, 2], format="json")
    assert response.status_code == 400


# --- the candidates under new weights --------------------------------------------------------


def test_weights_reorder_and_only_software_follows_the_software_score(cast, plan):
    client = cast.api("viewer")
    page = client.get(candidates_url(plan), {**BY_SCORE, **ONLY_SOFTWARE, "page_size": 200}).json()
    results = page["results"]
    assert page["weights"] == ONLY_SOFTWARE
    software = [c["scores"]["software"] for c in results]
    assert software == sorted(software, reverse=True)
    # A zero weight removes a dimension: the overall score is the software score alone.
    assert [c["overall"] for c in results] == software


def test_missing_weights_keep_the_plans_own(cast, plan):
    page = cast.api("viewer").get(candidates_url(plan), {"software": 0}).json()
    expected = {k: 100 * v for k, v in DEFAULT_WEIGHTS["train"].items()}
    assert page["weights"] == pytest.approx({**expected, "software": 0})


def test_candidate_ids_stay_with_their_build_whatever_the_weights(cast, plan):
    client = cast.api("viewer")
    default = client.get(candidates_url(plan), {"page_size": 200}).json()["results"]
    reordered = client.get(
        candidates_url(plan), {**BY_SCORE, **ONLY_SOFTWARE, "page_size": 200}
    ).json()["results"]
    key = {c["id"]: (c["accelerator"], c["server"], c["count"]) for c in default}
    assert {c["id"]: (c["accelerator"], c["server"], c["count"]) for c in reordered} == key


def test_candidates_page_through_with_links(cast, plan):
    client = cast.api("viewer")
    first = client.get(candidates_url(plan), {"page_size": 5, **ONLY_SOFTWARE}).json()
    assert len(first["results"]) == 5
    assert first["previous"] is None
    assert "page=2" in first["next"] and "software=100" in first["next"]
    second = client.get(first["next"]).json()
    assert [c["rank"] for c in second["results"]] == [6, 7, 8, 9, 10]
    assert "page=1" in second["previous"]


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ({"software": 150}, "software"),
        ({"cooling": -1}, "cooling"),
        ({"interconnect": "lots"}, "interconnect"),
        ({"page_size": 1000}, "page_size"),
        ({"page": 0}, "page"),
    ],
)
def test_bad_query_values_are_400(query, field, cast, plan):
    response = cast.api("viewer").get(candidates_url(plan), query)
    assert response.status_code == 400
    assert list(response.json()) == [field]


def test_a_page_past_the_end_is_404(cast, plan):
    response = cast.api("viewer").get(candidates_url(plan), {"page": 999})
    assert response.status_code == 404


def test_every_weight_is_documented_as_a_query_parameter():
    from drf_spectacular.generators import SchemaGenerator

    schema = SchemaGenerator().get_schema(request=None, public=True)
    operation = schema["paths"]["/api/v1/plans/{id}/candidates/"]["get"]
    names = {p["name"] for p in operation["parameters"]}
    assert names >= {"page", "page_size", *DIMENSIONS}
    post = schema["paths"]["/api/v1/plans/"]["post"]
    assert set(post["responses"]) >= {"201", "400", "401", "403"}
