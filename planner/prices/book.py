"""A team's price book as plain values: which price a plan uses for each item, and why.

Nothing here touches the database: `planner.prices.selectors.price_book` turns rows into
`PriceEntry` values and hands them to `PriceBook.of`, and the cost model reads the book through
its lookups. Which price wins:

- purchase, per item: a team's still-valid price first, else a still-valid reference price;
  among several, the newest price date, then the dearer (two prices of one day are usually a
  range, and a plan should not count on the low end), then the last entered. Only when no
  price is valid does an expired one stand in, flagged `expired`.
- rent, per accelerator and terms: the team's still-valid rates if it has any, else the valid
  reference rates (expired ones only when no rate is valid); among them the cheapest, naming
  its provider. Each offer (provider, region, instance) counts once, at its newest price.

A price is stale when its date is more than a year before the book's day, and expired when its
valid-until day has passed."""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal

# A price older than this is shown with a warning: hardware and cloud prices move within a year.
STALE_AFTER = dt.timedelta(days=365)
ON_DEMAND = "on_demand"


def is_stale(price_date: dt.date, on: dt.date) -> bool:
    return price_date < on - STALE_AFTER


def is_expired(valid_until: dt.date | None, on: dt.date) -> bool:
    return valid_until is not None and valid_until < on


@dataclass(frozen=True)
class PriceEntry:
    """One price as a plan uses it. `amount` is per unit for a purchase and per
    accelerator-hour for rent, in `currency`."""

    id: int
    kind: str  # purchase | rent
    item_kind: str  # accelerator | server | system | nic | switch_port | cable | transceiver | rack
    item: str  # the catalog slug (accelerator, server or fabric), or the item name
    amount: Decimal
    currency: str
    price_date: dt.date
    valid_until: dt.date | None
    source: str
    is_reference: bool
    stale: bool
    expired: bool
    with_accelerator: str = ""  # a complete system: the slug of the cards it comes with
    provider: str = ""
    region: str = ""
    terms: str = ""  # rent only
    instance_name: str = ""
    accelerators_per_instance: int | None = None
    support_share_per_year: Decimal | None = None
    depreciation_years: int | None = None

    @property
    def key(self) -> tuple[str, str, str]:
        """What the price is for: item kind, item, and the cards of a complete system."""
        return (self.item_kind, self.item, self.with_accelerator)


def amount_in(entry: PriceEntry, currency: str, *, cny_per_usd: float) -> float:
    """The entry's amount in `currency`, at the one configured rate (catalog.currency)."""
    value = float(entry.amount)
    if entry.currency == currency:
        return value
    return (
        value * cny_per_usd if (entry.currency, currency) == ("USD", "CNY") else value / cny_per_usd
    )


def _purchase_rank(entry: PriceEntry) -> tuple:
    return (
        entry.expired,
        entry.is_reference,
        -entry.price_date.toordinal(),
        -entry.amount,
        -entry.id,
    )


def _newest_per_offer(entries: Iterable[PriceEntry]) -> list[PriceEntry]:
    offers: dict[tuple, PriceEntry] = {}
    for entry in entries:
        offer = (entry.is_reference, entry.provider, entry.region, entry.instance_name)
        kept = offers.get(offer)
        if kept is None or (entry.price_date, entry.id) > (kept.price_date, kept.id):
            offers[offer] = entry
    return list(offers.values())


@dataclass(frozen=True)
class PriceBook:
    """The prices one team's plans use on day `on`, best first per item."""

    on: dt.date
    cny_per_usd: float
    purchases: Mapping[tuple[str, str, str], tuple[PriceEntry, ...]]
    rents: Mapping[tuple[str, str], tuple[PriceEntry, ...]]  # (accelerator, terms)

    @classmethod
    def of(cls, entries: Iterable[PriceEntry], *, on: dt.date, cny_per_usd: float) -> PriceBook:
        purchases: dict[tuple[str, str, str], list[PriceEntry]] = defaultdict(list)
        rents: dict[tuple[str, str], list[PriceEntry]] = defaultdict(list)
        for entry in entries:
            if entry.kind == "rent":
                rents[(entry.item, entry.terms)].append(entry)
            else:
                purchases[entry.key].append(entry)

        def rent_rank(entry: PriceEntry) -> tuple:
            usd = amount_in(entry, "USD", cny_per_usd=cny_per_usd)
            return (entry.expired, entry.is_reference, usd, -entry.price_date.toordinal(), entry.id)

        return cls(
            on=on,
            cny_per_usd=cny_per_usd,
            purchases={k: tuple(sorted(v, key=_purchase_rank)) for k, v in purchases.items()},
            rents={k: tuple(sorted(_newest_per_offer(v), key=rent_rank)) for k, v in rents.items()},
        )

    def purchase(self, item_kind: str, slug: str, *, accelerator: str = "") -> PriceEntry | None:
        """The price to pay for one unit of an item: `purchase("accelerator", "amd-mi300x")`,
        `purchase("switch_port", "ib-ndr-400")`, `purchase("rack", "APC AR3300")`; a complete
        system whose cards were chosen names them: `purchase("system", s, accelerator=a)`."""
        found = self.purchases.get((item_kind, slug, accelerator))
        return found[0] if found else None

    def best_of(self, item_kind: str) -> PriceEntry | None:
        """The price of an item of a kind where any one will do (a rack enclosure): the best
        of every item's best, ranked as `purchase` ranks one item's prices."""
        firsts = [found[0] for key, found in self.purchases.items() if key[0] == item_kind]
        return min(firsts, key=_purchase_rank, default=None)

    def rent(self, accelerator_slug: str, terms: str = ON_DEMAND) -> PriceEntry | None:
        """The cheapest rate per accelerator-hour on `terms` (the entry names its provider),
        from the team's own rates when it has any valid one."""
        offers = self.rent_offers(accelerator_slug, terms)
        return offers[0] if offers else None

    def rent_offers(self, accelerator_slug: str, terms: str = ON_DEMAND) -> tuple[PriceEntry, ...]:
        """Every rate for the card on `terms`, best first as `rent` ranks them."""
        return self.rents.get((accelerator_slug, terms), ())

    def amount_in(self, entry: PriceEntry, currency: str) -> float:
        return amount_in(entry, currency, cny_per_usd=self.cny_per_usd)
