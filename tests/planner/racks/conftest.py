"""Team Alpha (tests/cast.py) owns a private site with one rack group of three racks; team Beta
owns a shared one."""

import pytest

from planner.choices import Visibility
from planner.models import RackGroup
from planner.sites.services import rack_group_save
from tests.factories import SiteFactory


def group_on(site, **changes) -> RackGroup:
    fields = {
        "name": "Row A",
        "count": 3,
        "power_kw": 20.0,
        "cooling_kw": 25.0,
        "units": 42,
        "max_kg": 1200.0,
        **changes,
    }
    return rack_group_save(rack_group=RackGroup(site=site, **fields))


@pytest.fixture
def group(cast):
    return group_on(SiteFactory(team=cast.team, name="Hall A"))


@pytest.fixture
def shared_group(cast):
    return group_on(
        SiteFactory(team=cast.other_team, name="Beta hall", visibility=Visibility.SHARED)
    )


@pytest.fixture(autouse=True)
def _catalog(loaded_catalog):
    """Racks hold catalog servers (the DGX H100 of catalog/data/servers/servers.csv)."""
