"""The NetBox import: NetBox's CSV, device-type YAML and API JSON become the team's sites,
racks, feeds and equipment; importing again is a sync."""

import math

import pytest

from planner.models import Equipment, PowerFeed, Rack, RackGroup, Site
from planner.netbox.services import netbox_import
from tests.planner.netbox.conftest import NEW_SITES

pytestmark = pytest.mark.django_db


def test_the_csv_exports_and_device_types_import_cleanly(cast, csv_files):
    result = netbox_import(user=cast.facility, files=csv_files, options=NEW_SITES)
    site = Site.objects.get(team=cast.team, name="DC1")
    assert site.location == "88 Zhangjiang Road, Shanghai"
    assert sorted(site.rack_groups.values_list("name", flat=True)) == ["Hall A", "NetBox"]
    hall = RackGroup.objects.get(site=site, name="Hall A")
    assert list(hall.racks.values_list("name", flat=True)) == ["A01", "A02"]
    # A02's primary feed: 400 V x 63 A x sqrt 3 x 80 % = 34.92 kW, the most of the row's racks
    assert hall.power_kw == pytest.approx(400 * 63 * math.sqrt(3) * 0.8 / 1000, abs=1e-3)
    assert hall.feeds == "2n" and hall.units == 48 and hall.max_kg == 1500
    # 2,200 lb is 997.9 kg
    assert Rack.objects.get(name="Lab-1").max_kg == pytest.approx(997.903, abs=1e-3)
    assert PowerFeed.objects.filter(rack__rack_group__site=site).count() == 5
    a01 = {r.rack: r for r in result.racks}["A01"]
    assert a01.usable_power_kw == pytest.approx(17.736, abs=1e-3) and a01.power_from == "feeds"
    equipment = {e.name: e for e in Equipment.objects.filter(rack__rack_group__site=site)}
    assert sorted(equipment) == ["gpu-a01-1", "gpu-a02-1", "tor-a01"]
    assert equipment["gpu-a01-1"].nameplate_kw == 3.4  # two PSUs allocated 1,700 W each
    assert equipment["gpu-a02-1"].nameplate_kw == 6.0  # no allocated draw: maximum 3,000 W x 2
    assert equipment["gpu-a01-1"].units == 8 and equipment["gpu-a01-1"].weight_kg == 75
    # The switch's power ports are in its device type: allocated 272 W x 2; 21.1 lb = 9.571 kg
    assert equipment["tor-a01"].nameplate_kw == 0.544
    assert equipment["tor-a01"].weight_kg == pytest.approx(9.571, abs=1e-3)
    skipped = {c.name: c.note for c in result.changes if c.action == "skipped"}
    assert set(skipped) == {"PP-A / Spare-1", "PP-B / A02-C", "pdu-a01", "spare-1"}
    assert any("cooling" in note for note in result.notes)


def test_a_second_import_of_the_same_files_changes_nothing(cast, csv_files):
    netbox_import(user=cast.facility, files=csv_files, options=NEW_SITES)
    history = sum(m.history.count() for m in (Site, RackGroup, Rack, PowerFeed, Equipment))
    again = netbox_import(user=cast.facility, files=csv_files, options=NEW_SITES)
    assert again.counts["created"] == 0 and again.counts["updated"] == 0
    assert sum(m.history.count() for m in (Site, RackGroup, Rack, PowerFeed, Equipment)) == history
