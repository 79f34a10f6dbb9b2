"""The access matrix: every API operation that reads (every GET in the OpenAPI document), and
cancelling a simulation, run as each of the cast (anonymous, viewer, planner, facility, admin of
team Alpha, and a planner of team Beta), on rows that belong to Alpha; each answers the status
written here. A new GET operation fails `test_the_matrix_covers_every_read_operation` until its
row is added, so no view ships without saying who may read it.

Alpha's private rows are a 404 to Beta's planner (it must not learn they exist); the catalog
answers anyone; everything else wants a signed-in user (401 with a challenge otherwise)."""

import datetime as dt
import re

import pytest

from planner.simulations import services as simulations
from tests.cast import ANONYMOUS

pytestmark = pytest.mark.django_db

ROLES = (ANONYMOUS, "viewer", "planner", "facility", "admin", "outsider")
PUBLIC = dict.fromkeys(ROLES, 200)
SIGNED_IN = {**PUBLIC, ANONYMOUS: 401}
ALPHAS_OWN = {**SIGNED_IN, "outsider": 404}

MATRIX: dict[tuple[str, str], dict[str, int]] = {
    ("GET", "/api/v1/accelerators/"): PUBLIC,
    ("GET", "/api/v1/accelerators/{slug}/"): PUBLIC,
    ("GET", "/api/v1/fabrics/"): PUBLIC,
    ("GET", "/api/v1/fabrics/{slug}/"): PUBLIC,
    ("GET", "/api/v1/models/"): PUBLIC,
    ("GET", "/api/v1/models/{slug}/"): PUBLIC,
    ("GET", "/api/v1/servers/"): PUBLIC,
    ("GET", "/api/v1/servers/{slug}/"): PUBLIC,
    ("GET", "/api/v1/calibrations/"): SIGNED_IN,
    ("GET", "/api/v1/calibrations/{id}/"): ALPHAS_OWN,
    ("GET", "/api/v1/plans/"): SIGNED_IN,
    ("GET", "/api/v1/plans/{id}/"): ALPHAS_OWN,
    ("GET", "/api/v1/plans/{id}/candidates/"): ALPHAS_OWN,
    ("GET", "/api/v1/plans/{id}/candidates/{cid}/"): ALPHAS_OWN,
    ("GET", "/api/v1/plans/{id}/candidates/{cid}/purchase-list/"): ALPHAS_OWN,
    ("GET", "/api/v1/plans/{id}/commitments/"): ALPHAS_OWN,
    ("GET", "/api/v1/fault-entries/"): SIGNED_IN,
    ("GET", "/api/v1/fault-entries/{id}/"): ALPHAS_OWN,
    ("GET", "/api/v1/fault-entries/{id}/history/"): ALPHAS_OWN,
    ("GET", "/api/v1/fault-incidents/"): SIGNED_IN,
    ("GET", "/api/v1/fault-incidents/{id}/"): ALPHAS_OWN,
    ("GET", "/api/v1/fault-incidents/{id}/history/"): ALPHAS_OWN,
    ("GET", "/api/v1/prices/"): SIGNED_IN,
    ("GET", "/api/v1/prices/{id}/"): ALPHAS_OWN,
    ("GET", "/api/v1/prices/{id}/history/"): ALPHAS_OWN,
    ("GET", "/api/v1/rack-groups/"): SIGNED_IN,
    ("GET", "/api/v1/rack-groups/{id}/"): ALPHAS_OWN,
    ("GET", "/api/v1/rack-groups/{id}/history/"): ALPHAS_OWN,
    ("GET", "/api/v1/racks/"): SIGNED_IN,
    ("GET", "/api/v1/racks/{id}/"): ALPHAS_OWN,
    ("GET", "/api/v1/racks/{id}/history/"): ALPHAS_OWN,
    ("GET", "/api/v1/equipment/"): SIGNED_IN,
    ("GET", "/api/v1/equipment/{id}/"): ALPHAS_OWN,
    ("GET", "/api/v1/equipment/{id}/history/"): ALPHAS_OWN,
    ("GET", "/api/v1/power-feeds/"): SIGNED_IN,
    ("GET", "/api/v1/power-feeds/{id}/"): ALPHAS_OWN,
    ("GET", "/api/v1/power-feeds/{id}/history/"): ALPHAS_OWN,
    ("GET", "/api/v1/sites/"): SIGNED_IN,
    ("GET", "/api/v1/sites/{id}/"): ALPHAS_OWN,
    ("GET", "/api/v1/sites/{id}/history/"): ALPHAS_OWN,
    ("GET", "/api/v1/simulations/"): SIGNED_IN,
    ("GET", "/api/v1/simulations/{id}/"): ALPHAS_OWN,
    # Cancelling: planners and admins of the team; a viewer or facility engineer may not (403);
    # another team's planner must not learn the run exists (404).
    ("DELETE", "/api/v1/simulations/{id}/"): {
        ANONYMOUS: 401,
        "viewer": 403,
        "planner": 202,
        "facility": 403,
        "admin": 202,
        "outsider": 404,
    },
}
# Pages of Alpha's private rows, the same rule as the API.
PAGES: dict[str, dict[str, int]] = {
    "/simulations/{simulation}/": {**ALPHAS_OWN, ANONYMOUS: 302},
    "/plans/{plan}/": {**ALPHAS_OWN, ANONYMOUS: 302},
    "/sites/{site}/": {**ALPHAS_OWN, ANONYMOUS: 302},
    "/calibrations/{calibration}/": {**ALPHAS_OWN, ANONYMOUS: 302},
}


