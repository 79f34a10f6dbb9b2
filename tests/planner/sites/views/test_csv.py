"""CSV import and export of rack groups through the browser forms."""

import base64
import csv
import io
import os
import re

import pytest
from django.urls import reverse

from planner.history import history_of
from planner.models import RackGroup, Site
from planner.sites import views as site_views
from planner.sites.services import CSV_COLUMNS, CSV_MAX_BYTES, rack_group_save, site_create
from tests.factories import FabricFactory
from tests.planner.sites.views.common import GOOD_CSV, HEADER, import_url, upload

pytestmark = pytest.mark.django_db


# --- CSV -------------------------------------------------------------------------------------


def test_a_good_file_is_previewed_first_and_imported_on_confirmation(cast, site):
    client = cast.browser("facility")
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
    assert entry["kind"] == "created" and entry["who"] == cast.facility.username
    assert "Imported 2 rack groups." in client.get(site.get_absolute_url()).content.decode()

    # The token is spent: a second press imports nothing and says why.
    again = client.post(import_url(site), {"token": token})
    assert again.status_code == 400
    assert RackGroup.objects.count() == 2


def test_an_upload_token_only_imports_into_the_site_it_was_checked_for(cast, site):
    other = site_create(
        team=cast.team,
        user=None,
        name="Other",
        currency="CNY",
        electricity_price_per_kwh=1,
        pue=1.5,
    )
    client = cast.browser("facility")
    token = client.post(import_url(site), {"file": upload(GOOD_CSV)}).context["token"]
    assert client.post(import_url(other), {"token": token}).status_code == 400
    assert not RackGroup.objects.exists()


def test_a_bad_row_is_marked_with_its_line_and_field_and_nothing_is_saved(cast, site):
    data = (
        f"{HEADER}\n"
        "Row B,4,30,2n,35,rdhx,42,1200,24,false,\n"
        "Row C,2,-5,2n,120,liquid,48,2000,30,true,\n"
    ).encode()
    client = cast.browser("facility")
    response = client.post(import_url(site), {"file": upload(data)})
    body = response.content.decode()
    assert response.context["token"] is None and "Import 2 rows" not in body
    row = re.search(r'<tr id="line-3" class="bad-row">.*?</tr>', body, re.S).group(0)
    assert "Line 3, power_kw:" in row and "greater than or equal to 0.1" in row
    assert '<td class="bad-cell">-5</td>' in row
    assert '<tr id="line-2" class="good-row">' in body
    assert not RackGroup.objects.exists()
    assert not client.session.get(site_views.PENDING_IMPORTS_KEY)


def test_a_file_with_the_wrong_columns_is_refused_as_a_whole(cast, site):
    data = b"rack,kw\nRow B,30\n"
    response = cast.browser("facility").post(import_url(site), {"file": upload(data)})
    body = response.content.decode()
    assert "The file cannot be imported:" in body and "Missing columns: name, count" in body
    assert "Unknown columns: rack, kw" in body
    assert response.context["token"] is None
    assert not RackGroup.objects.exists()


def test_ten_megabytes_of_random_bytes_are_refused_before_being_read(cast, site, monkeypatch):
    def must_not_preview(**kwargs):
        raise AssertionError("an oversized upload reached the CSV reader")

    monkeypatch.setattr(site_views.site_services, "rack_csv_preview", must_not_preview)
    data = os.urandom(10 * 1024 * 1024)
    response = cast.browser("facility").post(import_url(site), {"file": upload(data, "random.bin")})
    assert response.status_code == 200
    assert response.context["form"].errors["file"] == [
        f"The file is {len(data) // 1024} KiB; the limit is {CSV_MAX_BYTES // 1024} KiB."
    ]
    assert response.context["token"] is None
    assert not RackGroup.objects.exists()


def test_a_small_file_that_is_not_utf8_is_refused(cast, site):
    data = b"\xff\xfe\x00\x81" * 100
    response = cast.browser("facility").post(import_url(site), {"file": upload(data)})
    assert "The file is not UTF-8 text." in response.content.decode()
    assert not RackGroup.objects.exists()


def test_a_cell_starting_with_a_formula_character_is_refused(cast, site):
    data = (
        f'{HEADER}\n"=HYPERLINK(""http://evil.example"")",4,30,2n,35,rdhx,42,1200,24,,\n'
    ).encode()
    response = cast.browser("facility").post(import_url(site), {"file": upload(data)})
    body = response.content.decode()
    assert "Line 2, name: starts with a formula character" in body
    assert response.context["token"] is None
    assert not RackGroup.objects.exists()


def test_export_is_a_csv_attachment_with_the_import_columns(cast, site, rack_group):
    response = cast.browser("viewer").get(reverse("planner:rack_export", args=[site.pk]))
    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["Content-Disposition"].startswith("attachment; filename=")
    rows = list(csv.reader(io.StringIO(response.content.decode())))
    assert rows[0] == CSV_COLUMNS
    assert rows[1][:3] == ["Row A", "10", "40.0"]


def test_an_export_imports_into_another_site_as_the_same_rack_groups(cast, site, rack_group):
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
        team=cast.team,
        user=None,
        name="Mirror",
        currency="USD",
        electricity_price_per_kwh="0.1",
        pue=1.1,
    )
    client = cast.browser("facility")
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


def test_pending_uploads_in_the_session_are_capped(cast, site):
    client = cast.browser("facility")
    tokens = [
        client.post(import_url(site), {"file": upload(GOOD_CSV)}).context["token"]
        for _ in range(site_views.MAX_PENDING_IMPORTS + 1)
    ]
    pending = client.session[site_views.PENDING_IMPORTS_KEY]
    assert list(pending) == tokens[1:]  # the oldest is dropped
    assert base64.b64decode(pending[tokens[-1]]["data"]) == GOOD_CSV
