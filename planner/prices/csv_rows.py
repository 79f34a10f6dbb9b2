"""A team's prices as CSV: the columns, and each row of an upload checked into an unsaved price.

The columns are the model's fields, catalog rows named by slug. A row with an `id` changes that
price of the team's (absent columns keep their value); a row without adds one. Nothing is saved
here: planner.prices.services imports the rows when every one is good."""

from __future__ import annotations

import copy
from collections import Counter
from dataclasses import dataclass
from decimal import Decimal

from django.core.exceptions import ValidationError

from planner.csv_import import CsvPreview, CsvRow, read_csv_rows
from planner.models import Price
from planner.prices.cells import (
    PARSED_COLUMNS,
    SLUG_COLUMNS,
    CatalogSlugs,
    parse_optional_whole,
)

CSV_COLUMNS = ["id", *Price.STATED_FIELDS]
REQUIRED_COLUMNS = ("kind", "item_kind", "amount", "currency", "price_date", "source")
OPTIONAL_COLUMNS = tuple(c for c in CSV_COLUMNS if c not in REQUIRED_COLUMNS)
# Left to their number check: "-5" there is a wrong number, not a formula.
NUMERIC_COLUMNS = (
    "id",
    "amount",
    "support_share_per_year",
    "depreciation_years",
    "accelerators_per_instance",
)
TEXT_COLUMNS = (
    "kind",
    "item_kind",
    "item_name",
    "currency",
    "source",
    "provider",
    "region",
    "terms",
    "instance_name",
    "notes",
)
# What an import compares to tell a change from a row that says what is saved already.
COMPARED = [
    f.attname
    for f in Price._meta.concrete_fields
    if f.editable and f.name not in {"id", "team", "created_by"}
]


@dataclass
class PriceCsvRow(CsvRow):
    price: Price | None = None
    action: str = ""  # add | change | unchanged


@dataclass
class PriceCsvPreview(CsvPreview):
    rows: list[PriceCsvRow]

    @property
    def versions(self) -> dict[str, int]:
        """The version of each price the file changes, by id (as text: the session keeps
        it as JSON). The import compares it with what the preview showed."""
        return {
            str(row.price.pk): row.price.version
            for row in self.rows
            if row.price is not None and row.price.pk is not None
        }

    @property
    def actions(self) -> dict[str, int]:
        """How many rows add a price, change one, or repeat what is saved."""
        counts = Counter(row.action for row in self.rows if row.price is not None)
        return {action: counts.get(action, 0) for action in ("add", "change", "unchanged")}


def _target(row: PriceCsvRow, team, own: dict[int, Price]) -> Price | None:
    raw = row.values.get("id", "")
    if not raw:
        return Price(team=team)
    try:
        pk = parse_optional_whole(raw)
    except ValidationError as exc:
        row.errors.setdefault("id", []).extend(exc.messages)
        return None
    if pk not in own:
        row.add_error("id", f"no price {raw} among your team's prices; leave it empty to add one")
        return None
    if own[pk].retired_at is not None:
        row.add_error("id", f"price {raw} is retired; leave the id empty to add it again")
        return None
    return copy.copy(own[pk])


def _fill(row: PriceCsvRow, price: Price, catalog: CatalogSlugs) -> None:
    values = row.values
    for column in TEXT_COLUMNS:
        if column in values:
            setattr(price, column, values[column])
    for column, parse in PARSED_COLUMNS.items():
        if column in values:
            try:
                setattr(price, column, parse(values[column]))
            except ValidationError as exc:
                row.errors.setdefault(column, []).extend(exc.messages)
    for column in SLUG_COLUMNS:
        if column in values:
            try:
                setattr(price, column, catalog.get(column, values[column]))
            except ValidationError as exc:
                row.errors.setdefault(column, []).extend(exc.messages)


def _check_row(row: PriceCsvRow, team, own: dict[int, Price], catalog: CatalogSlugs) -> None:
    price = _target(row, team, own)
    if price is None:
        return
    before = [getattr(price, name) for name in COMPARED] if price.pk else None
    _fill(row, price, catalog)
    if row.errors:
        return
    try:
        price.full_clean()
    except ValidationError as exc:
        row.add_validation_error(exc, columns=CSV_COLUMNS)
        return
    row.price = price
    if before is None:
        row.action = "add"
    else:
        row.action = "unchanged" if before == [getattr(price, n) for n in COMPARED] else "change"


def check_price_rows(*, team, data: bytes) -> PriceCsvPreview:
    """Every row of an upload checked against the model, the catalog and the team's prices."""
    read = read_csv_rows(
        data, columns=CSV_COLUMNS, optional=OPTIONAL_COLUMNS, numeric=NUMERIC_COLUMNS
    )
    rows = [PriceCsvRow(row.line, row.values, row.errors) for row in read.rows]
    if read.errors:
        return PriceCsvPreview(rows, read.errors)
    catalog = CatalogSlugs.load()
    own = {p.pk: p for p in Price.objects.filter(team=team)}
    ids_seen: dict[str, int] = {}
    for row in rows:
        if row.errors:
            continue
        _check_row(row, team, own, catalog)
        pk = row.values.get("id", "")
        if pk and pk in ids_seen:
            row.add_error("id", f"also on line {ids_seen[pk]}")
        if pk:
            ids_seen.setdefault(pk, row.line)
    return PriceCsvPreview(rows, [])


def _number(value: Decimal | None) -> str:
    """A decimal without trailing zeros: 1499, 2.744705, 0.15."""
    return "" if value is None else format(value.normalize(), "f")


def _day(value) -> str:
    return value.isoformat() if value else ""


def export_row(price: Price) -> list:
    """One price as an import row; a reference price without its id."""
    return [
        "" if price.is_reference else price.pk,
        price.kind,
        price.item_kind,
        price.accelerator.slug if price.accelerator_id else "",
        price.server.slug if price.server_id else "",
        price.fabric.slug if price.fabric_id else "",
        price.item_name,
        _number(price.amount),
        price.currency,
        _day(price.price_date),
        _day(price.valid_until),
        price.source,
        _day(price.read_on),
        _number(price.support_share_per_year),
        "" if price.depreciation_years is None else price.depreciation_years,
        price.provider,
        price.region,
        price.terms,
        price.instance_name,
        "" if price.accelerators_per_instance is None else price.accelerators_per_instance,
        price.notes,
    ]
