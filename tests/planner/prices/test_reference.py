"""The shipped reference list and `manage.py loadprices`: every row has its source and the day
it was read; loading is atomic and idempotent, and a bad row is named by file, line and column."""

import csv
import datetime as dt
import shutil
from decimal import Decimal
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from catalog.loader import CatalogDataError
from planner.history import history_of
from planner.models import Price
from planner.prices.reference import PRICES_DIR, read_reference_prices
from planner.prices.services import price_reference_load

ROWS = read_reference_prices()
RENTED = {row.slugs["accelerator"] for row in ROWS if row.kind == "rent"}
BOUGHT = {row.slugs["accelerator"] for row in ROWS if "accelerator" in row.slugs}
SYSTEMS = {row.slugs["server"] for row in ROWS if row.values.get("item_kind") == "system"}


@pytest.fixture
def prices_dir(tmp_path: Path) -> Path:
    """A private copy of the reference files that a test may edit."""
    target = tmp_path / "prices"
    shutil.copytree(PRICES_DIR, target)
    return target


def edit(path: Path, line: int, column: str, value: str) -> None:
    """Set one cell; `line` counts as an editor does, the header being line 1."""
    with path.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    rows[line - 1][rows[0].index(column)] = value
    with path.open("w", newline="", encoding="utf-8") as handle:
        csv.writer(handle, lineterminator="\n").writerows(rows)


# --- the data --------------------------------------------------------------------------------


def test_every_reference_price_says_where_it_was_read_and_when():
    assert len(ROWS) == 147  # 120 rent rates, 27 purchase prices
    for row in ROWS:
        assert row.values["source"].startswith(("http://", "https://")), row.key
        # Read on 3 December 2026; the desktop's price on the 4th.
        assert row.values["read_on"] in (dt.date(2026, 12, 3), dt.date(2026, 12, 4)), row.key
        assert row.values["price_date"] <= row.values["read_on"], row.key


def test_the_rent_list_covers_todays_data_centre_cards():
    # The cards most plans rent; Ascend 910B has no public rate (NOTES.md: not found).
    assert {
        "nvidia-a100-sxm4-80gb",
        "nvidia-h100-sxm5-80gb",
        "nvidia-h200-sxm-141gb",
        "nvidia-b200-sxm-180gb",
        "nvidia-l40s",
        "nvidia-l4",
        "amd-mi300x",
        "amd-mi355x",
        "nvidia-h200-nvl-141gb",
        "nvidia-a10",
        "intel-gaudi2",
    } <= RENTED
    assert "huawei-ascend-910b" not in RENTED
    assert {"nvidia-rtx-4090", "nvidia-rtx-5090", "intel-gaudi3"} <= BOUGHT
    # Complete systems sold whole, from reports (no vendor publishes a list price).
    assert {"nvidia-dgx-a100", "nvidia-dgx-h100", "nvidia-dgx-b200"} <= SYSTEMS


def test_rows_whose_instance_has_another_card_than_the_slug_are_left_out():
    # AWS p3 carries V100 16 GB (the slug is 32 GB); CoreWeave's GH200 is the 96 GB part.
    instances = {(row.values.get("provider"), row.values.get("instance_name")) for row in ROWS}
    assert ("AWS", "p3.16xlarge") not in instances
    assert ("CoreWeave", "GH200 (1x)") not in instances
    assert ("AWS", "p3dn.24xlarge") in instances


def test_stale_capacity_blocks_are_marked_past_their_validity():
    blocks = [row for row in ROWS if row.values.get("terms") == "capacity_block"]
    assert len(blocks) == 3
    for row in blocks:
        assert row.values["valid_until"] == dt.date(2024, 12, 31)
        assert row.values["notes"].startswith("STALE:")


def test_an_undated_source_takes_the_day_it_was_read_and_says_so():
    vast = next(row for row in ROWS if row.key == "rent-vast.ai-france-1x-h200-on-demand")
    assert vast.values["price_date"] == dt.date(2026, 12, 3)
    assert vast.values["notes"].startswith("The source gives no date")


def test_prices_keep_the_figures_their_sources_state():
    # AWS Price List via Karpenter, 2026-07-20: p5.48xlarge 55.04 USD/h for 8 H100 = 6.88.
    p5 = next(row for row in ROWS if row.key == "rent-aws-us-east-1-p5.48xlarge-on-demand")
    assert (p5.values["amount"], p5.values["accelerators_per_instance"]) == (Decimal("6.88"), 8)
    # A month or a year means its first day: the RTX 3090's launch MSRP, "2020".
    msrp = next(row for row in ROWS if row.key == "purchase-nvidia-rtx-3090-msrp-2020")
    assert (msrp.values["amount"], msrp.values["price_date"]) == (
        Decimal("1499"),
        dt.date(2020, 1, 1),
    )
    assert msrp.values["notes"].startswith("Launch MSRP.")


