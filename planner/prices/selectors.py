"""Reads of prices, always through what a user may see, and a team's price book.

Every team reads the reference list (prices with no team) and its own prices; no team sees
another's quotes (their pages and API answer 404). Admins see every price."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from django.conf import settings
from django.db.models import Q, QuerySet
from django.utils import timezone

from planner.choices import NETWORK_ITEMS, PriceItem, PriceKind
from planner.models import Price
from planner.prices.book import PriceBook, PriceEntry, is_expired, is_stale
from planner.visibility import team_and_shipped_rows, team_rows_editable_by


def price_visible_to(user) -> QuerySet[Price]:
    """The team's own prices and the reference list; admins see every price. Retired prices
    included: lists leave them out unless asked (PriceFilterSet)."""
    prices = Price.objects.select_related("accelerator", "server", "fabric", "team")
    return team_and_shipped_rows(prices, user)


def price_editable_by(user) -> QuerySet[Price]:
    """Prices a user may change or retire: planners their own team's, admins every one."""
    return team_rows_editable_by(Price.objects.all(), user)


@dataclass(frozen=True)
class PriceAge:
    """What a page warns about a price on a given day."""

    stale: bool  # more than a year old
    expired: bool  # past its valid-until day


def price_age(price: Price, *, on: dt.date | None = None) -> PriceAge:
    on = on or timezone.localdate()
    return PriceAge(is_stale(price.price_date, on), is_expired(price.valid_until, on))


def item_key(price: Price) -> tuple[str, str, str]:
    """(item kind, item, cards of a system): the item a price is for, as the book keys it. The
    item is the catalog slug, or the item name where no catalog row is named."""
    if price.item_kind == PriceItem.ACCELERATOR:
        item = price.accelerator.slug
    elif price.item_kind in (PriceItem.SERVER, PriceItem.SYSTEM):
        item = price.server.slug
    elif price.item_kind in NETWORK_ITEMS and price.fabric_id:
        item = price.fabric.slug
    else:
        item = price.item_name
    cards = (
        price.accelerator.slug
        if price.item_kind == PriceItem.SYSTEM and price.accelerator_id
        else ""
    )
    return (price.item_kind, item, cards)


def price_entry(price: Price, *, on: dt.date) -> PriceEntry:
    item_kind, item, cards = item_key(price)
    return PriceEntry(
        id=price.pk,
        kind=price.kind,
        item_kind=item_kind,
        item=item,
        with_accelerator=cards,
        amount=price.amount,
        currency=price.currency,
        price_date=price.price_date,
        valid_until=price.valid_until,
        source=price.source,
        is_reference=price.team_id is None,
        stale=is_stale(price.price_date, on),
        expired=is_expired(price.valid_until, on),
        provider=price.provider,
        region=price.region,
        terms=price.terms,
        instance_name=price.instance_name,
        accelerators_per_instance=price.accelerators_per_instance,
        support_share_per_year=price.support_share_per_year,
        depreciation_years=price.depreciation_years,
    )


def price_book(*, team, on: dt.date | None = None) -> PriceBook:
    """The prices `team`'s plans use on day `on` (today by default): its own quotes over the
    reference list, per item, with provenance (planner.prices.book says which wins). Retired
    prices and prices dated after `on` take no part. `team=None` gives the reference alone."""
    on = on or timezone.localdate()
    owners = Q(team__isnull=True) if team is None else Q(team=team) | Q(team__isnull=True)
    rows = (
        Price.objects.filter(owners, retired_at__isnull=True, price_date__lte=on)
        .select_related("accelerator", "server", "fabric")
        .order_by("pk")
    )
    return PriceBook.of(
        (price_entry(price, on=on) for price in rows),
        on=on,
        cny_per_usd=float(settings.FLOPFIT_CNY_PER_USD),
    )


def price_in_use(*, price: Price, team) -> PriceEntry | None:
    """The entry `team`'s price book uses today for the item `price` is for: the price itself,
    or the one that wins over it (a team's quote over a reference price, a newer one)."""
    book = price_book(team=team)
    if price.kind == PriceKind.RENT:
        return book.rent(price.accelerator.slug, price.terms)
    item_kind, item, cards = item_key(price)
    return book.purchase(item_kind, item, accelerator=cards)
