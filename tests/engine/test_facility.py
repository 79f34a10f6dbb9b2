"""Facility fit, worked by hand from the seeds and the servers' datasheets. No database."""

import pytest

from planner.engine.efficiency import CONSUMER_THERMAL_FACTOR
from planner.engine.facility import (
    THERMAL_RISK,
    RackSpec,
    ServerFacilitySpec,
    busy_power_kw,
    fit,
    idle_power_kw,
)

# The seeds: "一个标准机柜的功率上限通常是10kW到15kW" (a standard rack takes 10-15 kW).
RACK_15KW = RackSpec(power_kw=15, cooling_kw=15, units=42, max_kg=1200)
RACK_10KW = RackSpec(power_kw=10, cooling_kw=10, units=42, max_kg=1200)
# NVIDIA DGX A100 datasheet: 6U, 6.5 kW max, 271.5 lb (123.16 kg).
DGX_A100 = ServerFacilitySpec(power_kw=6.5, units=6, kg=123.16, accelerators=8)
# NVIDIA DGX H100 user guide: 8U, about 10.2 kW max, 287.6 lb (130.45 kg).
DGX_H100 = ServerFacilitySpec(power_kw=10.2, units=8, kg=130.45, accelerators=8)
# NVIDIA GB200 NVL72: one 48U liquid-cooled rack system, about 120 kW, 1,360 kg.
GB200_NVL72 = ServerFacilitySpec(power_kw=120, units=48, kg=1360, cooling="liquid")
# Four RTX 4090 (450 W board power, open-air fans) in a 2U server: 4 x 450 W / 0.6 = 3 kW.
FOUR_4090_2U = ServerFacilitySpec(
    power_kw=3.0, units=2, kg=30, accelerators=4, open_air_cards=True, power_estimated=True
)


def test_rack_of_15_kw_holds_two_dgx_a100_and_power_binds():
    result = fit(RACK_15KW, DGX_A100, 32)
    # 15 / 6.5 = 2.3 by power and by cooling; 42 U / 6 U = 7; 1200 / 123.16 = 9.7 kg-wise.
    assert result.limits == {"power": 2, "cooling": 2, "units": 7, "weight": 9}
    assert result.servers_per_rack == 2
    assert result.binding == "power"
    assert result.racks_needed == 16


def test_rack_of_10_kw_cannot_hold_two_dgx_a100():
    # The seeds: two 6 kW+ servers in a 10-15 kW rack "功率就爆了" (blow the power budget).
    assert fit(RACK_10KW, DGX_A100, 2).servers_per_rack == 1


def test_rack_of_15_kw_holds_one_dgx_h100():
    result = fit(RACK_15KW, DGX_H100, 1)
    assert result.servers_per_rack == 1
    assert result.binding == "power"
    assert result.racks_needed == 1


def test_cooling_binds_when_it_is_smaller_than_power():
    rack = RackSpec(power_kw=30, cooling_kw=15, units=42, max_kg=2000)
    result = fit(rack, DGX_A100, 8)
    assert result.limits["power"] == 4 and result.limits["cooling"] == 2
    assert (result.servers_per_rack, result.binding) == (2, "cooling")


def test_four_open_air_consumer_cards_in_a_2u_server_are_warned_and_derated():
    result = fit(RACK_15KW, FOUR_4090_2U, 4)
    assert result.servers_per_rack == 5  # 15 kW / 3 kW
    assert THERMAL_RISK in result.warnings
    assert any(w.code == "fit.power_estimated" for w in result.warnings)
    assert result.eta_thermal == pytest.approx(CONSUMER_THERMAL_FACTOR)


def test_desktop_airflow_in_a_rack_is_a_thermal_risk():
    tower = ServerFacilitySpec(power_kw=1.6, units=12, kg=40, airflow="desktop")
    assert THERMAL_RISK in fit(RACK_15KW, tower, 1).warnings


