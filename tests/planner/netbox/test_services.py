"""The NetBox import: NetBox's CSV, device-type YAML and API JSON become the team's sites,
racks, feeds and equipment; importing again is a sync."""

import math
from dataclasses import replace

import pytest
from django.core.exceptions import PermissionDenied

from planner.history import history_of
from planner.models import Equipment, NetboxLink, PowerFeed, Rack, RackGroup, Site
from planner.netbox.formats import ImportRefused
from planner.netbox.results import ImportOptions
from planner.netbox.selectors import netbox_link_summary
from planner.netbox.services import netbox_import
from tests.factories import RackGroupFactory, ServerPlatformFactory, SiteFactory
from tests.planner.netbox.conftest import API_FILES, CSV_FILES, FIXTURES, NEW_SITES, netbox_files

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
    # NetBox keeps no cooling: a new group's is its own power (230 V x 32 A x 80 % = 5.888 kW),
    # not that of the group the same import made a moment before
    assert RackGroup.objects.get(site=site, name="NetBox").cooling_kw == pytest.approx(5.888)
    assert hall.cooling_kw == hall.power_kw
    assert len([n for n in result.notes if "cooling" in n]) == 2


def test_a_second_import_of_the_same_files_changes_nothing(cast, csv_files):
    netbox_import(user=cast.facility, files=csv_files, options=NEW_SITES)
    history = sum(m.history.count() for m in (Site, RackGroup, Rack, PowerFeed, Equipment))
    again = netbox_import(user=cast.facility, files=csv_files, options=NEW_SITES)
    assert again.counts["created"] == 0 and again.counts["updated"] == 0
    assert sum(m.history.count() for m in (Site, RackGroup, Rack, PowerFeed, Equipment)) == history


def test_a_changed_feed_amperage_updates_one_row_with_history(cast, csv_files):
    netbox_import(user=cast.facility, files=csv_files, options=NEW_SITES)
    feeds = (FIXTURES / "csv/power-feeds.csv").read_bytes()
    changed = feeds.replace(
        b"A01-A,active,primary,ac,three-phase,400,32", b"A01-A,active,primary,ac,three-phase,400,40"
    )
    files = netbox_files(*CSV_FILES, **{"csv/power-feeds.csv": changed})
    result = netbox_import(user=cast.facility, files=files, options=NEW_SITES)
    updated = [c for c in result.changes if c.action == "updated"]
    assert [(c.kind, c.fields) for c in updated] == [("power_feed", [("amperage", 32.0, 40.0)])]
    feed = PowerFeed.objects.get(name="A01-A")
    assert feed.amperage == 40
    (latest, *_) = history_of(feed)
    assert latest["kind"] == "changed" and latest["who"] == cast.facility.username
    assert latest["changes"] == [{"field": "amperage", "old": 32.0, "new": 40.0}]
    # The link keeps what NetBox gave, with its history: 32 A then 40 A
    link = NetboxLink.objects.get(kind="power_feed", natural_key="DC1/PP-A/A01-A")
    assert [h.seen["amperage"] for h in link.history.order_by("history_id")] == [32.0, 40.0]


def test_the_api_json_imports_and_links_rows_by_netbox_id(cast, api_files):
    result = netbox_import(user=cast.facility, files=api_files, options=NEW_SITES)
    site = Site.objects.get(team=cast.team, name="DC2")
    assert site.location == "Beijing Yizhuang"
    group = site.rack_groups.get()
    assert group.name == "Row B" and group.units == 42 and group.max_kg == 1200
    assert {r.rack: round(r.usable_power_kw, 2) for r in result.racks} == {
        "B01": 17.74,
        "B02": 17.74,
    }
    equipment = {e.name: e for e in Equipment.objects.filter(rack__rack_group=group)}
    assert equipment["gpu-b01-1"].nameplate_kw == 4.0  # its ports allocate 2,000 W each
    assert equipment["gpu-b02-1"].nameplate_kw == 6.0  # none allocated: maximum 3,000 W x 2
    # Height and weight from the device-types answer: 8.0 U, 75 kg
    assert equipment["gpu-b02-1"].position_u == 2 and equipment["gpu-b02-1"].units == 8
    assert equipment["gpu-b02-1"].weight_kg == 75
    link = NetboxLink.objects.get(team=cast.team, kind="rack", netbox_id=21)
    assert link.object_id == Rack.objects.get(name="B01").pk


def test_a_rack_renamed_in_netbox_is_renamed_here_not_duplicated(cast, api_files):
    netbox_import(user=cast.facility, files=api_files, options=NEW_SITES)
    racks = (FIXTURES / "api/racks.json").read_bytes().replace(b'"B01"', b'"B01-new"')
    files = netbox_files(*API_FILES, **{"api/racks.json": racks})
    result = netbox_import(user=cast.facility, files=files, options=NEW_SITES)
    assert Rack.objects.filter(rack_group__site__name="DC2").count() == 2
    renamed = Rack.objects.get(name="B01-new")
    assert renamed.feeds.count() == 1 and renamed.equipment.count() == 1
    assert [c.fields for c in result.changes if c.action == "updated"] == [
        [("name", "B01", "B01-new")]
    ]


def test_another_teams_site_of_the_same_name_is_never_touched(cast, csv_files):
    theirs = SiteFactory(team=cast.other_team, name="DC1")
    RackGroupFactory(site=theirs, name="Hall A", count=1)
    before = list(Rack.objects.filter(rack_group__site=theirs).values())
    netbox_import(user=cast.facility, files=csv_files, options=NEW_SITES)
    theirs.refresh_from_db()
    assert theirs.version == 1 and theirs.location != "88 Zhangjiang Road, Shanghai"
    assert list(Rack.objects.filter(rack_group__site=theirs).values()) == before
    assert Site.objects.filter(team=cast.team, name="DC1").exists()


