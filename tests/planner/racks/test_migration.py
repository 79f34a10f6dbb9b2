"""The migration that makes racks one by one: each rack group's count becomes that many named
racks, and the site's totals stay what they were."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("planner", "0011_rack")]
AFTER = [("planner", "0012_racks_from_rack_group_count")]


def test_existing_rack_groups_migrate_to_named_racks_with_the_same_totals():
    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE)
    old = executor.loader.project_state(BEFORE).apps
    team = old.get_model("accounts", "Team").objects.create(name="Migrated", slug="migrated")
    site = old.get_model("planner", "Site").objects.create(
        team=team, name="Hall M", electricity_price_per_kwh="0.5", pue=1.3
    )
    RackGroup = old.get_model("planner", "RackGroup")
    RackGroup.objects.create(
        site=site, name="Row A", count=12, power_kw=20, cooling_kw=22, units=42, max_kg=1000
    )
    RackGroup.objects.create(
        site=site, name="Row B", count=3, power_kw=60, cooling_kw=60, units=48, max_kg=2000
    )
    before_kw = sum(g.count * g.power_kw for g in RackGroup.objects.filter(site=site))

    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(AFTER)
    new = executor.loader.project_state(AFTER).apps
    Rack = new.get_model("planner", "Rack")
    racks = Rack.objects.filter(rack_group__site_id=site.pk).select_related("rack_group")
    assert racks.count() == 15
    assert sum(r.rack_group.power_kw for r in racks) == before_kw == 420
    names = sorted(racks.filter(rack_group__name="Row B").values_list("name", flat=True))
    assert names == ["Row B-01", "Row B-02", "Row B-03"]
    assert all(r.power_kw is None and r.units is None for r in racks)

    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())
