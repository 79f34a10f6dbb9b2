"""What is installed in racks: catalog servers and free-form devices in free U, counted at their
nameplate against each rack's, group's and site's limits."""

import pytest
from django.core.exceptions import ValidationError

from catalog.models import ServerPlatform
from planner.models import Equipment
from planner.racks.equipment import (
    equipment_export_csv,
    equipment_install,
    equipment_move,
    equipment_remove,
)
from planner.racks.occupancy import rack_occupancy, site_occupancy
from planner.sites.services import rack_group_save

pytestmark = pytest.mark.django_db


def dgx(rack, position_u=1, **changes) -> Equipment:
    server = ServerPlatform.objects.get(slug="nvidia-dgx-h100")
    return equipment_install(
        equipment=Equipment(rack=rack, server=server, position_u=position_u, **changes)
    )


def test_a_catalog_server_takes_its_height_nameplate_and_weight_from_the_catalog(group):
    item = dgx(group.racks.first())
    # catalog/data/servers/servers.csv: DGX H100, 8U, 10.2 kW maximum, 130.45 kg.
    assert (item.name, item.units, item.nameplate_kw, item.weight_kg) == (
        "DGX H100",
        8,
        10.2,
        130.45,
    )


def test_a_rack_refuses_equipment_over_taken_u_or_past_its_top(group):
    rack = group.racks.first()
    dgx(rack, position_u=1)
    with pytest.raises(ValidationError) as caught:
        dgx(rack, position_u=5)
    assert "already takes U1 to U8" in str(caught.value.message_dict["position_u"])
    with pytest.raises(ValidationError) as caught:
        dgx(rack, position_u=40)
    assert "does not fit in a 42 U rack" in str(caught.value.message_dict["position_u"])


def test_occupancy_counts_the_nameplate_and_frees_it_on_removal(group):
    rack = group.racks.first()
    item = dgx(rack, measured_kw=8.1)
    used = rack_occupancy(rack)
    assert (used.power_kw.used, used.power_kw.free, used.units.used) == (10.2, 9.8, 8)
    assert used.cooling_kw.used == 10.2  # the heat to remove is the power drawn
    assert site_occupancy(site=group.site).power_kw.limit == 60  # 3 racks x 20 kW
    equipment_remove(equipment=item)
    assert rack_occupancy(rack).power_kw.used == 0
    item.refresh_from_db()
    assert item.removed_at is not None and item.history.count() == 2


def test_equipment_moves_to_another_rack_and_its_history_says_where(group):
    first, second = group.racks.order_by("position")[:2]
    item = dgx(first)
    equipment_move(equipment=item, rack=second, position_u=10)
    assert rack_occupancy(first).units.used == 0 and rack_occupancy(second).units.used == 8
    assert item.history.first().rack_id == second.pk


def test_a_free_form_device_states_its_figures(group):
    rack = group.racks.first()
    switch = Equipment(
        rack=rack, name="leaf-1", position_u=42, units=1, nameplate_kw=0.65, weight_kg=9.5
    )
    equipment_install(equipment=switch)
    assert rack_occupancy(rack).weight_kg.used == 9.5


def test_a_group_count_cannot_drop_racks_that_hold_equipment(group):
    for rack in group.racks.order_by("position")[1:]:
        dgx(rack)
    group.count = 1
    with pytest.raises(ValidationError) as caught:
        rack_group_save(rack_group=group)
    assert "count" in caught.value.message_dict


def test_the_csv_export_lists_installed_and_removed_equipment(group):
    rack = group.racks.first()
    dgx(rack, name="gpu-01")
    equipment_remove(equipment=dgx(rack, position_u=9, name="gpu-02"))
    lines = equipment_export_csv(racks=group.racks.all()).splitlines()
    assert lines[0].startswith("site,rack_group,rack,name,server,position_u")
    assert len(lines) == 3
    assert any("gpu-02" in line and line.split(",")[-1] for line in lines[1:])
