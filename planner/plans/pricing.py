"""A team's price book as the cost model reads it: every price the plan may use, converted to
the plan's currency and still naming its row, source and date."""

from __future__ import annotations

from planner.engine.cost import PriceList, UnitPrice
from planner.prices.book import ON_DEMAND, PriceBook, PriceEntry

# The scale-out network items a build may need, by the price book's item kinds.
NETWORK_KINDS = ("nic", "switch_port", "cable", "transceiver")


def unit_price(entry: PriceEntry, book: PriceBook, currency: str) -> UnitPrice:
    return UnitPrice(
        amount=book.amount_in(entry, currency),
        origin="reference" if entry.is_reference else "team",
        source=entry.source,
        price_date=entry.price_date.isoformat(),
        currency=entry.currency,
        own_amount=float(entry.amount),
        price_id=entry.id,
        stale=entry.stale,
        expired=entry.expired,
        provider=entry.provider,
        support_share_per_year=None
        if entry.support_share_per_year is None
        else float(entry.support_share_per_year),
        depreciation_years=entry.depreciation_years,
    )


def price_list(book: PriceBook, *, currency: str, rent_per_gpu_hour: float | None) -> PriceList:
    """Each item's winning price (planner.prices.book says which wins). A rent rate given in
    the question stands for every card, marked as the question's."""
    accelerators, servers, systems, network = {}, {}, {}, {}
    for (item_kind, item, cards), entries in book.purchases.items():
        price = unit_price(entries[0], book, currency)
        if item_kind == "accelerator":
            accelerators[item] = price
        elif item_kind == "server":
            servers[item] = price
        elif item_kind == "system":
            systems[(item, cards)] = price
        elif item_kind in NETWORK_KINDS:
            network[(item_kind, item)] = price
    rack = book.best_of("rack")
    rent = {
        slug: unit_price(offers[0], book, currency)
        for (slug, terms), offers in book.rents.items()
        if terms == ON_DEMAND and offers and rent_per_gpu_hour is None
    }
    given = None
    if rent_per_gpu_hour is not None:
        given = UnitPrice(amount=rent_per_gpu_hour, origin="question", source="", currency=currency)
    return PriceList(
        accelerators=accelerators,
        servers=servers,
        systems=systems,
        network=network,
        rack=None if rack is None else unit_price(rack, book, currency),
        rent=rent,
        rent_for_any=given,
    )
