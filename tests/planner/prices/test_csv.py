"""CSV import and export of a team's prices: the whole file or nothing, every problem named by
line and column, and an export that imports back as the same prices."""

import csv
import datetime as dt
import io
from decimal import Decimal

import pytest

from accounts.roles import Role
from planner.models import Price
from planner.prices.csv_rows import CSV_COLUMNS
from planner.prices.services import (
    price_csv_preview,
    price_export_csv,
    price_import_csv,
    price_update,
)
from planner.versioning import StaleVersionError
from tests.factories import FabricFactory
from tests.planner.prices.common import HEADER, csv_of

pytestmark = pytest.mark.django_db

RENT = {
    "kind": "rent",
    "item_kind": "accelerator",
    "accelerator": "amd-mi300x",
    "amount": "1.85",
    "currency": "USD",
    "price_date": "2026-11-01",
    "source": "quote from Vultr, ref V-9",
    "provider": "Vultr",
    "terms": "reserved_1y",
}
SWITCH_PORT = {
    "kind": "purchase",
    "item_kind": "switch_port",
    "fabric": "ib-ndr-400",
    "item_name": "QM9700 port",
    "amount": "1200",
    "currency": "CNY",
    "price_date": "2026-10-15",
    "valid_until": "2027-01-15",
    "source": "quote from Example Networks, ref N-3",
    "support_share_per_year": "0.12",
    "depreciation_years": "5",
}


@pytest.fixture
def fabric():
    return FabricFactory(slug="ib-ndr-400", name="InfiniBand NDR")


def test_a_good_file_previews_every_row_and_imports_them_all(alpha, cast, card, fabric):
    data = csv_of(RENT, SWITCH_PORT)
    preview = price_csv_preview(team=alpha, data=data)
    assert preview.ok and preview.actions == {"add": 2, "change": 0, "unchanged": 0}
    assert not Price.objects.exists()  # the preview saves nothing

    price_import_csv(team=alpha, user=cast[Role.PLANNER], data=data, expected_versions={})
    port = Price.objects.get(item_kind="switch_port")
    assert (port.team, port.fabric, port.amount, port.currency) == (alpha, fabric, 1200, "CNY")
    assert port.created_by == cast[Role.PLANNER]
    assert Price.objects.get(kind="rent").terms == "reserved_1y"


def test_one_bad_row_refuses_the_whole_file_naming_line_and_field(alpha, cast, card, fabric):
    data = csv_of(
        RENT,
        {**SWITCH_PORT, "amount": "-3"},
        {**RENT, "accelerator": "nvidia-h999"},
        {**RENT, "terms": ""},
        {**SWITCH_PORT, "price_date": "15/10/2026"},
    )
    preview = price_csv_preview(team=alpha, data=data)
    assert not preview.ok
    errors = {row.line: row.errors for row in preview.rows}
    assert errors[2] == {}
    assert errors[3] == {"amount": ["Ensure this value is greater than or equal to 0."]}
    assert errors[4] == {"accelerator": ["no accelerator 'nvidia-h999' in the catalog"]}
    assert "terms" in errors[5]
    assert errors[6] == {"price_date": ["'15/10/2026' is not a date (YYYY-MM-DD)"]}

    result = price_import_csv(team=alpha, user=cast[Role.PLANNER], data=data, expected_versions={})
    assert not result.ok
    assert not Price.objects.exists()  # not even the good first row


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        (b"\xff\xfe\x00\x81" * 10, "The file is not UTF-8 text."),
        (b"kind,amount\x00\n", "The file contains binary data, not CSV text."),
        (b"price,eur\n1,2\n", "Missing columns: kind, item_kind, amount, currency,"),
        (HEADER.encode() + b"\n", "The file has a header but no rows."),
        (b"x" * (256 * 1024 + 1), "The file is 256 KiB; the limit is 256 KiB."),
    ],
)
def test_hostile_files_are_refused_as_a_whole(alpha, data, problem):
    preview = price_csv_preview(team=alpha, data=data)
    assert not preview.ok and preview.errors[0].startswith(problem)


def test_a_text_cell_starting_with_a_formula_character_is_refused(alpha, card):
    data = csv_of({**RENT, "provider": '=HYPERLINK("http://evil.example")'})
    preview = price_csv_preview(team=alpha, data=data)
    assert preview.rows[0].errors == {
        "provider": ["starts with a formula character; write plain text"]
    }


def test_rows_past_the_cap_refuse_the_file(alpha, card, monkeypatch):
    monkeypatch.setattr("planner.csv_import.CSV_MAX_ROWS", 2)
    preview = price_csv_preview(team=alpha, data=csv_of(RENT, RENT, RENT))
    assert preview.errors == ["More than 2 rows; split the file."]


def test_an_id_changes_only_a_price_of_the_importing_team(alpha, beta, cast, quote, card):
    other_team = price_csv_preview(team=beta, data=csv_of({**RENT, "id": quote.pk}))
    assert other_team.rows[0].errors["id"][0].startswith(f"no price {quote.pk} among")
    twice = price_csv_preview(
        team=alpha, data=csv_of({**RENT, "id": quote.pk}, {**RENT, "id": quote.pk})
    )
    assert twice.rows[1].errors["id"] == ["also on line 2"]


def test_an_import_checks_the_versions_its_preview_showed(alpha, cast, quote):
    exported = price_export_csv(prices=[quote]).replace("12500", "12000").encode()
    preview = price_csv_preview(team=alpha, data=exported)
    assert preview.versions == {str(quote.pk): 1}
    assert preview.actions == {"add": 0, "change": 1, "unchanged": 0}

    # Someone changes the quote between the preview and the import.
    price_update(
        price=Price.objects.get(pk=quote.pk),
        user=cast[Role.PLANNER],
        notes="renegotiated",
    )
    with pytest.raises(StaleVersionError):
        price_import_csv(
            team=alpha,
            user=cast[Role.PLANNER],
            data=exported,
            expected_versions=preview.versions,
        )
    assert Price.objects.get(pk=quote.pk).amount == Decimal("12500")


def test_an_export_imports_back_as_the_same_prices_changing_nothing(
    alpha, cast, quote, reference_price
):
    exported = price_export_csv(prices=[quote, reference_price])
    rows = list(csv.reader(io.StringIO(exported)))
    assert rows[0] == CSV_COLUMNS
    assert rows[1][:3] == [str(quote.pk), "purchase", "accelerator"]
    assert rows[2][0] == ""  # a reference price has no id: it imports as a new price
    assert rows[1][CSV_COLUMNS.index("amount")] == "12500"

    own = price_export_csv(prices=[quote]).encode()
    preview = price_csv_preview(team=alpha, data=own)
    assert preview.actions == {"add": 0, "change": 0, "unchanged": 1}
    price_import_csv(
        team=alpha, user=cast[Role.PLANNER], data=own, expected_versions=preview.versions
    )
    assert Price.objects.get(pk=quote.pk).version == 1  # nothing was written


def test_export_quotes_cells_a_spreadsheet_would_run(alpha, cast, card):
    price = Price.objects.create(
        team=alpha,
        kind="purchase",
        item_kind="rack",
        item_name="=cmd|' /C calc'!A0",
        amount=Decimal("900"),
        currency="USD",
        price_date=dt.date(2026, 11, 1),
        source="quote from Racks Ltd, ref R-1",
    )
    row = list(csv.reader(io.StringIO(price_export_csv(prices=[price]))))[1]
    assert row[CSV_COLUMNS.index("item_name")] == "'=cmd|' /C calc'!A0"
