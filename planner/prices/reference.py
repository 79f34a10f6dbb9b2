"""The shipped reference list: catalog/data/prices/rent.csv and purchase.csv, public prices, each
with the URL it was read from and the day it was read.

`manage.py loadprices` (planner.prices.services.price_reference_load) loads them as prices with
no team, which every team reads and none changes; a team's own prices override them for that
team only. Any problem is a CatalogDataError naming the file, the line and the column.

- rent.csv: one rate per row, per accelerator-hour as `amount_per_accelerator_hour`; where the
  source quotes the instance, `amount_per_instance_hour` is what it says and the per-card rate is
  that divided by `accelerators_per_instance` (the loader checks the two agree).
- purchase.csv: one price per unit, with its `basis`: a launch MSRP, a vendor list price, or a
  reported figure (press, analysts, catalogs).
- `price_date` is the date the source gives; when it gives none the cell is empty and the
  price date is the day it was read, as the notes then say. A month or a year means its first
  day. `ref` is the row's lasting key: change a price in place, keep its ref."""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

from django.core.exceptions import ValidationError

from catalog.loader import DATA_DIR, CatalogDataError, read_text
from planner.choices import PriceItem, PriceKind
from planner.models import Price
from planner.prices.cells import (
    CatalogSlugs,
    parse_amount,
    parse_day,
    parse_optional_amount,
    parse_optional_day,
    parse_optional_whole,
)

PRICES_DIR = DATA_DIR / "prices"
RENT_COLUMNS = [
    "ref",
    "accelerator",
    "provider",
    "region",
    "terms",
    "instance",
    "accelerators_per_instance",
    "amount_per_instance_hour",
    "amount_per_accelerator_hour",
    "currency",
    "price_date",
    "valid_until",
    "read_on",
    "source_url",
    "notes",
]
PURCHASE_COLUMNS = [
    "ref",
    "item_kind",
    *Price.ITEM_FIELDS,
    *Price.AMOUNT_FIELDS,
    "read_on",
    "basis",
    "source_url",
    "notes",
    *Price.PURCHASE_FIELDS,
]
# Columns a file may leave out.
OPTIONAL_COLUMNS = {
    "server",
    "fabric",
    "item_name",
    "support_share_per_year",
    "depreciation_years",
    "amount_per_instance_hour",
}
FILES = {
    "rent.csv": (PriceKind.RENT, RENT_COLUMNS),
    "purchase.csv": (PriceKind.PURCHASE, PURCHASE_COLUMNS),
}
BASIS_NOTES = {
    "msrp": "Launch MSRP.",
    "list": "Vendor list price.",
    "report": "Reported figure (press, analysts or a hardware catalog), not a vendor list price.",
}
UNDATED_NOTE = "The source gives no date; the price date is the day it was read."
# The per-card rate times the cards may miss the instance rate by this share: sources round the
# two separately (AWS Capacity Blocks: 39.33 per p5.48xlarge-hour, 4.916 per H100-hour).
INSTANCE_TOLERANCE = Decimal("0.005")
# The model field each column fills, where the names differ.
COLUMN_OF_FIELD = {
    PriceKind.RENT: {
        "amount": "amount_per_accelerator_hour",
        "source": "source_url",
        "instance_name": "instance",
    },
    PriceKind.PURCHASE: {"source": "source_url"},
}


@dataclass(frozen=True)
class ReferenceRow:
    path: Path
    line: int
    key: str
    kind: str
    values: dict[str, object]  # model field values, but catalog rows still as slugs:
    slugs: dict[str, str]  # column (accelerator, server, fabric) -> slug

    def error(self, field: str | None, message: str) -> CatalogDataError:
        """A problem with this row, naming the column the field comes from."""
        column = COLUMN_OF_FIELD[self.kind].get(field or "", field)
        return CatalogDataError(self.path, self.line, column, message)

    def instance(self, catalog: CatalogSlugs) -> Price:
        """The unsaved price, its catalog rows looked up; a missing one names its slug."""
        related = {}
        for column, slug in self.slugs.items():
            try:
                related[column] = catalog.get(column, slug)
            except ValidationError as exc:
                raise self.error(column, "; ".join(exc.messages)) from None
        return Price(team=None, reference_key=self.key, **self.values, **related)


class CellError(Exception):
    def __init__(self, column: str, message: str):
        self.column, self.message = column, message
        super().__init__(f"{column}: {message}")


def _cell(record: dict[str, str], column: str, parse: Callable[[str], Any]) -> Any:
    try:
        return parse(record.get(column, ""))
    except ValidationError as exc:
        raise CellError(column, "; ".join(exc.messages)) from None


