"""What a build costs, line by line, each line naming its price: capex, support, depreciation,
energy from busy and idle draw, TCO, the rent of the same job and the break-even month."""

import dataclasses

import pytest

from planner.engine.cost import (
    DEFAULT_DEPRECIATION_YEARS,
    HOURS_PER_YEAR,
    CostBuild,
    PriceList,
    UnitPrice,
    Usage,
    cost,
)
from planner.engine.cost.network import fat_tree
from planner.engine.messages import message


def price(amount: float, **kw) -> UnitPrice:
    kw.setdefault("origin", "reference")
    kw.setdefault("source", "https://example.com/list")
    return UnitPrice(amount=amount, **kw)


TRAINING = Usage(0.5, 2 * HOURS_PER_YEAR, message("usage.given", percent=50))
BUILD = CostBuild(
    accelerator="h100",
    server="hgx",
    nodes=2,
    per_node=8,
    whole_system=True,
    fabric="ib-ndr-400",
    fabric_radix=64,
    nic_ports=8,
    racks=None,
    busy_kw=10.0,
    idle_kw=2.0,
    pue=1.5,
    price_per_kwh=0.1,
    years=4,
    usage=TRAINING,
)
CARDS_AND_CHASSIS = PriceList(
    accelerators={"h100": price(25_000)},
    servers={"hgx": price(50_000)},
    rent={"h100": price(2.0, provider="Example Cloud")},
)


def lines_by_item(c):
    return {line.item: line for line in c.lines}


def test_cards_and_bare_servers_are_two_lines_each_naming_its_price():
    c = cost(BUILD, CARDS_AND_CHASSIS)
    lines = lines_by_item(c)
    assert (lines["accelerator"].quantity, lines["server"].quantity) == (16, 2)
    assert lines["accelerator"].amount == 16 * 25_000
    out = c.as_dict()["lines"][0]
    assert out["origin"] == "reference" and out["source"] == "https://example.com/list"
    # No network price in this book: the capex holds cards and servers and names what it
    # leaves out.
    assert c.capex == 16 * 25_000 + 2 * 50_000
    assert {"nic", "switch_port", "cable"} <= set(c.as_dict()["missing"])
    assert c.notes[0].code == "cost.left_out"


def test_a_complete_system_price_is_one_line_and_brings_its_own_nics():
    prices = dataclasses.replace(
        CARDS_AND_CHASSIS,
        systems={("hgx", "h100"): price(300_000)},
        network={
            ("nic", "ib-ndr-400"): price(2_000),
            ("switch_port", "ib-ndr-400"): price(700),
            ("cable", "ib-ndr-400"): price(100),
        },
    )
    c = cost(BUILD, prices)
    lines = lines_by_item(c)
    assert lines["system"].quantity == 2 and "accelerator" not in lines and "nic" not in lines
    # 16 endpoint ports fit one 64-port switch: one port and one cable each.
    assert (lines["switch_port"].quantity, lines["cable"].quantity) == (16, 16)
    assert c.capex == 2 * 300_000 + 16 * 700 + 16 * 100
    # A partly filled server is never bought as a system: cards and chassis again.
    partial = dataclasses.replace(BUILD, nodes=1, per_node=4, whole_system=False)
    assert {line.item for line in cost(partial, prices).lines} == {"accelerator", "server"}


def test_without_a_card_or_server_price_there_is_no_capex_and_the_rent_is_the_cost():
    c = cost(BUILD, dataclasses.replace(CARDS_AND_CHASSIS, servers={}))
    assert c.capex is None and c.tco is None
    assert c.notes[0].code == "cost.no_purchase_price"
    assert c.basis == "rent" and c.amount == c.rent_job
    # The job's hours on every card at the rate.
    assert c.rent_job == pytest.approx(16 * 2 * HOURS_PER_YEAR * 2.0)
    assert cost(BUILD, PriceList()).basis is None


def test_a_fat_tree_takes_more_switch_ports_and_links_per_endpoint_as_it_grows():
    assert fat_tree(64, 64) == fat_tree(64, 64)
    one, two, three = fat_tree(64, 64), fat_tree(2048, 64), fat_tree(2049, 64)
    assert (one.tiers, one.switch_ports, one.links) == (1, 64, 64)
    assert (two.tiers, two.switch_ports, two.links) == (2, 3 * 2048, 2 * 2048)
    assert (three.tiers, three.switch_ports, three.links) == (3, 5 * 2049, 3 * 2049)


