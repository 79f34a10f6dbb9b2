"""Alpha's people (a viewer, a planner, a facility engineer and an admin) own one private
site; an outsider, a facility engineer on team Beta, must not learn it exists."""

import pytest

from accounts.roles import Role
from accounts.services import team_get_or_create, user_create
from planner.choices import Visibility
from planner.models import RackGroup
from planner.sites.services import rack_group_save, site_create
from tests.planner.sites.views.common import PASSWORD

# --- people and places -----------------------------------------------------------------------


@pytest.fixture
def alpha():
    return team_get_or_create(name="Alpha")


@pytest.fixture
def beta():
    return team_get_or_create(name="Beta")


@pytest.fixture
def people(alpha, beta):
    users = {
        role: user_create(username=role, password=PASSWORD, role=role, team=alpha)
        for role in Role.values
    }
    users["outsider"] = user_create(
        username="outsider", password=PASSWORD, role=Role.FACILITY, team=beta
    )
    return users


@pytest.fixture
def site(alpha, people):
    return site_create(
        team=alpha,
        user=people["facility"],
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
