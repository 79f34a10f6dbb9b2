"""Plans in the site's free capacity: installed equipment and other plans' commitments take
room, committing a build holds it, releasing gives it back, and the plan page says when the
site changed since the ranking."""

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from planner.models import RackCommitment, RackGroup
from planner.plans.services import plan_build_commit, plan_create, plan_rerank
from planner.racks.commitments import plan_release
from planner.racks.selectors import site_changed_after
from planner.sites.services import rack_group_save
from tests.facility import dgx_question, install_dgx
from tests.factories import SiteFactory

pytestmark = pytest.mark.django_db

TWO_DGX = dgx_question("Two DGX", 2)
ONE_DGX = dgx_question("One DGX", 1)


@pytest.fixture
def site(cast):
    """Two 25 kW racks: each takes two DGX H100 (20.4 kW)."""
    site = SiteFactory(team=cast.team, name="Hall A")
    rack_group_save(
        rack_group=RackGroup(
            site=site, name="Row A", count=2, power_kw=25, cooling_kw=30, units=42, max_kg=1500
        )
    )
    return site


def racks_needed(plan) -> int | None:
    return plan.ranking["candidates"][0]["fit"]["racks_needed"]


def test_racks_needed_rise_after_equipment_and_fall_when_a_commitment_is_released(cast, site):
    first, second = site.rack_groups.get().racks.order_by("position")
    other = plan_create(data=ONE_DGX, user=cast.planner, team=cast.team, site=site)
    plan = plan_create(data=TWO_DGX, user=cast.planner, team=cast.team, site=site)
    assert racks_needed(plan) == 1  # both DGX in one 25 kW rack

    held = plan_build_commit(plan=other, candidate_id=0, user=cast.planner)
    assert [(c.rack, c.servers, round(c.power_kw, 1)) for c in held] == [(first, 1, 10.2)]
    install_dgx(second)
    assert site_changed_after(site=site, moment=plan.ranked_at, except_plan_id=plan.pk)
    # Each rack has 14.8 kW left: one DGX each, so two racks.
    assert racks_needed(plan_rerank(plan=plan, user=cast.planner)) == 2

    assert plan_release(plan=other) == 1
    assert racks_needed(plan_rerank(plan=plan, user=cast.planner)) == 1
    released = RackCommitment.objects.get()
    assert released.released_at is not None
    assert released.history.count() == 2  # committed, released


def test_a_plan_is_not_kept_out_by_its_own_commitment(cast, site):
    plan = plan_create(data=TWO_DGX, user=cast.planner, team=cast.team, site=site)
    plan_build_commit(plan=plan, candidate_id=0, user=cast.planner)
    assert not site_changed_after(site=site, moment=plan.ranked_at, except_plan_id=plan.pk)
    assert racks_needed(plan_rerank(plan=plan, user=cast.planner)) == 1


def test_a_commit_beyond_the_free_space_is_refused_naming_the_limit(cast, site):
    for rack in site.rack_groups.get().racks.all():
        install_dgx(rack)  # 14.8 kW left in each: room for one more DGX each
    plan = plan_create(data=TWO_DGX, user=cast.planner, team=cast.team, site=site)
    one = plan_create(data=ONE_DGX, user=cast.planner, team=cast.team, site=site)
    assert len(plan_build_commit(plan=plan, candidate_id=0, user=cast.planner)) == 2
    with pytest.raises(ValidationError, match=r"Only 0 of 1 servers fit.*power"):
        plan_build_commit(plan=one, candidate_id=0, user=cast.planner)
    assert RackCommitment.objects.count() == 2


def test_a_plan_holding_racks_must_release_them_before_committing_again(cast, site):
    plan = plan_create(data=TWO_DGX, user=cast.planner, team=cast.team, site=site)
    plan_build_commit(plan=plan, candidate_id=0, user=cast.planner)
    with pytest.raises(ValidationError, match="release them first"):
        plan_build_commit(plan=plan, candidate_id=0, user=cast.planner)


def test_the_plan_page_says_the_site_changed_and_ranks_again_on_request(cast, site):
    plan = plan_create(data=TWO_DGX, user=cast.planner, team=cast.team, site=site)
    client = cast.browser("planner")
    assert 'id="site-changed"' not in client.get(plan.get_absolute_url()).content.decode()
    install_dgx(site.rack_groups.get().racks.first())
    assert 'id="site-changed"' in client.get(plan.get_absolute_url()).content.decode()
    assert client.post(reverse("planner:plan_rerank", args=[plan.pk])).status_code == 302
    assert 'id="site-changed"' not in client.get(plan.get_absolute_url()).content.decode()


def test_planners_commit_and_release_from_the_pages_and_viewers_may_not(cast, site):
    plan = plan_create(data=TWO_DGX, user=cast.planner, team=cast.team, site=site)
    commit = reverse("planner:plan_candidate_commit", args=[plan.pk, 0])
    assert cast.browser("viewer").post(commit).status_code == 403
    assert cast.browser("outsider").post(commit).status_code == 404
    client = cast.browser("planner")
    assert client.post(commit).status_code == 302
    page = client.get(plan.get_absolute_url()).content.decode()
    assert 'id="racks-held"' in page and "2 servers" in page
    rack_page = client.get(RackCommitment.objects.get().rack.get_absolute_url()).content.decode()
    assert "Two DGX" in rack_page
    assert client.post(reverse("planner:plan_release", args=[plan.pk])).status_code == 302
    assert not RackCommitment.objects.filter(released_at__isnull=True).exists()


def test_a_facility_user_creates_and_ranks_plans_again(cast, site):
    client = cast.browser("facility")
    assert client.get(reverse("planner:plan_create")).status_code == 200
    plan = plan_create(data=TWO_DGX, user=cast.facility, team=cast.team, site=site)
    assert client.post(reverse("planner:plan_rerank", args=[plan.pk])).status_code == 302
    assert (
        cast.browser("viewer").post(reverse("planner:plan_rerank", args=[plan.pk])).status_code
        == 403
    )


def test_the_site_page_lists_the_plans_holding_racks_with_a_release_button(cast, site):
    plan = plan_create(data=TWO_DGX, user=cast.planner, team=cast.team, site=site)
    fit = cast.browser("planner").get(reverse("planner:fit"), {"plan": plan.pk, "build": 0})
    assert fit.context["fit"].racks_needed == 1 and 'id="fit-commit"' in fit.content.decode()
    plan_build_commit(plan=plan, candidate_id=0, user=cast.planner)
    page = cast.browser("planner").get(site.get_absolute_url()).content.decode()
    assert 'id="plans-holding"' in page and "Two DGX" in page and "2 servers in 1 racks" in page
    assert reverse("planner:plan_release", args=[plan.pk]) in page
    viewer_page = cast.browser("viewer").get(site.get_absolute_url()).content.decode()
    assert reverse("planner:plan_release", args=[plan.pk]) not in viewer_page
