"""What both access matrices share (tests/test_access_matrix.py reads, tests/
test_access_matrix_writes.py writes): the cast playing each role, the API's operations as the
OpenAPI document lists them, and one private row of each kind, all team Alpha's."""

import datetime as dt
import re

import pytest

from accounts.roles import has_role
from planner.simulations import services as simulations
from tests.cast import ANONYMOUS, OTHER_TEAM, PARTS

# Team Alpha's viewer, planner, facility engineer and admin; team Beta's planner and facility
# engineer (who may write sites, but not Alpha's); and no one.
ROLES = (ANONYMOUS, "viewer", "planner", "facility", "admin", "outsider", "outside_facility")


# A writer role of None: anyone may, signed in or not.
PUBLIC = None


def expected_status(
    cast,
    who: str,
    *,
    writer: str | tuple[str, ...] | None,
    success: int,
    anonymous: int,
    names_alphas_row: bool,
    names_alphas_parent: bool = False,
) -> int:
    """What a write answers `who` by the access rules: anyone may write a public one; no one
    signed in gets `anonymous` (401 from the API, a redirect to sign in from a page); a role
    below the writer (below every one, where several roles write) 403; a writer of team Beta 404 for Alpha's row (it must not learn the row
    exists) and 400 for a new row under an Alpha parent (not one it may choose); else success."""
    if writer is PUBLIC:
        return success
    if who == ANONYMOUS:
        return anonymous
    writers = writer if isinstance(writer, tuple) else (writer,)
    if not any(has_role(cast[who], role) for role in writers):
        return 403
    if PARTS[who].team == OTHER_TEAM:
        if names_alphas_row:
            return 404
        if names_alphas_parent:
            return 400
    return success


def api_operations() -> set[tuple[str, str]]:
    """Every (METHOD, path) the OpenAPI document lists."""
    from drf_spectacular.generators import SchemaGenerator

    schema = SchemaGenerator().get_schema(request=None, public=True)
    return {
        (method.upper(), path)
        for path, methods in schema["paths"].items()
        for method in methods
        if method in {"get", "post", "put", "patch", "delete"}
    }


@pytest.fixture(name="rows")
def access_rows(cast, reference_prices, monkeypatch):
    """One row of each kind, all Alpha's and private."""
    from accounts.services import token_create
    from catalog.models import ServerPlatform
    from planner.calibrations.services import calibration_create
    from planner.faults.services import fault_entry_create, fault_incident_create
    from planner.models import Equipment, PowerFeed
    from planner.plans.services import plan_create, workload_create
    from planner.racks.equipment import equipment_install
    from planner.racks.feeds import power_feed_save
    from tests.factories import PriceFactory, RackGroupFactory, SiteFactory
    from tests.planner.calibrations.test_api import PROBE
    from tests.planner.plans.test_candidates import TRAIN
    from tests.planner.plans.test_views import TRAIN_SPEC
    from tests.planner.simulations.test_api import TRAINING

    monkeypatch.setattr(simulations, "_publish", lambda simulation: None)
    site = SiteFactory(team=cast.team)
    plan = plan_create(data=TRAIN, user=cast.planner, team=cast.team)
    # A plan ranked in a site: what commits a build to racks and releases them.
    group = RackGroupFactory(site=site)
    site_plan = plan_create(data=TRAIN, user=cast.planner, team=cast.team, site=site)
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
    rack = group.racks.first()
    dgx = ServerPlatform.objects.get(slug="nvidia-dgx-h100")
    equipment = equipment_install(equipment=Equipment(rack=rack, server=dgx, position_u=1))
    feed = power_feed_save(
        feed=PowerFeed(rack=rack, name="A", voltage=400, amperage=32, phase="three")
    )
    return {
        "rack": rack.pk,
        "empty_rack": group.racks.last().pk,
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
        "site_plan": site_plan.pk,
        "workload": workload_create(
            name="Llama 3 8B", spec=TRAIN_SPEC, user=cast.planner, team=cast.team
        ).pk,
        "token": token_create(user=cast.planner, name="laptop")[0].pk,
        "cid": 0,
        "simulation": simulation.pk,
        "calibration": calibration_create(probe=PROBE, user=cast.planner, team=cast.team).pk,
    }


def row_url(path: str, rows: dict) -> str:
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
