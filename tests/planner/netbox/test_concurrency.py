"""Imports of one team at once, on PostgreSQL: the team's row is locked, so the second waits for
the first and then finds everything already there; nothing is duplicated."""

import threading

import pytest
from django.db import connection, connections

from planner.models import Equipment, NetboxLink, PowerFeed, Rack, Site
from planner.netbox.services import netbox_import
from tests.conftest import require_or_skip
from tests.planner.netbox.conftest import CSV_FILES, NEW_SITES, netbox_files

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]
IMPORTS = 4


@pytest.fixture(autouse=True)
def _postgresql_only():
    if connection.vendor != "postgresql":
        require_or_skip(
            "concurrent imports need PostgreSQL: SQLite serialises them behind one file lock"
        )


def test_imports_of_one_team_at_once_create_each_row_once(cast):
    user, team = cast.facility, cast.team  # made here, not by each thread
    barrier = threading.Barrier(IMPORTS)
    results: list = []

    def run():
        try:
            barrier.wait()
            results.append(
                netbox_import(user=user, files=netbox_files(*CSV_FILES), options=NEW_SITES)
            )
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run) for _ in range(IMPORTS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert len(results) == IMPORTS
    assert sorted(r.counts["created"] for r in results) == [0] * (IMPORTS - 1) + [14]
    assert Site.objects.filter(team=team, name="DC1").count() == 1
    assert Rack.objects.filter(rack_group__site__team=team).count() == 3
    assert PowerFeed.objects.filter(rack__rack_group__site__team=team).count() == 5
    assert Equipment.objects.filter(rack__rack_group__site__team=team).count() == 3
    assert NetboxLink.objects.filter(team=team).count() == 12