def test_liquid_cooled_rack_system_cannot_go_in_an_air_only_room():
    room = RackSpec(power_kw=132, cooling_kw=132, units=48, max_kg=1500, cooling="air")
    result = fit(room, GB200_NVL72, 2)
    assert result.servers_per_rack == 0
    assert result.binding == "cooling type"
    assert result.racks_needed is None
    assert any(w.code == "fit.cannot_be_hosted" for w in result.warnings)


def test_liquid_cooled_rack_system_fits_a_liquid_rack():
    liquid = RackSpec(power_kw=132, cooling_kw=132, units=48, max_kg=1500, cooling="liquid")
    assert liquid.liquid_loops is True
    result = fit(liquid, GB200_NVL72, 2)
    assert (result.servers_per_rack, result.racks_needed) == (1, 2)


def test_rear_door_heat_exchanger_has_no_liquid_loops_unless_told():
    rdhx = RackSpec(power_kw=40, cooling_kw=40, units=42, max_kg=1500, cooling="rdhx")
    assert not rdhx.liquid_loops
    assert not RackSpec(power_kw=40, cooling_kw=40, units=42, max_kg=1500).liquid_loops
    with_loops = RackSpec(
        power_kw=132, cooling_kw=132, units=48, max_kg=1500, cooling="rdhx", liquid_loops=True
    )
    assert fit(with_loops, GB200_NVL72, 1).servers_per_rack == 1


def test_weight_binds_when_the_rack_is_light():
    rack = RackSpec(power_kw=100, cooling_kw=100, units=42, max_kg=250)
    result = fit(rack, DGX_H100, 4)
    # 250 kg / 130.45 kg = 1.9
    assert result.limits == {"power": 9, "cooling": 9, "units": 5, "weight": 1}
    assert (result.servers_per_rack, result.binding, result.racks_needed) == (1, "weight", 4)


def test_units_bind_a_42u_rack_of_8u_servers():
    rack = RackSpec(power_kw=200, cooling_kw=200, units=42, max_kg=5000)
    result = fit(rack, DGX_H100, 10)
    assert (result.servers_per_rack, result.binding) == (5, "units")  # 42 // 8
    assert result.racks_needed == 2


def test_racks_needed_rounds_up():
    assert fit(RACK_15KW, DGX_A100, 33).racks_needed == 17  # 33 / 2 per rack


def test_server_over_the_rack_power_cannot_be_hosted():
    # DGX B200: 14.3 kW max.
    dgx_b200 = ServerFacilitySpec(power_kw=14.3, units=10, kg=142.4)
    result = fit(RACK_10KW, dgx_b200, 4)
    assert (result.servers_per_rack, result.binding, result.racks_needed) == (0, "power", None)


def test_ratios_that_divide_exactly_are_not_lost_to_rounding():
    rack = RackSpec(power_kw=0.3, cooling_kw=0.3, units=42, max_kg=100)
    assert fit(rack, ServerFacilitySpec(power_kw=0.1, units=1, kg=1), 1).limits["power"] == 3


def test_pue_and_energy_cost_arithmetic():
    result = fit(RACK_15KW, DGX_H100, 32, pue=1.3, price_per_kwh=0.12)
    # 32 x 10.2 kW = 326.4 kW IT; x 1.3 = 424.32 kW; x 8760 h = 3,717,043.2 kWh; x 0.12.
    assert result.it_power_kw == pytest.approx(326.4)
    assert result.facility_power_kw == pytest.approx(424.32)
    assert result.yearly_energy_kwh == pytest.approx(3_717_043.2)
    assert result.yearly_energy_cost == pytest.approx(446_045.184)
    assert result.as_dict()["yearly_energy_cost"] == 446_045.18


def test_no_price_no_cost():
    assert fit(RACK_15KW, DGX_H100, 1).yearly_energy_cost is None