def test_a_dry_run_writes_nothing_and_says_what_it_would_do(cast, csv_files):
    result = netbox_import(user=cast.facility, files=csv_files, options=NEW_SITES, dry_run=True)
    assert result.counts["created"] > 0 and result.dry_run
    assert not Site.objects.filter(team=cast.team, name="DC1").exists()
    assert not NetboxLink.objects.exists()


def test_only_the_site_asked_for_is_imported(cast, csv_files, api_files):
    options = replace(NEW_SITES, site="DC2")
    netbox_import(user=cast.facility, files=[*csv_files, *api_files], options=options)
    assert list(Site.objects.filter(team=cast.team).values_list("name", flat=True)) == ["DC2"]


def test_new_sites_need_a_pue_and_a_price(cast, csv_files):
    with pytest.raises(ImportRefused) as refused:
        netbox_import(user=cast.facility, files=csv_files, options=ImportOptions())
    assert [str(p.where) for p in refused.value.problems] == ["sites.csv, line 2, column 1 (name)"]
    assert not Site.objects.filter(team=cast.team).exists()


def test_viewers_and_planners_may_not_import(cast, csv_files):
    for who in ("viewer", "planner"):
        with pytest.raises(PermissionDenied):
            netbox_import(user=cast[who], files=csv_files, options=NEW_SITES)


def test_a_device_without_power_ports_takes_the_matching_catalog_servers_power(cast, api_files):
    server = ServerPlatformFactory(slug="supermicro-sys-821ge-tnhr", max_power_kw=10.2)
    files = [f for f in api_files if f.name != "power-ports.json"]
    netbox_import(user=cast.facility, files=files, options=NEW_SITES)
    installed = Equipment.objects.get(name="gpu-b01-1")
    assert installed.server == server and installed.nameplate_kw == 10.2


def test_a_device_of_an_unknown_type_is_refused_naming_its_cell(cast, api_files):
    files = [f for f in api_files if f.name not in ("power-ports.json", "device-types.json")]
    with pytest.raises(ImportRefused) as refused:
        netbox_import(user=cast.facility, files=files, options=NEW_SITES)
    problem = refused.value.problems[0]
    assert (problem.where.file, problem.where.name) == ("devices.json", "device_type")
    assert "SYS-821GE-TNHR" in problem.message and "height" in problem.message
    assert not Site.objects.filter(team=cast.team).exists()


def test_a_file_the_models_refuse_is_refused_whole_naming_its_cell(cast, csv_files):
    feeds = (FIXTURES / "csv/power-feeds.csv").read_bytes()
    bad = feeds.replace(
        b"Lab-1-A,active,primary,ac,single-phase,230,32",
        b"Lab-1-A,active,primary,ac,single-phase,230,5000",
    )
    files = netbox_files(*CSV_FILES, **{"csv/power-feeds.csv": bad})
    with pytest.raises(ImportRefused) as refused:
        netbox_import(user=cast.facility, files=files, options=NEW_SITES)
    (problem,) = refused.value.problems
    assert str(problem.where) == "power-feeds.csv, line 6, column 11 (amperage)"
    assert "1000" in problem.message
    assert not Site.objects.filter(team=cast.team).exists()
    assert not NetboxLink.objects.exists() and not PowerFeed.objects.exists()


def test_a_refused_resync_leaves_the_earlier_import_as_it_was(cast, csv_files):
    netbox_import(user=cast.facility, files=csv_files, options=NEW_SITES)
    saved = list(PowerFeed.objects.order_by("pk").values())
    feeds = (FIXTURES / "csv/power-feeds.csv").read_bytes()
    bad = feeds.replace(b"400,32,80", b"400,40,80", 1).replace(b"230,32,80", b"230,0,80")
    files = netbox_files(*CSV_FILES, **{"csv/power-feeds.csv": bad})
    with pytest.raises(ImportRefused):
        netbox_import(user=cast.facility, files=files, options=NEW_SITES)
    assert list(PowerFeed.objects.order_by("pk").values()) == saved


def test_the_summary_counts_the_teams_linked_rows_only(cast, csv_files, api_files):
    netbox_import(user=cast.facility, files=csv_files, options=NEW_SITES)
    summary = netbox_link_summary(user=cast.facility)
    assert summary.counts == {"site": 1, "rack": 3, "power_feed": 5, "device": 3}
    assert netbox_link_summary(user=cast.outsider).last_import is None


def test_new_rack_groups_take_the_cooling_the_site_already_has(cast, csv_files):
    site = SiteFactory(team=cast.team, name="DC1")
    RackGroupFactory(site=site, name="Old row", count=1, cooling_kw=30)
    result = netbox_import(user=cast.facility, files=csv_files, options=NEW_SITES)
    new = RackGroup.objects.filter(site=site).exclude(name="Old row")
    assert sorted(new.values_list("cooling_kw", flat=True)) == [30, 30]
    assert all("as the site's other rack groups" in n for n in result.notes)


def test_new_rack_groups_take_the_cooling_asked_for(cast, csv_files):
    options = replace(NEW_SITES, cooling_kw=12.5, cooling="rdhx")
    netbox_import(user=cast.facility, files=csv_files, options=options)
    groups = RackGroup.objects.filter(site__team=cast.team)
    assert set(groups.values_list("cooling_kw", "cooling")) == {(12.5, "rdhx")}
