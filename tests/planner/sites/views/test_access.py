"""Who may read and write sites and rack groups, and what the list and detail pages show."""

import re

import pytest
from django.urls import reverse

from accounts.roles import Role
from planner.choices import Visibility
from planner.models import RackGroup, Site
from planner.sites.services import site_create
from tests.factories import FabricFactory
from tests.planner.sites.views.common import HTMX, RACK_FORM, SITE_FORM

pytestmark = pytest.mark.django_db


# --- the role matrix -------------------------------------------------------------------------

READ_PAGES = ["site_list", "site_detail", "rack_export"]
WRITE_PAGES = ["site_create", "site_edit", "rackgroup_create", "rackgroup_edit", "rack_import"]
SITE_PAGES = {"site_detail", "rack_export", "site_edit", "rackgroup_create", "rack_import"}


def page_url(name: str, site: Site, rack_group: RackGroup) -> str:
    if name in SITE_PAGES:
        return reverse(f"planner:{name}", args=[site.pk])
    if name.startswith("rackgroup_"):
        return reverse(f"planner:{name}", args=[rack_group.pk])
    return reverse(f"planner:{name}")


@pytest.mark.parametrize("name", READ_PAGES + WRITE_PAGES)
def test_anonymous_visitors_are_sent_to_sign_in_from_every_page(cast, site, rack_group, name):
    url = page_url(name, site, rack_group)
    response = cast.browser("anonymous").get(url)
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("accounts:login") + "?next=")


def test_anonymous_delete_is_sent_to_sign_in_and_deletes_nothing(cast, rack_group):
    response = cast.browser("anonymous").post(
        reverse("planner:rackgroup_delete", args=[rack_group.pk])
    )
    assert response.status_code == 302 and reverse("accounts:login") in response["Location"]
    assert RackGroup.objects.filter(pk=rack_group.pk).exists()


@pytest.mark.parametrize("role", [Role.VIEWER, Role.PLANNER])
def test_viewers_and_planners_read_every_page_but_may_not_write(cast, site, rack_group, role):
    client = cast.browser(role)
    for name in READ_PAGES:
        assert client.get(page_url(name, site, rack_group)).status_code == 200, name
    for name in WRITE_PAGES:
        url = page_url(name, site, rack_group)
        assert client.get(url).status_code == 403, name
        assert client.post(url, {**SITE_FORM, **RACK_FORM}).status_code == 403, name
    delete = client.post(reverse("planner:rackgroup_delete", args=[rack_group.pk]))
    assert delete.status_code == 403
    assert RackGroup.objects.filter(pk=rack_group.pk).exists()
    assert Site.objects.count() == 1


@pytest.mark.parametrize("role", [Role.FACILITY, Role.ADMIN])
def test_facility_and_admins_reach_every_page_and_may_delete(cast, site, rack_group, role):
    client = cast.browser(role)
    for name in READ_PAGES + WRITE_PAGES:
        assert client.get(page_url(name, site, rack_group)).status_code == 200, name
    delete = client.post(
        reverse("planner:rackgroup_delete", args=[rack_group.pk]), {"version": "1"}
    )
    assert delete.status_code == 302 and delete["Location"] == site.get_absolute_url()
    assert not RackGroup.objects.filter(pk=rack_group.pk).exists()


def test_delete_only_answers_post(cast, rack_group):
    response = cast.browser("facility").get(
        reverse("planner:rackgroup_delete", args=[rack_group.pk])
    )
    assert response.status_code == 405


def test_another_teams_private_site_is_not_found(cast, site, rack_group):
    client = cast.browser("outside_facility")
    for name in ["site_detail", "rack_export", *WRITE_PAGES]:
        if name == "site_create":
            continue
        assert client.get(page_url(name, site, rack_group)).status_code == 404, name
    delete = client.post(reverse("planner:rackgroup_delete", args=[rack_group.pk]))
    assert delete.status_code == 404
    listing = client.get(reverse("planner:site_list"))
    assert "Alpha DC" not in listing.content.decode()
    assert RackGroup.objects.filter(pk=rack_group.pk).exists()