def _text(value: str) -> str:
    return value.strip()


def _notes(record: dict[str, str], *prefixes: str) -> str:
    return " ".join(filter(None, [*prefixes, record.get("notes", "").strip()]))


def _common_values(record: dict[str, str]) -> dict[str, object]:
    read_on = _cell(record, "read_on", parse_day)
    return {
        "currency": record["currency"].strip(),
        "price_date": _cell(record, "price_date", parse_optional_day) or read_on,
        "valid_until": _cell(record, "valid_until", parse_optional_day),
        "read_on": read_on,
        "source": record["source_url"].strip(),
    }


def _undated(record: dict[str, str]) -> str:
    return "" if record["price_date"].strip() else UNDATED_NOTE


def _rent_values(record: dict[str, str]) -> dict[str, object]:
    per_card = _cell(record, "amount_per_accelerator_hour", parse_amount)
    cards = _cell(record, "accelerators_per_instance", parse_optional_whole)
    per_instance = _cell(record, "amount_per_instance_hour", parse_optional_amount)
    gap = abs(per_card * cards - per_instance) if per_instance is not None and cards else 0
    if gap > INSTANCE_TOLERANCE * (per_instance or 0):
        raise CellError(
            "amount_per_instance_hour",
            f"{per_instance} per instance-hour is not {per_card} x {cards} cards",
        )
    return {
        "kind": PriceKind.RENT,
        "item_kind": PriceItem.ACCELERATOR,
        "provider": record["provider"].strip(),
        "region": record["region"].strip(),
        "terms": record["terms"].strip(),
        "instance_name": record["instance"].strip(),
        "accelerators_per_instance": cards,
        "amount": per_card,
        "notes": _notes(record, _undated(record)),
        **_common_values(record),
    }


def _purchase_values(record: dict[str, str]) -> dict[str, object]:
    basis = record["basis"].strip()
    if basis not in BASIS_NOTES:
        raise CellError("basis", f"{basis!r} is not one of {', '.join(BASIS_NOTES)}")
    return {
        "kind": PriceKind.PURCHASE,
        "item_kind": record["item_kind"].strip(),
        "item_name": record.get("item_name", "").strip(),
        "amount": _cell(record, "amount", parse_amount),
        "support_share_per_year": _cell(record, "support_share_per_year", parse_optional_amount),
        "depreciation_years": _cell(record, "depreciation_years", parse_optional_whole),
        "notes": _notes(record, BASIS_NOTES[basis], _undated(record)),
        **_common_values(record),
    }


def _check_header(path: Path, header: list[str], columns: list[str]) -> None:
    for column in header:
        if column not in columns:
            raise CatalogDataError(path, 1, column, "unknown column")
    for column in columns:
        if column not in header and column not in OPTIONAL_COLUMNS:
            raise CatalogDataError(path, 1, column, "the header has no such column")


def _read_file(path: Path, kind: str, columns: list[str]) -> list[ReferenceRow]:
    rows = []
    with io.StringIO(read_text(path), newline="") as handle:
        reader = csv.DictReader(handle)
        _check_header(path, list(reader.fieldnames or []), columns)
        for record in reader:
            line = reader.line_num
            if None in record or any(value is None for value in record.values()):
                raise CatalogDataError(path, line, None, "wrong number of cells")
            record = {k: v for k, v in record.items() if k is not None}
            slugs = {
                c: record[c].strip()
                for c in ("accelerator", "server", "fabric")
                if record.get(c, "").strip()
            }
            try:
                values = (
                    _rent_values(record) if kind == PriceKind.RENT else _purchase_values(record)
                )
            except CellError as exc:
                raise CatalogDataError(path, line, exc.column, exc.message) from None
            key = record["ref"].strip()
            if not key:
                raise CatalogDataError(path, line, "ref", "every row needs a ref")
            rows.append(ReferenceRow(path, line, key, kind, values, slugs))
    return rows


def read_reference_prices(data_dir: Path = PRICES_DIR) -> list[ReferenceRow]:
    """Every row of the reference files, checked cell by cell (not yet against the catalog)."""
    rows: list[ReferenceRow] = []
    seen: dict[str, ReferenceRow] = {}
    for name, (kind, columns) in FILES.items():
        path = data_dir / name
        if not path.exists():
            raise CatalogDataError(path, None, None, "missing file")
        for row in _read_file(path, kind, columns):
            if row.key in seen:
                first = seen[row.key]
                raise CatalogDataError(
                    row.path,
                    row.line,
                    "ref",
                    f"{row.key!r} already given at {first.path.name}:{first.line}",
                )
            seen[row.key] = row
            rows.append(row)
    return rows
