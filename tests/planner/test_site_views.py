"""The facility pages: who may read and write sites and rack groups, inline validation that saves
nothing, CSRF, and CSV import and export through the browser forms.

Alpha's people (a viewer, a planner, a facility engineer and an admin) own one private site;
an outsider, a facility engineer on team Beta, must not learn it exists."""

import base64
import csv
import io
import os
import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from accounts.roles import Role
from accounts.services import team_get_or_create, user_create
from planner import site_views
from planner.choices import Visibility
from planner.models import RackGroup, Site
from planner.selectors import history_of
from planner.sites import CSV_COLUMNS, CSV_MAX_BYTES, ConflictError, rack_group_save, site_create
from tests.factories import FabricFactory

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}
PASSWORD = "rack-and-stack-42"
SITE_FORM = {
    "name": "Shanghai DC2",
    "location": "Shanghai, Pudong",
    "visibility": Visibility.TEAM,
    "currency": "CNY",
    "electricity_price_per_kwh": "0.65",
    "pue": "1.3",
    "notes": "",
}
RACK_FORM = {
    "name": "Row B",
    "count": "4",
    "power_kw": "30",
    "feeds": "2n",
    "cooling_kw": "35",
    "cooling": "rdhx",
    "units": "42",
    "max_kg": "1200",
    "inlet_c": "24",
}  # liquid_loops left unticked, no fabrics
HEADER = ",".join(CSV_COLUMNS)
GOOD_CSV = (
    f"{HEADER}\n"
    "Row B,4,30,2n,35,rdhx,42,1200,24,false,\n"
    "Row C,2,120,2n,120,liquid,48,2000,30,true,\n"
).encode()


# --- people and places -----------------------------------------------------------------------


@pytest.fixture
def alpha():
    return team_get_or_create(name="Alpha")


@pytest.fixture
def beta():
    return team_get_or_create(name="Beta")


@pytest.fixture
def people(alpha, beta):
    users = {
        role: user_create(username=role, password=PASSWORD, role=role, team=alpha)
        for role in Role.values
    }
    users["outsider"] = user_create(
        username="outsider", password=PASSWORD, role=Role.FACILITY, team=beta
    )
    return users


@pytest.fixture
def site(alpha, people):
    return site_create(
        team=alpha,
        user=people["facility"],
        name="Alpha DC",
        location="Beijing",
        visibility=Visibility.TEAM,
        currency="CNY",
        electricity_price_per_kwh="0.5500",
        pue=1.25,
    )


@pytest.fixture
def rack_group(site):
    # 10 racks x 40 kW = 400 kW of power, 10 x 42 U = 420 U.
    return rack_group_save(
        rack_group=RackGroup(
            site=site,
            name="Row A",
            count=10,
            power_kw=40,
            cooling_kw=40,
            units=42,
            max_kg=1500,
        )
    )


def client_for(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def upload(data: bytes, name: str = "racks.csv") -> SimpleUploadedFile:
    return SimpleUploadedFile(name, data, content_type="text/csv")


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
def test_anonymous_visitors_are_sent_to_sign_in_from_every_page(client, site, rack_group, name):
    url = page_url(name, site, rack_group)
    response = client.get(url)
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("accounts:login") + "?next=")


def test_anonymous_delete_is_sent_to_sign_in_and_deletes_nothing(client, rack_group):
    response = client.post(reverse("planner:rackgroup_delete", args=[rack_group.pk]))
    assert response.status_code == 302 and reverse("accounts:login") in response["Location"]
    assert RackGroup.objects.filter(pk=rack_group.pk).exists()


@pytest.mark.parametrize("role", [Role.VIEWER, Role.PLANNER])
def test_viewers_and_planners_read_every_page_but_may_not_write(people, site, rack_group, role):
    client = client_for(people[role])
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
def test_facility_and_admins_reach_every_page_and_may_delete(people, site, rack_group, role):
    client = client_for(people[role])
    for name in READ_PAGES + WRITE_PAGES:
        assert client.get(page_url(name, site, rack_group)).status_code == 200, name
    delete = client.post(reverse("planner:rackgroup_delete", args=[rack_group.pk]))
    assert delete.status_code == 302 and delete["Location"] == site.get_absolute_url()
    assert not RackGroup.objects.filter(pk=rack_group.pk).exists()


