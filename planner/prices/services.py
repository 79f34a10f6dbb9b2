"""Writes to the price book: a team's own prices, copies of reference prices, retiring, CSV
import and export, and loading the shipped reference list. Every write goes through here, in a
transaction, with full model validation first and a compare-and-set on the version.

Who may write is checked here as well as at the edges: a team's prices by that team (planners;
the views and the API check the role), the reference list by admins only."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.roles import Role, has_role
from accounts.services import user_team
from planner.csv_import import import_checked, write_csv
from planner.models import Price
from planner.prices.cells import CatalogSlugs
from planner.prices.csv_rows import (
    CSV_COLUMNS,
    PriceCsvPreview,
    check_price_rows,
    export_row,
)
from planner.prices.reference import PRICES_DIR, ReferenceRow, read_reference_prices
from planner.versioning import save_checked, save_shipped, save_versioned

# What a copy takes from the price it copies: everything a person can edit.
COPIED_FIELDS = [
    f.name
    for f in Price._meta.concrete_fields
    if f.editable and f.name not in {"id", "team", "created_by", "retired_at"}
]


def _require_may_change(*, user, price: Price) -> None:
    """Reference prices change only by an admin; a team's only by its own people (or an
    admin); retired prices stay as they were."""
    if price.retired_at is not None:
        raise ValidationError(_("This price is retired; copy it to use it again."))
    if has_role(user, Role.ADMIN):
        return
    if price.team_id is None:
        raise PermissionDenied(
            _("Reference prices are read-only; copy one into your team's prices to change it.")
        )
    team = user_team(user)
    if team is None or price.team_id != team.pk:
        raise PermissionDenied


@transaction.atomic
def price_create(*, team, user, **fields) -> Price:
    """A new price in `team`'s book."""
    return save_checked(Price(team=team, created_by=user), **fields)


@transaction.atomic
def price_update(*, price: Price, user, **fields) -> Price:
    """Change a price that still stands at `price.version`, the version the caller read;
    otherwise StaleVersionError, and nothing is written. Reference prices: admins only."""
    _require_may_change(user=user, price=price)
    return save_checked(price, **fields)


@transaction.atomic
def price_copy(*, price: Price, team, user, **changes) -> Price:
    """A new price in `team`'s book starting from `price` (a reference price, or one of the
    team's own), with `changes` applied: how a quote is entered over a public price."""
    if price.team_id is not None and price.team_id != team.pk and not has_role(user, Role.ADMIN):
        raise PermissionDenied
    values = {name: getattr(price, name) for name in COPIED_FIELDS}
    return save_checked(
        Price(team=team, created_by=user, copied_from=price), **{**values, **changes}
    )


@transaction.atomic
def price_retire(*, price: Price, user) -> Price:
    """Take a price still at the version the caller read out of every price book. It stays,
    with its history, and can be copied."""
    _require_may_change(user=user, price=price)
    price.retired_at = timezone.now()
    save_versioned(price)
    return price


# --- CSV -------------------------------------------------------------------------------------


def price_csv_preview(*, team, data: bytes) -> PriceCsvPreview:
    """Read a CSV of prices for `team` and check every row without saving anything: a row with
    an id changes that price of the team's, a row without adds one."""
    return check_price_rows(team=team, data=data)


@transaction.atomic
def price_import_csv(
    *, team, user, data: bytes, expected_versions: dict[str, int]
) -> PriceCsvPreview:
    """Import every row or none. The team's prices are locked first, the file checked again,
    and the versions of the prices it changes compared with what the preview showed
    (`expected_versions`, the preview's `versions`): if any changed since, nothing is imported
    and StaleVersionError says so."""

    def save_row(row) -> None:
        if row.price is None or row.action == "unchanged":
            return
        if row.price.pk is None:
            row.price.created_by = user
        save_versioned(row.price)

    return import_checked(
        Price.objects.filter(team=team),
        lambda: check_price_rows(team=team, data=data),
        save_row,
        expected_versions=expected_versions,
        changed="The team's prices changed since the preview.",
    )


def price_export_csv(*, prices: Iterable[Price]) -> str:
    """The prices as the import reads them. A team's own prices keep their id, so the file
    imports back as changes; reference prices have none, so importing them adds them to the
    team's own prices."""
    return write_csv(CSV_COLUMNS, (export_row(price) for price in prices))


# --- the reference list ----------------------------------------------------------------------

# The fields the reference files set; a load compares them, an update copies them.
REFERENCE_FIELDS = [
    f.attname for f in Price._meta.concrete_fields if f.editable and f.name not in {"id"}
]


@dataclass(frozen=True)
class ReferenceLoad:
    counts: dict[str, dict[str, int]]  # file -> created, updated, unchanged
    retired: int  # reference rows whose ref left the files

    @property
    def totals(self) -> dict[str, int]:
        return {
            outcome: sum(tally[outcome] for tally in self.counts.values())
            for outcome in ("created", "updated", "unchanged")
        }


def _validated(row: ReferenceRow, price: Price) -> Price:
    try:
        # Refs are unique by construction: read_reference_prices refuses a repeated one.
        price.full_clean(exclude=["reference_key"])
    except ValidationError as exc:
        field, messages = next(iter(exc.message_dict.items()))
        raise row.error(None if field == "__all__" else field, "; ".join(messages)) from None
    return price


@transaction.atomic
def price_reference_load(*, data_dir: Path = PRICES_DIR) -> ReferenceLoad:
    """Upsert the shipped reference list by its `ref` keys, in one transaction; reference rows
    whose ref left the files are retired. Loading twice changes nothing. A bad row (a catalog
    item that is missing included) raises CatalogDataError naming file, line and column, and
    nothing changes. An admin's edit of a reference price lasts until the next load."""
    rows = read_reference_prices(data_dir)
    catalog = CatalogSlugs.load()
    saved = {p.reference_key: p for p in Price.objects.filter(team=None).exclude(reference_key="")}
    counts = {
        name: dict.fromkeys(("created", "updated", "unchanged"), 0)
        for name in sorted({row.path.name for row in rows})
    }
    for row in rows:
        fresh = _validated(row, row.instance(catalog))
        outcome = save_shipped(saved.pop(row.key, None), fresh, REFERENCE_FIELDS, retired_at=None)
        counts[row.path.name][outcome] += 1
    retired = 0
    for gone in saved.values():
        if gone.retired_at is None:
            gone.retired_at = timezone.now()
            save_versioned(gone)
            retired += 1
    return ReferenceLoad(counts, retired)