def test_another_teams_shared_site_can_be_read_but_not_changed(cast, site, rack_group):
    Site.objects.filter(pk=site.pk).update(visibility=Visibility.SHARED)
    client = cast.browser("outside_facility")
    detail = client.get(site.get_absolute_url())
    assert detail.status_code == 200
    assert reverse("planner:site_edit", args=[site.pk]) not in detail.content.decode()
    assert client.get(reverse("planner:site_edit", args=[site.pk])).status_code == 403
    assert client.get(reverse("planner:rack_import", args=[site.pk])).status_code == 403
    assert client.post(reverse("planner:rackgroup_delete", args=[rack_group.pk])).status_code == 403


def test_only_people_who_may_create_see_the_new_site_button(cast, site):
    new_site = reverse("planner:site_create")
    for role, shown in [(Role.VIEWER, False), (Role.PLANNER, False), (Role.FACILITY, True)]:
        body = cast.browser(role).get(reverse("planner:site_list")).content.decode()
        assert (f'href="{new_site}"' in body) is shown, role


def test_read_only_people_see_no_edit_actions_on_the_detail_page(cast, site, rack_group):
    body = cast.browser("viewer").get(site.get_absolute_url()).content.decode()
    for name in ["site_edit", "rackgroup_create", "rack_import"]:
        assert reverse(f"planner:{name}", args=[site.pk]) not in body
    assert reverse("planner:rackgroup_edit", args=[rack_group.pk]) not in body
    assert reverse("planner:rackgroup_delete", args=[rack_group.pk]) not in body
    assert reverse("planner:rack_export", args=[site.pk]) in body


# --- list and detail -------------------------------------------------------------------------


def test_site_list_shows_capacity_and_price_and_swaps_only_the_results_for_htmx(
    cast, site, rack_group
):
    site_create(
        team=cast.team,
        user=None,
        name="Guiyang Hall",
        location="Guiyang",
        currency="CNY",
        electricity_price_per_kwh="0.3500",
        pue=1.2,
    )
    client = cast.browser("viewer")
    page = client.get(reverse("planner:site_list"))
    body = page.content.decode()
    assert page.status_code == 200 and "<html" in body
    assert "Alpha DC" in body and "Guiyang Hall" in body
    row = re.search(r"<tr>\s*<td><a [^>]*>Alpha DC</a>.*?</tr>", body, re.S).group(0)
    assert ">400<" in row  # 10 racks x 40 kW
    assert "0.55 CNY" in row and "1.25" in row and "Alpha" in row

    partial = client.get(reverse("planner:site_list"), {"q": "guiyang"}, **HTMX)
    text = partial.content.decode()
    assert "<html" not in text and 'id="results"' in text
    assert "Guiyang Hall" in text and "Alpha DC" not in text
    assert "HX-Request" in partial["Vary"]


def test_detail_shows_totals_rack_groups_and_their_history(cast, site, rack_group):
    fabric = FabricFactory(name="NDR InfiniBand")
    client = cast.browser("facility")
    client.post(
        reverse("planner:rackgroup_edit", args=[rack_group.pk]),
        {
            **RACK_FORM,
            "name": "Row A",
            "count": "10",
            "power_kw": "45",
            "fabrics": [fabric.pk],
            "version": rack_group.version,
        },
    )
    response = cast.browser("viewer").get(site.get_absolute_url())
    body = response.content.decode()
    capacity = response.context["capacity"]
    assert (capacity.racks, capacity.power_kw, capacity.cooling_kw, capacity.units) == (
        10,
        450.0,  # 10 racks x 45 kW
        350.0,  # 10 racks x 35 kW
        420,  # 10 racks x 42 U
    )
    assert f'id="rack-group-{rack_group.pk}"' in body
    assert "A/B feeds (2N)" in body and "Rear-door heat exchanger" in body
    assert "NDR InfiniBand" in body
    # The rack group's history: who changed which field from what to what.
    assert cast.facility.username in body
    assert "Usable power per rack (kW)</span>: <del>40</del> → <ins>45</ins>" in body
    assert "created" in body and "changed" in body


def test_deleted_rack_groups_keep_their_history_on_the_site_page(cast, site, rack_group):
    client = cast.browser("facility")
    client.post(reverse("planner:rackgroup_delete", args=[rack_group.pk]), {"version": "1"})
    body = client.get(site.get_absolute_url()).content.decode()
    assert "kind-deleted" in body and "Row A" in body
