"""Power as feeds: usable power as NetBox computes a feed's available power, and a rack's
power from its primary feeds."""

import pytest
from django.core.exceptions import ValidationError

from planner.engine.facility import feed_usable_kw, feeds_usable_kw
from planner.models import PowerFeed
from planner.racks.capacity import rack_limits
from planner.racks.feeds import power_feed_save
from planner.sites.selectors import site_capacity


def test_a_three_phase_400_v_32_a_feed_at_80_percent_gives_17_7_kw():
    # 400 x 32 x sqrt(3) x 0.8 = 17,736 W
    kw = feed_usable_kw(voltage_v=400, amperage_a=32, three_phase=True, max_utilisation_pct=80)
    assert round(kw, 1) == 17.7


def test_a_single_phase_230_v_32_a_feed_at_80_percent_gives_5_9_kw():
    # 230 x 32 x 0.8 = 5,888 W
    kw = feed_usable_kw(voltage_v=230, amperage_a=32, three_phase=False, max_utilisation_pct=80)
    assert round(kw, 1) == 5.9


def test_an_a_b_pair_counts_once():
    a_side = feed_usable_kw(voltage_v=400, amperage_a=32, three_phase=True, max_utilisation_pct=80)
    assert feeds_usable_kw(((a_side, False), (a_side, True))) == a_side


def feed(rack, name, **changes) -> PowerFeed:
    fields = {"voltage": 400, "amperage": 32, "phase": "three", **changes}
    return power_feed_save(feed=PowerFeed(rack=rack, name=name, **fields))


@pytest.mark.django_db
def test_a_rack_with_an_a_b_pair_takes_one_feed_and_site_totals_agree(group):
    rack = group.racks.first()
    feed(rack, "A")
    feed(rack, "B", feed_type="redundant")
    limits = rack_limits(rack)
    assert (round(limits.power_kw, 2), limits.power_from) == (17.74, "feeds")
    # Two racks at the group's 20 kW and one at its feed's 17.74 kW.
    assert round(site_capacity(site=group.site).power_kw, 2) == 57.74


@pytest.mark.django_db
def test_a_rack_given_only_kw_keeps_working(group):
    rack = group.racks.first()
    feed(rack, "B", feed_type="redundant")  # a redundant feed alone states no usable power
    assert rack_limits(rack).power_from == "group"


@pytest.mark.django_db
def test_a_dc_feed_must_be_single_phase(group):
    with pytest.raises(ValidationError) as caught:
        feed(group.racks.first(), "DC", supply="dc")
    assert "single-phase" in str(caught.value)


@pytest.mark.django_db
def test_facility_adds_feeds_over_the_api_and_others_may_not(cast, group):
    rack = group.racks.first()
    new = {"rack": rack.pk, "name": "A", "voltage": 230, "amperage": 32, "phase": "single"}
    assert cast.api("planner").post("/api/v1/power-feeds/", new, format="json").status_code == 403
    response = cast.api("facility").post("/api/v1/power-feeds/", new, format="json")
    assert response.status_code == 201, response.content
    assert round(response.json()["usable_kw"], 3) == 5.888
    assert (
        cast.api("outsider").get(f"/api/v1/power-feeds/{response.json()['id']}/").status_code == 404
    )
    rack_json = cast.api("viewer").get(f"/api/v1/racks/{rack.pk}/").json()
    assert rack_json["limits"]["power_from"] == "feeds"