def test_delete_only_answers_post(people, rack_group):
    response = client_for(people[Role.FACILITY]).get(
        reverse("planner:rackgroup_delete", args=[rack_group.pk])
    )
    assert response.status_code == 405


def test_another_teams_private_site_is_not_found(people, site, rack_group):
    client = client_for(people["outsider"])
    for name in ["site_detail", "rack_export", *WRITE_PAGES]:
        if name == "site_create":
            continue
        assert client.get(page_url(name, site, rack_group)).status_code == 404, name
    delete = client.post(reverse("planner:rackgroup_delete", args=[rack_group.pk]))
    assert delete.status_code == 404
    listing = client.get(reverse("planner:site_list"))
    assert "Alpha DC" not in listing.content.decode()
    assert RackGroup.objects.filter(pk=rack_group.pk).exists()


def test_another_teams_shared_site_can_be_read_but_not_changed(people, site, rack_group):
    Site.objects.filter(pk=site.pk).update(visibility=Visibility.SHARED)
    client = client_for(people["outsider"])
    detail = client.get(site.get_absolute_url())
    assert detail.status_code == 200
    assert reverse("planner:site_edit", args=[site.pk]) not in detail.content.decode()
    assert client.get(reverse("planner:site_edit", args=[site.pk])).status_code == 403
    assert client.get(reverse("planner:rack_import", args=[site.pk])).status_code == 403
    assert client.post(reverse("planner:rackgroup_delete", args=[rack_group.pk])).status_code == 403


def test_only_people_who_may_create_see_the_new_site_button(people, site):
    new_site = reverse("planner:site_create")
    for role, shown in [(Role.VIEWER, False), (Role.PLANNER, False), (Role.FACILITY, True)]:
        body = client_for(people[role]).get(reverse("planner:site_list")).content.decode()
        assert (f'href="{new_site}"' in body) is shown, role


def test_read_only_people_see_no_edit_actions_on_the_detail_page(people, site, rack_group):
    body = client_for(people[Role.VIEWER]).get(site.get_absolute_url()).content.decode()
    for name in ["site_edit", "rackgroup_create", "rack_import"]:
        assert reverse(f"planner:{name}", args=[site.pk]) not in body
    assert reverse("planner:rackgroup_edit", args=[rack_group.pk]) not in body
    assert reverse("planner:rackgroup_delete", args=[rack_group.pk]) not in body
    assert reverse("planner:rack_export", args=[site.pk]) in body


# --- list and detail -------------------------------------------------------------------------


def test_site_list_shows_capacity_and_price_and_swaps_only_the_results_for_htmx(
    people, site, rack_group, alpha
):
    site_create(
        team=alpha,
        user=None,
        name="Guiyang Hall",
        location="Guiyang",
        currency="CNY",
        electricity_price_per_kwh="0.3500",
        pue=1.2,
    )
    client = client_for(people[Role.VIEWER])
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


def test_detail_shows_totals_rack_groups_and_their_history(people, site, rack_group):
    fabric = FabricFactory(name="NDR InfiniBand")
    client = client_for(people[Role.FACILITY])
    client.post(
        reverse("planner:rackgroup_edit", args=[rack_group.pk]),
        {**RACK_FORM, "name": "Row A", "count": "10", "power_kw": "45", "fabrics": [fabric.pk]},
    )
    response = client_for(people[Role.VIEWER]).get(site.get_absolute_url())
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
    assert "facility" in body
    assert "Usable power per rack (kW)</span>: <del>40</del> → <ins>45</ins>" in body
    assert "created" in body and "changed" in body


def test_deleted_rack_groups_keep_their_history_on_the_site_page(people, site, rack_group):
    client = client_for(people[Role.FACILITY])
    client.post(reverse("planner:rackgroup_delete", args=[rack_group.pk]))
    body = client.get(site.get_absolute_url()).content.decode()
    assert "kind-deleted" in body and "Row A" in body


# --- the forms -------------------------------------------------------------------------------


def test_facility_creates_a_site_for_their_own_team(people, alpha):
    response = client_for(people[Role.FACILITY]).post(reverse("planner:site_create"), SITE_FORM)
    created = Site.objects.get(name="Shanghai DC2")
    assert response.status_code == 302 and response["Location"] == created.get_absolute_url()
    assert created.team == alpha and created.created_by == people[Role.FACILITY]
    assert created.pue == 1.3
    assert history_of(created)[0]["who"] == "facility"


