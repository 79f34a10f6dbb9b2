"""The site and rack-group forms: saving through the services, inline validation that saves
nothing, and CSRF."""

import re

import pytest
from django.urls import reverse

from planner.history import history_of
from planner.models import RackGroup, Site
from planner.sites import views as site_views
from planner.versioning import ConflictError
from tests.factories import FabricFactory
from tests.planner.sites.views.common import HTMX, RACK_FORM, SITE_FORM

pytestmark = pytest.mark.django_db


# --- the forms -------------------------------------------------------------------------------


def test_facility_creates_a_site_for_their_own_team(cast):
    response = cast.browser("facility").post(reverse("planner:site_create"), SITE_FORM)
    created = Site.objects.get(name="Shanghai DC2")
    assert response.status_code == 302 and response["Location"] == created.get_absolute_url()
    assert created.team == cast.team and created.created_by == cast.facility
    assert created.pue == 1.3
    assert history_of(created)[0]["who"] == cast.facility.username


@pytest.mark.parametrize("chosen", ["CNY", "USD"])
def test_a_new_site_starts_in_the_currency_its_author_reads_prices_in(cast, chosen):
    client = cast.browser("facility")
    client.post(reverse("set_currency"), {"currency": chosen, "next": "/"})
    form = client.get(reverse("planner:site_create")).context["form"]
    assert form["currency"].value() == chosen


def test_editing_a_site_saves_through_the_service_and_records_the_change(cast, site):
    client = cast.browser("facility")
    response = client.post(
        reverse("planner:site_edit", args=[site.pk]),
        {**SITE_FORM, "name": "Alpha DC", "pue": "1.4", "version": site.version},
    )
    assert response.status_code == 302
    site.refresh_from_db()
    assert site.pue == 1.4
    latest = history_of(site)[0]
    assert latest["kind"] == "changed" and latest["who"] == cast.facility.username
    assert {"field": "pue", "old": 1.25, "new": 1.4} in latest["changes"]


def test_a_duplicate_site_name_shows_beside_the_name_field(cast, site):
    response = cast.browser("facility").post(
        reverse("planner:site_create"), {**SITE_FORM, "name": "Alpha DC"}
    )
    assert response.status_code == 200
    assert response.context["form"].errors["name"] == [
        "Your team already has a site with this name."
    ]
    assert 'id="errors-name"><p class="error" role="alert">Your team already' in (
        response.content.decode()
    )
    assert Site.objects.count() == 1


def test_a_conflict_raised_by_the_service_shows_beside_the_name_field(cast, monkeypatch):
    def racing_create(**kwargs):
        raise ConflictError("UNIQUE constraint failed: planner_site.team_id, planner_site.name")

    monkeypatch.setattr(site_views.site_services, "site_create", racing_create)
    response = cast.browser("facility").post(reverse("planner:site_create"), SITE_FORM)
    assert response.status_code == 200
    assert response.context["form"].errors["name"] == [
        "Your team already has a site with this name."
    ]


def test_inline_validation_returns_the_form_with_errors_and_saves_nothing(cast):
    client = cast.browser("facility")
    response = client.post(
        reverse("planner:site_create"), {**SITE_FORM, "pue": "0.8", "_validate": "1"}, **HTMX
    )
    body = response.content.decode()
    assert response.status_code == 200
    assert "<html" not in body and body.lstrip().startswith("<form")
    assert 'id="errors-pue"><p class="error" role="alert">' in body
    assert "greater than or equal to 1.0" in body
    # Every typed value comes back, so nothing the person typed is lost.
    assert 'value="Shanghai DC2"' in body and 'value="0.8"' in body
    assert Site.objects.count() == 0


def test_inline_validation_of_a_valid_form_still_saves_nothing(cast):
    client = cast.browser("facility")
    response = client.post(reverse("planner:site_create"), {**SITE_FORM, "_validate": "1"}, **HTMX)
    assert response.status_code == 200 and 'class="error"' not in response.content.decode()
    assert Site.objects.count() == 0


def test_inline_validation_of_a_rack_group_saves_nothing(cast, site):
    client = cast.browser("facility")
    response = client.post(
        reverse("planner:rackgroup_create", args=[site.pk]),
        {**RACK_FORM, "power_kw": "-5", "_validate": "1"},
        **HTMX,
    )
    body = response.content.decode()
    assert "<html" not in body and 'id="errors-power_kw"><p class="error"' in body
    assert not RackGroup.objects.exists()


def test_inline_validation_leaves_fields_not_yet_filled_in_alone(cast, site):
    client = cast.browser("facility")
    url = reverse("planner:rackgroup_create", args=[site.pk])
    half_done = {"name": "Row B", "power_kw": "900", "_validate": "1"}
    body = client.post(url, half_done, **HTMX).content.decode()
    assert "less than or equal to 250" in body
    assert "This field is required." not in body
    # Pressing Save does report them.
    saved = client.post(url, {k: v for k, v in half_done.items() if k != "_validate"})
    assert "count" in saved.context["form"].errors
    assert not RackGroup.objects.exists()