# --- loading ---------------------------------------------------------------------------------


def test_loadprices_loads_every_row_as_a_reference_price_and_twice_changes_nothing(
    loaded_catalog,
):
    out = StringIO()
    call_command("loadprices", stdout=out)
    assert "147 created, 0 updated, 0 unchanged, 0 retired" in out.getvalue()
    assert Price.objects.filter(team__isnull=True).count() == 147
    assert not Price.objects.filter(team__isnull=False).exists()

    out = StringIO()
    call_command("loadprices", stdout=out)
    assert "0 created, 0 updated, 147 unchanged, 0 retired" in out.getvalue()
    assert set(Price.objects.values_list("version", flat=True)) == {1}


def test_a_changed_row_updates_its_price_with_history_and_a_removed_one_is_retired(
    loaded_catalog, prices_dir
):
    price_reference_load(data_dir=prices_dir)
    rent = prices_dir / "rent.csv"
    edit(rent, 2, "amount_per_accelerator_hour", "2.5")
    edit(rent, 2, "amount_per_instance_hour", "20")
    lines = rent.read_text(encoding="utf-8").splitlines(keepends=True)
    removed_key = lines[2].split(",")[0]
    rent.write_text("".join(lines[:2] + lines[3:]), encoding="utf-8")

    load = price_reference_load(data_dir=prices_dir)
    assert load.counts["rent.csv"] == {"created": 0, "updated": 1, "unchanged": 118}
    assert load.retired == 1
    changed = Price.objects.get(reference_key="rent-aws-us-east-1-p4d.24xlarge-on-demand")
    assert (changed.amount, changed.version) == (Decimal("2.5"), 2)
    assert history_of(changed)[0]["changes"][0]["field"] == "amount"
    gone = Price.objects.get(reference_key=removed_key)
    assert gone.retired_at is not None


@pytest.mark.parametrize(
    ("file", "line", "column", "value", "message"),
    [
        ("rent.csv", 4, "amount_per_accelerator_hour", "cheap", "'cheap' is not a number"),
        ("rent.csv", 5, "price_date", "2026-13-01", "is not a date"),
        ("rent.csv", 6, "terms", "forever", "is not a valid choice"),
        ("rent.csv", 7, "amount_per_instance_hour", "99", "is not 14.2416 x 8 cards"),
        ("purchase.csv", 3, "basis", "rumour", "'rumour' is not one of msrp, list, report"),
        ("purchase.csv", 4, "amount", "-1", "greater than or equal to 0"),
        ("purchase.csv", 5, "source_url", "", "Say where the price comes from"),
    ],
)
def test_a_bad_row_stops_the_load_naming_file_line_and_column(
    loaded_catalog, prices_dir, file, line, column, value, message
):
    edit(prices_dir / file, line, column, value)
    with pytest.raises(CatalogDataError) as refused:
        price_reference_load(data_dir=prices_dir)
    error = refused.value
    assert (error.path.name, error.line, error.field) == (file, line, column)
    assert message in error.message
    assert not Price.objects.exists()  # nothing half-loaded


def test_a_price_of_an_item_missing_from_the_catalog_names_the_slug(loaded_catalog, prices_dir):
    edit(prices_dir / "purchase.csv", 3, "accelerator", "nvidia-rtx-9090")
    with pytest.raises(CommandError) as refused:
        call_command("loadprices", data_dir=prices_dir, stdout=StringIO())
    assert str(refused.value) == (
        "reference prices not loaded, nothing changed: "
        f"{prices_dir / 'purchase.csv'}, line 3, accelerator: "
        "no accelerator 'nvidia-rtx-9090' in the catalog"
    )
    assert not Price.objects.exists()


def test_a_ref_given_twice_is_refused(loaded_catalog, prices_dir):
    first = (prices_dir / "rent.csv").read_text(encoding="utf-8").splitlines()[1].split(",")[0]
    edit(prices_dir / "purchase.csv", 2, "ref", first)
    with pytest.raises(CatalogDataError) as refused:
        price_reference_load(data_dir=prices_dir)
    assert refused.value.field == "ref" and "already given at rent.csv:2" in refused.value.message


def test_the_fixture_loads_the_same_rows_as_the_command(reference_prices):
    assert Price.objects.filter(team__isnull=True).count() == len(reference_prices) == 147
