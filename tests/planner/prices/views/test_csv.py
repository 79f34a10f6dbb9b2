"""Importing and exporting prices through the pages: preview first, nothing saved until Import,
every bad cell named by line and column."""

import csv
import io
import re

import pytest
from django.urls import reverse

from accounts.roles import Role
from planner.models import Price
from planner.prices.csv_rows import CSV_COLUMNS
from planner.prices.services import price_update
from planner.prices.views import csv_files
from tests.planner.prices.common import csv_of, upload

pytestmark = pytest.mark.django_db

IMPORT = reverse("planner:price_import")
EXPORT = reverse("planner:price_export")
RACK = {
    "kind": "purchase",
    "item_kind": "rack",
    "item_name": "APC NetShelter SX 48U",
    "amount": "1650",
    "currency": "USD",
    "price_date": "2026-11-02",
    "source": "quote from Example Racks, ref R-48",
    "depreciation_years": "10",
}


def test_a_good_file_is_previewed_first_and_imported_on_confirmation(cast, alpha):
    client = cast.browser(cast[Role.PLANNER])
    preview = client.post(IMPORT, {"file": upload(csv_of(RACK))})
    body = preview.content.decode()
    assert "Every row is valid: 1 to add, 0 to change, 0 already as saved." in body
    assert "Import 1 row" in body
    assert not Price.objects.exists()

    token = preview.context["token"]
    done = client.post(IMPORT, {"token": token})
    assert done.status_code == 302
    rack = Price.objects.get()
    assert (rack.team, rack.item_name, rack.depreciation_years) == (alpha, RACK["item_name"], 10)
    listing = client.get(done["Location"]).content.decode()
    assert "Imported 1 price: 1 added, 0 changed." in listing
    assert client.post(IMPORT, {"token": token}).status_code == 400  # spent


def test_a_bad_file_is_refused_whole_naming_line_and_field(cast):
    data = csv_of(RACK, {**RACK, "item_name": ""}, {**RACK, "amount": "lots"})
    response = cast.browser(cast[Role.PLANNER]).post(IMPORT, {"file": upload(data)})
    body = response.content.decode()
    assert response.context["token"] is None and "Import 3 rows" not in body
    assert "2 rows have problems; fix the file and upload it again." in body
    line3 = re.search(r'<tr id="line-3" class="bad-row">.*?</tr>', body, re.S).group(0)
    assert "Line 3, item_name: Name the rack (model or description)." in line3
    line4 = re.search(r'<tr id="line-4" class="bad-row">.*?</tr>', body, re.S).group(0)
    assert "Line 4, amount: &#x27;lots&#x27; is not a number" in line4
    assert '<td class="bad-cell">lots</td>' in line4
    assert '<tr id="line-2" class="good-row">' in body
    assert not Price.objects.exists()


def test_an_upload_token_is_good_only_in_the_session_that_checked_it(cast):
    planner = cast.browser(cast[Role.PLANNER])
    token = planner.post(IMPORT, {"file": upload(csv_of(RACK))}).context["token"]
    assert cast.browser(cast["outsider"]).post(IMPORT, {"token": token}).status_code == 400
    assert not Price.objects.exists()


def test_a_change_between_preview_and_import_imports_nothing(cast, quote):
    client = cast.browser(cast[Role.PLANNER])
    exported = client.get(EXPORT).content.replace(b"12500", b"12000")
    token = client.post(IMPORT, {"file": upload(exported)}).context["token"]
    price_update(price=Price.objects.get(pk=quote.pk), user=cast[Role.ADMIN], notes="new")
    response = client.post(IMPORT, {"token": token})
    assert response.status_code == 409
    assert "nothing was imported" in response.content.decode()
    assert Price.objects.get(pk=quote.pk).amount == 12500


def test_exports_are_csv_attachments_of_the_team_or_of_the_reference(cast, quote, reference_price):
    client = cast.browser(cast[Role.VIEWER])
    team = client.get(EXPORT)
    assert team["Content-Type"] == "text/csv; charset=utf-8"
    assert team["Content-Disposition"] == 'attachment; filename="alpha-prices.csv"'
    rows = list(csv.reader(io.StringIO(team.content.decode())))
    assert rows[0] == CSV_COLUMNS and [row[0] for row in rows[1:]] == [str(quote.pk)]

    reference = client.get(f"{EXPORT}?which=reference")
    rows = list(csv.reader(io.StringIO(reference.content.decode())))
    assert len(rows) == 2 and rows[1][0] == "" and rows[1][3] == "amd-mi300x"


def test_the_reference_export_imports_as_the_teams_own_prices(cast, alpha, reference_price):
    client = cast.browser(cast[Role.PLANNER])
    exported = client.get(f"{EXPORT}?which=reference").content
    token = client.post(IMPORT, {"file": upload(exported)}).context["token"]
    client.post(IMPORT, {"token": token})
    copy = Price.objects.get(team=alpha)
    assert (copy.accelerator, copy.amount, copy.source) == (
        reference_price.accelerator,
        reference_price.amount,
        reference_price.source,
    )


def test_pending_uploads_in_the_session_are_capped(cast):
    client = cast.browser(cast[Role.PLANNER])
    tokens = [
        client.post(IMPORT, {"file": upload(csv_of(RACK))}).context["token"] for _ in range(4)
    ]
    pending = client.session[csv_files.PENDING_IMPORTS.session_key]
    assert list(pending) == tokens[1:]
