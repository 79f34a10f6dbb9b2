"""Capex, energy, TCO and renting against buying, in whatever currency the prices are in."""

import pytest

from planner.engine.cost import HOURS_PER_YEAR, cost

EIGHT_CARDS = {"nodes": 2, "accelerators_per_node": 8, "server_power_kw": 10, "pue": 1.5}


def test_capex_adds_the_cards_to_a_bare_chassis_price():
    # 50,000 cannot be a server with eight 30,000 cards in it: it is the chassis alone.
    c = cost(
        **EIGHT_CARDS,
        accelerator_price=30_000,
        server_price=50_000,
        price_per_kwh=None,
        years=4,
    )
    assert c.capex == 2 * (50_000 + 8 * 30_000)
    assert c.notes == ()


def test_capex_takes_a_server_price_that_covers_its_cards_as_it_is():
    # 300,000 is more than eight 30,000 cards: the cards are in it.
    c = cost(
        **EIGHT_CARDS,
        accelerator_price=30_000,
        server_price=300_000,
        price_per_kwh=None,
        years=4,
    )
    assert c.capex == 2 * 300_000


def test_cost_adds_energy_over_the_years_and_finds_the_rent_breakeven():
    c = cost(
        **EIGHT_CARDS,
        accelerator_price=25_000,
        server_price=None,
        price_per_kwh=0.1,
        years=4,
        rent_per_gpu_hour=2.0,
    )
    # Cards plus a quarter for the rest of the server (HGX systems: cards are 75-80 %).
    assert c.capex == pytest.approx(2 * 8 * 25_000 * 1.25)
    # Two 10 kW servers at PUE 1.5 around the clock: 30 kW x 8,760 h x 0.1.
    assert c.energy_per_year == pytest.approx(2 * 10 * 1.5 * 8760 * 0.1)
    assert c.tco == pytest.approx(c.capex + 4 * c.energy_per_year)
    monthly_rent = 2.0 * 16 * HOURS_PER_YEAR / 12
    assert c.rent_per_year == pytest.approx(12 * monthly_rent)
    assert c.breakeven_months == pytest.approx(c.capex / (monthly_rent - c.energy_per_year / 12))
    assert c.notes[0].code == "cost.server_price_unknown"
    assert c.notes[0].params["share_percent"] == pytest.approx(25)


def test_renting_that_costs_less_than_the_power_never_breaks_even():
    # 0.01 per GPU-hour is 1,402 a year for 16 cards; the power alone costs 26,280.
    c = cost(
        **EIGHT_CARDS,
        accelerator_price=25_000,
        server_price=None,
        price_per_kwh=0.1,
        years=4,
        rent_per_gpu_hour=0.01,
    )
    assert c.breakeven_months is None


def test_utilisation_scales_energy_and_rent_alike():
    full, half = (
        cost(
            **EIGHT_CARDS,
            accelerator_price=25_000,
            server_price=None,
            price_per_kwh=0.1,
            years=4,
            rent_per_gpu_hour=2.0,
            utilisation=u,
        )
        for u in (1.0, 0.5)
    )
    assert half.energy_per_year == pytest.approx(full.energy_per_year / 2)
    assert half.rent_per_year == pytest.approx(full.rent_per_year / 2)
    assert half.capex == full.capex


def test_cost_without_prices_says_so():
    c = cost(
        nodes=1,
        accelerators_per_node=8,
        accelerator_price=None,
        server_price=None,
        server_power_kw=10,
        pue=1.2,
        price_per_kwh=None,
        years=3,
    )
    assert c.capex is None and c.tco is None and c.notes[0].code == "cost.no_price"


def test_the_answer_rounds_money_to_cents_and_months_to_one_decimal():
    c = cost(
        nodes=1,
        accelerators_per_node=1,
        accelerator_price=999.999,
        server_price=None,
        server_power_kw=0.5,
        pue=1.0,
        price_per_kwh=0.1,
        years=1,
        rent_per_gpu_hour=1.0,
    )
    out = c.as_dict()
    assert c.capex == pytest.approx(1249.99875)
    assert out["capex"] == 1250.0  # 999.999 x 1.25 = 1249.99875, to the cent
    assert out["breakeven_months"] == round(c.breakeven_months, 1)
    assert out["notes"] == [note.as_dict() for note in c.notes]