def test_editing_a_site_saves_through_the_service_and_records_the_change(people, site):
    client = client_for(people[Role.FACILITY])
    response = client.post(
        reverse("planner:site_edit", args=[site.pk]),
        {**SITE_FORM, "name": "Alpha DC", "pue": "1.4"},
    )
    assert response.status_code == 302
    site.refresh_from_db()
    assert site.pue == 1.4
    latest = history_of(site)[0]
    assert latest["kind"] == "changed" and latest["who"] == "facility"
    assert {"field": "pue", "old": 1.25, "new": 1.4} in latest["changes"]


def test_a_duplicate_site_name_shows_beside_the_name_field(people, site):
    response = client_for(people[Role.FACILITY]).post(
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


def test_a_conflict_raised_by_the_service_shows_beside_the_name_field(people, monkeypatch):
    def racing_create(**kwargs):
        raise ConflictError("UNIQUE constraint failed: planner_site.team_id, planner_site.name")

    monkeypatch.setattr(site_views.site_services, "site_create", racing_create)
    response = client_for(people[Role.FACILITY]).post(reverse("planner:site_create"), SITE_FORM)
    assert response.status_code == 200
    assert response.context["form"].errors["name"] == [
        "Your team already has a site with this name."
    ]


def test_inline_validation_returns_the_form_with_errors_and_saves_nothing(people):
    client = client_for(people[Role.FACILITY])
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


def test_inline_validation_of_a_valid_form_still_saves_nothing(people):
    client = client_for(people[Role.FACILITY])
    response = client.post(reverse("planner:site_create"), {**SITE_FORM, "_validate": "1"}, **HTMX)
    assert response.status_code == 200 and 'class="error"' not in response.content.decode()
    assert Site.objects.count() == 0


def test_inline_validation_of_a_rack_group_saves_nothing(people, site):
    client = client_for(people[Role.FACILITY])
    response = client.post(
        reverse("planner:rackgroup_create", args=[site.pk]),
        {**RACK_FORM, "power_kw": "-5", "_validate": "1"},
        **HTMX,
    )
    body = response.content.decode()
    assert "<html" not in body and 'id="errors-power_kw"><p class="error"' in body
    assert not RackGroup.objects.exists()


def test_inline_validation_leaves_fields_not_yet_filled_in_alone(people, site):
    client = client_for(people[Role.FACILITY])
    url = reverse("planner:rackgroup_create", args=[site.pk])
    half_done = {"name": "Row B", "power_kw": "900", "_validate": "1"}
    body = client.post(url, half_done, **HTMX).content.decode()
    assert "less than or equal to 250" in body
    assert "This field is required." not in body
    # Pressing Save does report them.
    saved = client.post(url, {k: v for k, v in half_done.items() if k != "_validate"})
    assert "count" in saved.context["form"].errors
    assert not RackGroup.objects.exists()


def test_without_javascript_a_post_shows_the_same_errors_on_the_full_page(people):
    response = client_for(people[Role.FACILITY]).post(
        reverse("planner:site_create"), {**SITE_FORM, "pue": "0.8"}
    )
    body = response.content.decode()
    assert response.status_code == 200 and "<html" in body
    assert 'id="errors-pue"><p class="error" role="alert">' in body
    assert Site.objects.count() == 0


def test_adding_a_rack_group_raises_the_sites_capacity(people, site, rack_group):
    fabric = FabricFactory()
    client = client_for(people[Role.FACILITY])
    response = client.post(
        reverse("planner:rackgroup_create", args=[site.pk]), {**RACK_FORM, "fabrics": [fabric.pk]}
    )
    added = RackGroup.objects.get(site=site, name="Row B")
    assert response.status_code == 302 and response["Location"] == added.get_absolute_url()
    assert list(added.fabrics.all()) == [fabric]
    capacity = client.get(site.get_absolute_url()).context["capacity"]
    assert capacity.power_kw == 400 + 4 * 30  # Row A 10 x 40 kW, Row B 4 x 30 kW
    assert history_of(added)[0]["who"] == "facility"


def test_liquid_cooling_without_loops_is_refused_beside_the_checkbox(people, site):
    response = client_for(people[Role.FACILITY]).post(
        reverse("planner:rackgroup_create", args=[site.pk]), {**RACK_FORM, "cooling": "liquid"}
    )
    assert response.context["form"].errors == {
        "liquid_loops": ["Direct liquid cooling needs liquid loops."]
    }
    assert not RackGroup.objects.exists()


def test_a_duplicate_rack_group_name_shows_beside_the_name_field(people, site, rack_group):
    response = client_for(people[Role.FACILITY]).post(
        reverse("planner:rackgroup_create", args=[site.pk]), {**RACK_FORM, "name": "Row A"}
    )
    assert response.context["form"].errors["name"] == [
        "This site already has a rack group with this name."
    ]
    assert RackGroup.objects.count() == 1


# --- CSRF ------------------------------------------------------------------------------------


def strict_client(user) -> Client:
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    return client


def test_the_site_form_refuses_a_post_without_a_csrf_token(people):
    client = strict_client(people[Role.FACILITY])
    assert client.post(reverse("planner:site_create"), SITE_FORM).status_code == 403
    assert Site.objects.count() == 0


def test_an_htmx_validation_post_without_a_csrf_token_is_refused(people):
    client = strict_client(people[Role.FACILITY])
    response = client.post(reverse("planner:site_create"), {**SITE_FORM, "_validate": "1"}, **HTMX)
    assert response.status_code == 403


def test_an_htmx_post_with_the_header_token_from_the_page_is_accepted(people):
    client = strict_client(people[Role.FACILITY])
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


def test_deleting_a_rack_group_refuses_a_post_without_a_csrf_token(people, rack_group):
    client = strict_client(people[Role.FACILITY])
    response = client.post(reverse("planner:rackgroup_delete", args=[rack_group.pk]))
    assert response.status_code == 403
    assert RackGroup.objects.filter(pk=rack_group.pk).exists()


# --- CSV -------------------------------------------------------------------------------------


def import_url(site: Site) -> str:
    return reverse("planner:rack_import", args=[site.pk])


def test_a_good_file_is_previewed_first_and_imported_on_confirmation(people, site):
    client = client_for(people[Role.FACILITY])
    preview = client.post(import_url(site), {"file": upload(GOOD_CSV)})
    body = preview.content.decode()
    assert preview.status_code == 200
    assert "Import 2 rows" in body and 'class="bad-row"' not in body
    assert not RackGroup.objects.exists()  # nothing saved by the preview

    token = preview.context["token"]
    done = client.post(import_url(site), {"token": token})
    assert done.status_code == 302 and done["Location"] == site.get_absolute_url()
    groups = {g.name: g for g in RackGroup.objects.filter(site=site)}
    assert set(groups) == {"Row B", "Row C"}
    assert groups["Row C"].power_kw == 120 and groups["Row C"].liquid_loops is True
    entry = history_of(groups["Row B"])[0]
    assert entry["kind"] == "created" and entry["who"] == "facility"
    assert "Imported 2 rack groups." in client.get(site.get_absolute_url()).content.decode()

    # The token is spent: a second press imports nothing and says why.
    again = client.post(import_url(site), {"token": token})
    assert again.status_code == 400
    assert RackGroup.objects.count() == 2


def test_an_upload_token_only_imports_into_the_site_it_was_checked_for(people, site, alpha):
    other = site_create(
        team=alpha, user=None, name="Other", currency="CNY", electricity_price_per_kwh=1, pue=1.5
    )
    client = client_for(people[Role.FACILITY])
    token = client.post(import_url(site), {"file": upload(GOOD_CSV)}).context["token"]
    assert client.post(import_url(other), {"token": token}).status_code == 400
    assert not RackGroup.objects.exists()


def test_a_bad_row_is_marked_with_its_line_and_field_and_nothing_is_saved(people, site):
    data = (
        f"{HEADER}\n"
        "Row B,4,30,2n,35,rdhx,42,1200,24,false,\n"
        "Row C,2,-5,2n,120,liquid,48,2000,30,true,\n"
    ).encode()
    client = client_for(people[Role.FACILITY])
    response = client.post(import_url(site), {"file": upload(data)})
    body = response.content.decode()
    assert response.context["token"] is None and "Import 2 rows" not in body
    row = re.search(r'<tr id="line-3" class="bad-row">.*?</tr>', body, re.S).group(0)
    assert "Line 3, power_kw:" in row and "greater than or equal to 0.1" in row
    assert '<td class="bad-cell">-5</td>' in row
    assert '<tr id="line-2" class="good-row">' in body
    assert not RackGroup.objects.exists()
    assert not client.session.get(site_views.PENDING_IMPORTS_KEY)


def test_a_file_with_the_wrong_columns_is_refused_as_a_whole(people, site):
    data = b"rack,kw\nRow B,30\n"
    response = client_for(people[Role.FACILITY]).post(import_url(site), {"file": upload(data)})
    body = response.content.decode()
    assert "The file cannot be imported:" in body and "Missing columns: name, count" in body
    assert "Unknown columns: rack, kw" in body
    assert response.context["token"] is None
    assert not RackGroup.objects.exists()


def test_ten_megabytes_of_random_bytes_are_refused_before_being_read(people, site, monkeypatch):
    def must_not_preview(**kwargs):
        raise AssertionError("an oversized upload reached the CSV reader")

    monkeypatch.setattr(site_views.site_services, "rack_csv_preview", must_not_preview)
    data = os.urandom(10 * 1024 * 1024)
    response = client_for(people[Role.FACILITY]).post(
        import_url(site), {"file": upload(data, "random.bin")}
    )
    assert response.status_code == 200
    assert response.context["form"].errors["file"] == [
        f"The file is {len(data) // 1024} KiB; the limit is {CSV_MAX_BYTES // 1024} KiB."
    ]
    assert response.context["token"] is None
    assert not RackGroup.objects.exists()


def test_a_small_file_that_is_not_utf8_is_refused(people, site):
    data = b"\xff\xfe\x00\x81" * 100
    response = client_for(people[Role.FACILITY]).post(import_url(site), {"file": upload(data)})
    assert "The file is not UTF-8 text." in response.content.decode()
    assert not RackGroup.objects.exists()


def test_a_cell_starting_with_a_formula_character_is_refused(people, site):
    data = (
        f'{HEADER}\n"=HYPERLINK(""http://evil.example"")",4,30,2n,35,rdhx,42,1200,24,,\n'
    ).encode()
    response = client_for(people[Role.FACILITY]).post(import_url(site), {"file": upload(data)})
    body = response.content.decode()
    assert "Line 2, name: starts with a formula character" in body
    assert response.context["token"] is None
    assert not RackGroup.objects.exists()


def test_export_is_a_csv_attachment_with_the_import_columns(people, site, rack_group):
    response = client_for(people[Role.VIEWER]).get(reverse("planner:rack_export", args=[site.pk]))
    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["Content-Disposition"].startswith("attachment; filename=")
    rows = list(csv.reader(io.StringIO(response.content.decode())))
    assert rows[0] == CSV_COLUMNS
    assert rows[1][:3] == ["Row A", "10", "40.0"]


def test_an_export_imports_into_another_site_as_the_same_rack_groups(
    people, site, rack_group, alpha
):
    fabric = FabricFactory(slug="nvidia-ndr")
    rack_group.fabrics.set([fabric])
    rack_group_save(
        rack_group=RackGroup(
            site=site,
            name="Liquid row",
            count=2,
            power_kw=130,
            cooling_kw=130,
            cooling="liquid",
            liquid_loops=True,
            units=48,
            max_kg=3000,
            inlet_c=32,
        )
    )
    target = site_create(
        team=alpha,
        user=None,
        name="Mirror",
        currency="USD",
        electricity_price_per_kwh="0.1",
        pue=1.1,
    )
    client = client_for(people[Role.FACILITY])
    exported = client.get(reverse("planner:rack_export", args=[site.pk])).content
    token = client.post(import_url(target), {"file": upload(exported)}).context["token"]
    assert token
    assert client.post(import_url(target), {"token": token}).status_code == 302

    def shape(s: Site):
        return [
            (
                g.name, g.count, g.power_kw, g.feeds, g.cooling_kw, g.cooling, g.units,
                g.max_kg, g.inlet_c, g.liquid_loops, [f.slug for f in g.fabrics.all()],
            )
            for g in s.rack_groups.order_by("name")
        ]  # fmt: skip

    assert shape(target) == shape(site)
    assert client.get(reverse("planner:rack_export", args=[target.pk])).content == exported


def test_pending_uploads_in_the_session_are_capped(people, site):
    client = client_for(people[Role.FACILITY])
    tokens = [
        client.post(import_url(site), {"file": upload(GOOD_CSV)}).context["token"]
        for _ in range(site_views.MAX_PENDING_IMPORTS + 1)
    ]
    pending = client.session[site_views.PENDING_IMPORTS_KEY]
    assert list(pending) == tokens[1:]  # the oldest is dropped
    assert base64.b64decode(pending[tokens[-1]]["data"]) == GOOD_CSV