def test_without_javascript_a_post_shows_the_same_errors_on_the_full_page(cast):
    response = cast.browser("facility").post(
        reverse("planner:site_create"), {**SITE_FORM, "pue": "0.8"}
    )
    body = response.content.decode()
    assert response.status_code == 200 and "<html" in body
    assert 'id="errors-pue"><p class="error" role="alert">' in body
    assert Site.objects.count() == 0


def test_adding_a_rack_group_raises_the_sites_capacity(cast, site, rack_group):
    fabric = FabricFactory()
    client = cast.browser("facility")
    response = client.post(
        reverse("planner:rackgroup_create", args=[site.pk]), {**RACK_FORM, "fabrics": [fabric.pk]}
    )
    added = RackGroup.objects.get(site=site, name="Row B")
    assert response.status_code == 302 and response["Location"] == added.get_absolute_url()
    assert list(added.fabrics.all()) == [fabric]
    capacity = client.get(site.get_absolute_url()).context["capacity"]
    assert capacity.power_kw == 400 + 4 * 30  # Row A 10 x 40 kW, Row B 4 x 30 kW
    assert history_of(added)[0]["who"] == cast.facility.username


def test_liquid_cooling_without_loops_is_refused_beside_the_checkbox(cast, site):
    response = cast.browser("facility").post(
        reverse("planner:rackgroup_create", args=[site.pk]), {**RACK_FORM, "cooling": "liquid"}
    )
    assert response.context["form"].errors == {
        "liquid_loops": ["Direct liquid cooling needs liquid loops."]
    }
    assert not RackGroup.objects.exists()


def test_a_duplicate_rack_group_name_shows_beside_the_name_field(cast, site, rack_group):
    response = cast.browser("facility").post(
        reverse("planner:rackgroup_create", args=[site.pk]), {**RACK_FORM, "name": "Row A"}
    )
    assert response.context["form"].errors["name"] == [
        "This site already has a rack group with this name."
    ]
    assert RackGroup.objects.count() == 1


# --- CSRF ------------------------------------------------------------------------------------


def test_the_site_form_refuses_a_post_without_a_csrf_token(cast):
    client = cast.browser("facility", enforce_csrf_checks=True)
    assert client.post(reverse("planner:site_create"), SITE_FORM).status_code == 403
    assert Site.objects.count() == 0


def test_an_htmx_validation_post_without_a_csrf_token_is_refused(cast):
    client = cast.browser("facility", enforce_csrf_checks=True)
    response = client.post(reverse("planner:site_create"), {**SITE_FORM, "_validate": "1"}, **HTMX)
    assert response.status_code == 403


def test_an_htmx_post_with_the_header_token_from_the_page_is_accepted(cast):
    client = cast.browser("facility", enforce_csrf_checks=True)
    page = client.get(reverse("planner:site_create")).content.decode()
    # base.html sends the token once, as a header, from <body hx-headers=...>.
    token = re.search(r'hx-headers=\'\{"X-CSRFToken": "([^"]+)"\}\'', page).group(1)
    response = client.post(
        reverse("planner:site_create"),
        {**SITE_FORM, "_validate": "1"},
        HTTP_X_CSRFTOKEN=token,
        **HTMX,
    )
    assert response.status_code == 200


def test_deleting_a_rack_group_refuses_a_post_without_a_csrf_token(cast, rack_group):
    client = cast.browser("facility", enforce_csrf_checks=True)
    response = client.post(reverse("planner:rackgroup_delete", args=[rack_group.pk]))
    assert response.status_code == 403
    assert RackGroup.objects.filter(pk=rack_group.pk).exists()


def test_a_change_of_fabrics_shows_in_the_history_with_their_names(cast, site, rack_group):
    ndr = FabricFactory(name="InfiniBand NDR")
    roce = FabricFactory(name="RoCE 400")
    client = cast.browser("facility")
    edit = reverse("planner:rackgroup_edit", args=[rack_group.pk])
    form = {**RACK_FORM, "name": rack_group.name, "count": "10", "power_kw": "40"}
    client.post(edit, {**form, "fabrics": [ndr.pk], "version": rack_group.version})
    rack_group.refresh_from_db()
    client.post(edit, {**form, "fabrics": [roce.pk], "version": rack_group.version})

    entries = history_of(rack_group)
    # One entry per change a person made: the version raised before the fabrics were set is
    # not a change of its own.
    assert all(entry["changes"] for entry in entries if entry["kind"] == "changed")
    fabrics = [c for entry in entries for c in entry["changes"] if c["field"] == "fabrics"]
    assert (fabrics[0]["old"], fabrics[0]["new"]) == ([ndr.slug], [roce.slug])
    body = client.get(site.get_absolute_url()).content.decode()
    assert "<del>InfiniBand NDR</del> → <ins>RoCE 400</ins>" in body
    assert "<del>—</del> → <ins>—</ins>" not in body