def _read_operations() -> set[tuple[str, str]]:
    from drf_spectacular.generators import SchemaGenerator

    schema = SchemaGenerator().get_schema(request=None, public=True)
    return {("GET", path) for path, methods in schema["paths"].items() if "get" in methods}


def test_the_matrix_covers_every_read_operation():
    assert _read_operations() - set(MATRIX) == set()


@pytest.fixture
def rows(cast, reference_prices, monkeypatch):
    """One row of each kind, all Alpha's and private."""
    from catalog.models import ServerPlatform
    from planner.calibrations.services import calibration_create
    from planner.faults.services import fault_entry_create, fault_incident_create
    from planner.models import Equipment, PowerFeed
    from planner.plans.services import plan_create
    from planner.racks.equipment import equipment_install
    from planner.racks.feeds import power_feed_save
    from tests.factories import PriceFactory, RackGroupFactory, SiteFactory
    from tests.planner.calibrations.test_api import PROBE
    from tests.planner.plans.test_candidates import TRAIN
    from tests.planner.simulations.test_api import TRAINING

    monkeypatch.setattr(simulations, "_publish", lambda simulation: None)
    site = SiteFactory(team=cast.team)
    plan = plan_create(data=TRAIN, user=cast.planner, team=cast.team)
    simulation, _ = simulations.simulation_start(data=TRAINING, user=cast.planner)
    entry = fault_entry_create(
        team=cast.team,
        user=cast.planner,
        title_en="Checkpoint writes stall",
        category="throughput",
        patterns=r"LustreError: .*timed out",
        weight=70,
        causes_en="A storage target loses its link",
        checks="lctl dl",
        fixes_en="Fail the target over",
    )
    incident = fault_incident_create(
        team=cast.team,
        user=cast.planner,
        entry=entry,
        happened_on=dt.date(2026, 11, 20),
        hardware="gpu-17",
        what_happened="Checkpoint stalled",
        fix="Failed over",
        resolved=True,
    )
    group = RackGroupFactory(site=site)
    rack = group.racks.first()
    dgx = ServerPlatform.objects.get(slug="nvidia-dgx-h100")
    equipment = equipment_install(equipment=Equipment(rack=rack, server=dgx, position_u=1))
    feed = power_feed_save(
        feed=PowerFeed(rack=rack, name="A", voltage=400, amperage=32, phase="three")
    )
    return {
        "rack": rack.pk,
        "equipment": equipment.pk,
        "power_feed": feed.pk,
        "fault_entry": entry.pk,
        "fault_incident": incident.pk,
        "accelerators": "nvidia-h100-sxm5-80gb",
        "fabrics": "ib-ndr-400",
        "models": "meta-llama-3-8b",
        "servers": "nvidia-dgx-h100",
        "site": site.pk,
        "rack_group": group.pk,
        "price": PriceFactory(team=cast.team).pk,
        "plan": plan.pk,
        "cid": 0,
        "simulation": simulation.pk,
        "calibration": calibration_create(probe=PROBE, user=cast.planner, team=cast.team).pk,
    }


def _url(path: str, rows: dict) -> str:
    kind = re.match(r"/api/v1/([a-z-]+)/", path)
    row_for = {
        "calibrations": "calibration",
        "fault-entries": "fault_entry",
        "racks": "rack",
        "equipment": "equipment",
        "power-feeds": "power_feed",
        "fault-incidents": "fault_incident",
        "plans": "plan",
        "prices": "price",
        "rack-groups": "rack_group",
        "sites": "site",
        "simulations": "simulation",
    }
    own = row_for.get(kind.group(1), "") if kind else ""

    def value(match: re.Match) -> str:
        name = match.group(1)
        if name == "slug":  # the catalog: a slug of the kind the path names
            return rows[kind.group(1)] if kind else ""
        return str(rows[own] if name == "id" else rows[name])

    return re.sub(r"\{(\w+)\}", value, path)


# One test per operation, each run as every role on fresh rows.
@pytest.mark.parametrize(("method", "path"), sorted(MATRIX))
def test_each_role_gets_the_status_the_matrix_says(cast, rows, method, path):
    url = _url(path, rows)
    got = {}
    for who in ROLES:
        if method == "DELETE":  # each cancel on a run still queued
            from planner.models import Simulation

            Simulation.objects.filter(pk=rows["simulation"]).update(
                status="queued", finished_at=None
            )
        got[who] = cast.api(who).generic(method, url).status_code
    assert got == MATRIX[(method, path)]


@pytest.mark.parametrize("page", sorted(PAGES))
def test_each_role_gets_the_status_the_matrix_says_on_pages(cast, rows, page):
    url = page.format(**rows)
    got = {who: cast.browser(who).get(url).status_code for who in ROLES}
    assert got == PAGES[page]