def test_transceivers_count_two_per_link_where_they_have_a_price():
    prices = dataclasses.replace(
        CARDS_AND_CHASSIS, network={("transceiver", "ib-ndr-400"): price(500)}
    )
    big = dataclasses.replace(BUILD, nodes=32)  # 256 ports: two tiers, 512 links
    lines = lines_by_item(cost(big, prices))
    assert lines["transceiver"].quantity == 2 * 512


def test_energy_counts_busy_hours_at_load_and_the_rest_idle():
    c = cost(BUILD, CARDS_AND_CHASSIS)
    # Two servers, half the year at 10 kW and half at 2 kW, PUE 1.5.
    kwh = 2 * (0.5 * 10 + 0.5 * 2) * 1.5 * HOURS_PER_YEAR
    assert c.energy_kwh_per_year == pytest.approx(kwh)
    assert c.energy_per_year == pytest.approx(kwh * 0.1)
    assert c.tco == pytest.approx(c.capex + 4 * c.energy_per_year)
    idle = cost(
        dataclasses.replace(BUILD, usage=dataclasses.replace(TRAINING, busy_share=0)), PriceList()
    )
    assert idle.energy_kwh_per_year == pytest.approx(2 * 2 * 1.5 * HOURS_PER_YEAR)


def test_support_and_depreciation_come_from_each_price_else_say_so():
    prices = dataclasses.replace(
        CARDS_AND_CHASSIS,
        accelerators={"h100": price(25_000, support_share_per_year=0.1, depreciation_years=4)},
    )
    c = cost(BUILD, prices)
    assert c.support_per_year == pytest.approx(0.1 * 16 * 25_000)
    assert c.depreciation_per_year == pytest.approx(
        16 * 25_000 / 4 + 2 * 50_000 / DEFAULT_DEPRECIATION_YEARS
    )
    assert c.tco == pytest.approx(c.capex + 4 * (c.support_per_year + c.energy_per_year))
    unknown = next(n for n in c.notes if n.code == "cost.support_unknown")
    assert [label.code for label in unknown.params["items"]] == ["item.server"]


def test_buying_breaks_even_when_the_busy_hours_rented_cost_more_than_running_it():
    c = cost(BUILD, CARDS_AND_CHASSIS)
    rent_per_year = 16 * HOURS_PER_YEAR * 0.5 * 2.0
    assert c.rent_per_year == pytest.approx(rent_per_year)
    assert c.breakeven_months == pytest.approx(c.capex / ((rent_per_year - c.energy_per_year) / 12))
    cheap = dataclasses.replace(CARDS_AND_CHASSIS, rent={"h100": price(0.01)})
    assert cost(BUILD, cheap).breakeven_months is None


def test_serving_rents_the_whole_horizon_and_a_question_rate_stands_for_every_card():
    serving = dataclasses.replace(BUILD, usage=Usage(0.3, None, message("usage.always")))
    given = PriceList(rent_for_any=price(3.0, origin="question", source=""))
    c = cost(serving, given)
    assert c.rent_job == pytest.approx(16 * 4 * HOURS_PER_YEAR * 3.0)
    assert c.as_dict()["rent_line"]["origin"] == "question"


def test_without_an_electricity_price_energy_is_not_costed_and_says_so():
    c = cost(dataclasses.replace(BUILD, price_per_kwh=None), CARDS_AND_CHASSIS)
    assert c.energy_per_year is None and c.energy_kwh_per_year > 0
    assert c.tco == pytest.approx(c.capex)
    assert any(n.code == "cost.no_electricity_price" for n in c.notes)


def test_racks_are_a_line_when_the_site_fit_fills_some():
    prices = dataclasses.replace(CARDS_AND_CHASSIS, rack=price(1_500))
    c = cost(dataclasses.replace(BUILD, racks=3), prices)
    assert lines_by_item(c)["rack"].amount == 4_500


def test_the_answer_rounds_money_to_cents_and_months_to_one_decimal():
    prices = dataclasses.replace(CARDS_AND_CHASSIS, accelerators={"h100": price(999.999)})
    c = cost(BUILD, prices)
    out = c.as_dict()
    assert out["capex"] == round(16 * 999.999 + 2 * 50_000, 2)
    assert out["breakeven_months"] == round(c.breakeven_months, 1)
    assert out["notes"] == [note.as_dict() for note in c.notes]
    assert out["usage"] == TRAINING.why.as_dict()