def test_inlet_above_the_rating_lowers_eta_thermal():
    hot = RackSpec(power_kw=15, cooling_kw=15, units=42, max_kg=1200, inlet_c=30)
    rated_25 = ServerFacilitySpec(power_kw=6.5, units=6, kg=123.16, max_inlet_c=25)
    result = fit(hot, rated_25, 1)
    assert result.eta_thermal == pytest.approx(1 - 0.03 * 5)  # 0.85
    assert any(w.code == "fit.inlet_above_rating" for w in result.warnings)


def test_liquid_cooled_servers_sag_less_with_a_hot_inlet():
    hot = RackSpec(power_kw=15, cooling_kw=15, units=42, max_kg=1200, inlet_c=30, cooling="liquid")
    liquid = ServerFacilitySpec(power_kw=6.5, units=6, kg=100, cooling="liquid", max_inlet_c=25)
    assert fit(hot, liquid, 1).eta_thermal == pytest.approx(0.95)


def test_thermal_derating_has_a_floor_and_compounds_with_open_air_cards():
    very_hot = RackSpec(power_kw=15, cooling_kw=15, units=42, max_kg=1200, inlet_c=55)
    rated_25 = ServerFacilitySpec(power_kw=3, units=2, kg=30, max_inlet_c=25)
    assert fit(very_hot, rated_25, 1).eta_thermal == pytest.approx(0.5)
    hot = RackSpec(power_kw=15, cooling_kw=15, units=42, max_kg=1200, inlet_c=30)
    open_air = ServerFacilitySpec(power_kw=3, units=2, kg=30, max_inlet_c=25, open_air_cards=True)
    assert fit(hot, open_air, 1).eta_thermal == pytest.approx(0.85 * 0.9)


def test_at_or_below_the_rating_there_is_no_derating():
    at_rating = RackSpec(power_kw=15, cooling_kw=15, units=42, max_kg=1200, inlet_c=35)
    result = fit(at_rating, DGX_A100, 1)
    assert result.eta_thermal == 1.0
    assert not any(w.code == "fit.inlet_above_rating" for w in result.warnings)


def test_unknown_weight_leaves_the_weight_limit_open_and_warns():
    result = fit(RACK_15KW, ServerFacilitySpec(power_kw=3, units=2), 1)
    assert result.limits["weight"] is None
    assert result.servers_per_rack == 5
    assert any(w.code == "fit.weight_unknown" for w in result.warnings)


def test_2n_feeds_are_warned():
    rack = RackSpec(power_kw=15, cooling_kw=15, units=42, max_kg=1200, feeds="2n")
    result = fit(rack, DGX_A100, 2)
    assert result.servers_per_rack == 2
    assert any(w.code == "fit.feeds_2n" and w.params["power_kw"] == 15 for w in result.warnings)


def test_answer_has_exactly_the_contract_keys():
    answer = fit(RACK_15KW, DGX_A100, 3).as_dict()
    assert set(answer) == {
        "servers_per_rack",
        "racks_needed",
        "binding",
        "limits",
        "it_power_kw",
        "facility_power_kw",
        "yearly_energy_kwh",
        "yearly_energy_cost",
        "eta_thermal",
        "warnings",
    }
    assert set(answer["limits"]) == {"power", "cooling", "units", "weight"}


def test_a_server_draws_its_platform_and_a_tenth_of_its_cards_idle():
    # 8 x 700 W cards in a 10.2 kW server: the platform is what the maximum leaves, 4.6 kW.
    server = ServerFacilitySpec(power_kw=10.2, units=8, accelerators=8)
    assert idle_power_kw(server, base_w=None, card_w=700) == pytest.approx(4.6 + 0.56)
    assert idle_power_kw(server, base_w=2000, card_w=700) == pytest.approx(2.0 + 0.56)
    # Training averages 76 % of the rating; serving runs the cards near half their power.
    assert busy_power_kw(server, base_w=None, card_w=700, serving=False) == pytest.approx(7.752)
    assert busy_power_kw(server, base_w=2000, card_w=700, serving=True) == pytest.approx(4.8)
