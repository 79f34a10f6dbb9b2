"""Which price a plan uses, as plain values: no database. A team's valid price over the
reference, the newest over the older, the cheapest rent naming its provider."""

import datetime as dt
from decimal import Decimal

from planner.prices.book import PriceBook, PriceEntry, amount_in, is_expired, is_stale

ON = dt.date(2026, 12, 3)
CNY_PER_USD = 7.1


def entry(id_: int, amount: str, *, reference: bool = False, **changes) -> PriceEntry:
    values = {
        "id": id_,
        "kind": "purchase",
        "item_kind": "accelerator",
        "item": "amd-mi300x",
        "amount": Decimal(amount),
        "currency": "USD",
        "price_date": dt.date(2026, 6, 1),
        "valid_until": None,
        "source": "https://example.com",
        "is_reference": reference,
        "stale": False,
        "expired": False,
        **changes,
    }
    return PriceEntry(**values)


def rent(id_: int, amount: str, provider: str, **changes) -> PriceEntry:
    changes.setdefault("terms", "on_demand")
    return entry(
        id_, amount, kind="rent", item="nvidia-h100-sxm5-80gb", provider=provider, **changes
    )


def book(*entries: PriceEntry) -> PriceBook:
    return PriceBook.of(entries, on=ON, cny_per_usd=CNY_PER_USD)


def test_a_price_is_stale_after_a_year_and_expired_after_its_last_day():
    assert not is_stale(dt.date(2025, 12, 3), ON)  # 365 days: still within the year
    assert is_stale(dt.date(2025, 12, 2), ON)
    assert not is_expired(None, ON) and not is_expired(ON, ON)
    assert is_expired(ON - dt.timedelta(days=1), ON)


def test_a_teams_valid_price_wins_over_a_newer_reference_price():
    quote = entry(1, "12000", price_date=dt.date(2026, 3, 1))
    public = entry(2, "15000", reference=True, price_date=dt.date(2026, 9, 1))
    assert book(public, quote).purchase("accelerator", "amd-mi300x") == quote


def test_an_expired_team_price_gives_way_to_a_valid_reference_price():
    quote = entry(1, "12000", valid_until=dt.date(2026, 11, 30), expired=True)
    public = entry(2, "15000", reference=True)
    assert book(quote, public).purchase("accelerator", "amd-mi300x") == public


def test_with_nothing_valid_the_expired_price_stands_in_and_says_so():
    quote = entry(1, "12000", valid_until=dt.date(2026, 11, 30), expired=True)
    chosen = book(quote).purchase("accelerator", "amd-mi300x")
    assert chosen == quote and chosen.expired


def test_among_several_the_newest_then_the_dearer_wins():
    # CNBC's range for Blackwell, both of 2024-10-03: a plan budgets the high end.
    low = entry(1, "30000", reference=True, price_date=dt.date(2024, 10, 3))
    high = entry(2, "40000", reference=True, price_date=dt.date(2024, 10, 3))
    older = entry(3, "45000", reference=True, price_date=dt.date(2024, 6, 1))
    assert book(low, older, high).purchase("accelerator", "amd-mi300x") == high
    newest = entry(4, "20000", reference=True, price_date=dt.date(2025, 1, 1))
    assert book(low, high, newest).purchase("accelerator", "amd-mi300x") == newest


def test_a_system_is_looked_up_with_the_cards_it_comes_with():
    bare = entry(1, "90000", item_kind="system", item="hgx-server")
    with_cards = entry(
        2, "300000", item_kind="system", item="hgx-server", with_accelerator="amd-mi300x"
    )
    prices = book(bare, with_cards)
    assert prices.purchase("system", "hgx-server") == bare
    assert prices.purchase("system", "hgx-server", accelerator="amd-mi300x") == with_cards
    assert prices.purchase("system", "other-server") is None


def test_rent_is_the_cheapest_valid_on_demand_rate_and_names_its_provider():
    aws = rent(1, "6.88", "AWS", reference=True)
    lambda_ = rent(2, "3.99", "Lambda", reference=True)
    spot = rent(3, "2.46", "CoreWeave", reference=True, terms="spot")
    chosen = book(aws, lambda_, spot).rent("nvidia-h100-sxm5-80gb")
    assert (chosen.provider, chosen.amount) == ("Lambda", Decimal("3.99"))
    assert book(aws, lambda_, spot).rent("nvidia-h100-sxm5-80gb", "spot") == spot


def test_rent_compares_across_currencies_at_the_configured_rate():
    # 20 CNY at 7.1 CNY/USD is 2.82 USD: cheaper than 2.99 USD.
    cny = rent(1, "20", "Cheap Cloud", reference=True, currency="CNY")
    usd = rent(2, "2.99", "DigitalOcean", reference=True)
    assert book(usd, cny).rent("nvidia-h100-sxm5-80gb") == cny
    assert round(amount_in(cny, "USD", cny_per_usd=CNY_PER_USD), 2) == 2.82


def test_a_teams_own_rate_wins_over_cheaper_public_ones():
    negotiated = rent(1, "4.10", "AWS")
    public = rent(2, "2.69", "RunPod", reference=True)
    prices = book(public, negotiated)
    assert prices.rent("nvidia-h100-sxm5-80gb") == negotiated
    assert prices.rent_offers("nvidia-h100-sxm5-80gb") == (negotiated, public)


def test_one_offer_counts_once_at_its_newest_rate():
    old = rent(1, "3.49", "RunPod", reference=True, price_date=dt.date(2026, 10, 7))
    new = rent(2, "3.99", "RunPod", reference=True, price_date=dt.date(2026, 11, 9))
    assert book(old, new).rent_offers("nvidia-h100-sxm5-80gb") == (new,)


def test_a_card_with_no_rate_has_none():
    assert book().rent("huawei-ascend-910b") is None
    assert book().rent_offers("huawei-ascend-910b") == ()
