"""Team Alpha's people (tests/cast.py) own one private site; the outside facility engineer,
on team Beta, must not learn it exists."""

import pytest

from planner.choices import Visibility
from planner.models import RackGroup
from planner.sites.services import rack_group_save, site_create

# --- places ----------------------------------------------------------------------------------


@pytest.fixture
def site(cast):
    return site_create(
        team=cast.team,
        user=cast.facility,
        name="Alpha DC",
        location="Beijing",
        visibility=Visibility.TEAM,
        currency="CNY",
        electricity_price_per_kwh="0.5500",
        pue=1.25,
    )


@pytest.fixture
def rack_group(site):
    # 10 racks x 40 kW = 400 kW of power, 10 x 42 U = 420 U.
    return rack_group_save(
        rack_group=RackGroup(
            site=site,
            name="Row A",
            count=10,
            power_kw=40,
            cooling_kw=40,
            units=42,
            max_kg=1500,
        )
    )
