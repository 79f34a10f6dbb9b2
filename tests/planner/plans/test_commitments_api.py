"""A plan's racks over the API: commit a build, list, release, rank again; roles as on the
pages."""

import pytest

from planner.models import RackGroup
from planner.plans.services import plan_create
from planner.sites.services import rack_group_save
from tests.facility import dgx_question
from tests.factories import SiteFactory

pytestmark = pytest.mark.django_db

ONE_DGX = dgx_question("One DGX", 1)


@pytest.fixture
def plans(loaded_catalog, cast):
    """Two one-DGX plans on a site whose one 12 kW rack has room for one DGX H100."""
    site = SiteFactory(team=cast.team, name="Hall A")
    rack_group_save(
        rack_group=RackGroup(
            site=site, name="Row A", count=1, power_kw=12, cooling_kw=12, units=42, max_kg=1500
        )
    )
    return [
        plan_create(data={**ONE_DGX, "name": f"P{i}"}, user=cast.planner, team=cast.team, site=site)
        for i in range(2)
    ]


def test_a_planner_commits_lists_and_releases_and_the_second_commit_is_a_409(cast, plans):
    first, second = plans
    api = cast.api("planner")
    held = api.post(f"/api/v1/plans/{first.pk}/candidates/0/commit/")
    assert held.status_code == 201, held.content
    assert [(c["servers"], c["server"], c["rack_name"]) for c in held.json()] == [
        (1, "nvidia-dgx-h100", "Row A-01")
    ]
    refused = api.post(f"/api/v1/plans/{second.pk}/candidates/0/commit/")
    assert refused.status_code == 409 and "power" in refused.json()["detail"]
    assert api.post(f"/api/v1/plans/{first.pk}/release/").json() == {"released": 1}
    listed = api.get(f"/api/v1/plans/{first.pk}/commitments/").json()
    assert listed["count"] == 1 and listed["results"][0]["released_at"] is not None
    assert api.post(f"/api/v1/plans/{second.pk}/candidates/0/commit/").status_code == 201


def test_a_missing_build_names_the_field_and_others_may_not_commit(cast, plans):
    plan = plans[0]
    assert cast.api("planner").post(f"/api/v1/plans/{plan.pk}/candidates/99/commit/").json() == {
        "build": ["the plan has no build 99"]
    }
    assert (
        cast.api("viewer").post(f"/api/v1/plans/{plan.pk}/candidates/0/commit/").status_code == 403
    )
    assert cast.api("outsider").post(f"/api/v1/plans/{plan.pk}/release/").status_code == 404


def test_a_body_with_fields_is_refused_naming_the_request(cast, plans):
    answer = cast.api("planner").post(
        f"/api/v1/plans/{plans[0].pk}/release/", {"all": True}, format="json"
    )
    assert answer.status_code == 400 and "request" in answer.json()


def test_facility_ranks_a_plan_again_and_creates_plans(cast, plans):
    api = cast.api("facility")
    ranked = api.post(f"/api/v1/plans/{plans[0].pk}/rank/")
    assert ranked.status_code == 200 and ranked.json()["viable"] == 1
    made = api.post("/api/v1/plans/", ONE_DGX, format="json")
    assert made.status_code == 201, made.content
    assert cast.api("viewer").post(f"/api/v1/plans/{plans[0].pk}/rank/").status_code == 403
