"""Racks one by one: a rack group's count and its racks always agree."""

import pytest
from django.core.exceptions import ValidationError

from planner.models import Rack, RackGroup
from planner.racks.capacity import rack_limits
from planner.racks.services import rack_delete, rack_save
from planner.sites.selectors import site_capacity
from planner.sites.services import rack_group_save
from tests.factories import SiteFactory

pytestmark = pytest.mark.django_db


def make_group(**changes) -> RackGroup:
    fields = {"name": "Row A", "count": 3, "power_kw": 20, "cooling_kw": 25, "units": 42}
    fields.update(changes)
    return rack_group_save(
        rack_group=RackGroup(site=changes.pop("site", None) or SiteFactory(), max_kg=1200, **fields)
    )


def test_a_new_rack_group_gets_its_count_of_named_racks():
    group = make_group()
    names = list(group.racks.order_by("position").values_list("name", flat=True))
    assert names == ["Row A-01", "Row A-02", "Row A-03"]


def test_raising_the_count_adds_racks_at_the_end_and_lowering_it_removes_them():
    group = make_group()
    group.count = 5
    rack_group_save(rack_group=group)
    assert group.racks.count() == 5
    assert group.racks.order_by("position").last().name == "Row A-05"
    group.count = 2
    rack_group_save(rack_group=group)
    assert list(group.racks.values_list("name", flat=True)) == ["Row A-01", "Row A-02"]


def test_adding_and_deleting_a_rack_moves_the_group_count():
    group = make_group()
    rack_save(rack=Rack(rack_group=group, name="Spare", position=9, power_kw=40))
    group.refresh_from_db()
    assert group.count == 4
    rack_delete(rack=group.racks.get(name="Row A-01"))
    group.refresh_from_db()
    assert group.count == 3


def test_the_last_rack_of_a_group_cannot_be_deleted():
    group = make_group(count=1)
    with pytest.raises(ValidationError):
        rack_delete(rack=group.racks.get())


def test_a_rack_takes_its_group_limits_unless_it_states_its_own():
    group = make_group()
    rack = group.racks.get(name="Row A-02")
    assert rack_limits(rack).power_kw == 20
    rack.power_kw, rack.units = 35, 48
    rack_save(rack=rack)
    limits = rack_limits(rack)
    assert (limits.power_kw, limits.units, limits.cooling_kw) == (35, 48, 25)
    assert limits.power_from == "rack"


def test_site_capacity_sums_each_rack_with_its_own_figures():
    group = make_group()
    rack = group.racks.get(name="Row A-01")
    rack.power_kw = 50
    rack_save(rack=rack)
    capacity = site_capacity(site=group.site)
    # 2 racks at the group's 20 kW and one at its own 50 kW.
    assert (capacity.racks, capacity.power_kw, capacity.units) == (3, 90, 126)


def test_a_rack_refuses_a_limit_out_of_bounds_naming_the_field():
    group = make_group()
    rack = group.racks.first()
    rack.power_kw = 900
    with pytest.raises(ValidationError) as caught:
        rack_save(rack=rack)
    assert "power_kw" in caught.value.message_dict
