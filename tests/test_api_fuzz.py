"""Every operation of the OpenAPI document, fuzzed in-process through the WSGI application by
schemathesis: valid and invalid parameters and bodies, each sent twice, signed with the token
of an admin of a team (so writes are allowed) and anonymously. Whatever is sent, the answer is
never a 5xx, its status is one the document lists for the operation, its body matches the
schema for that status, and data that breaks the schema is refused with a 4xx. (Valid data
may still be refused: the document cannot say which catalog slugs exist or which fields rule
each other out, and the API answers those with 400 naming the field; so schemathesis's
positive_data_acceptance check is left out.)

Every example runs in a savepoint that is rolled back, so each one starts from the same rows:
the catalog, a site with a rack group, a plan, a simulation and a calibration profile. In
about half of the valid examples the path's id or slug is replaced by one of those rows', so
updates and deletes reach real objects rather than only 404s.

Generation is derandomized (the same cases every run) and bounded by FUZZ_MAX_EXAMPLES per
operation and mode. The number of cases sent is printed and written to
$TMPDIR/flopfit-api-fuzz-cases.txt at the end of the module."""

from __future__ import annotations

import datetime as dt
import json
import os
import tempfile
import zlib
from pathlib import Path

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.db import close_old_connections, transaction
from hypothesis import HealthCheck, settings
from schemathesis import GenerationMode
from schemathesis.specs.openapi.checks import positive_data_acceptance

from accounts.services import token_create
from config.wsgi import application
from planner.calibrations.services import calibration_create
from planner.choices import SimulationKind, SimulationStatus
from planner.engine import MODEL_VERSION
from planner.faults.services import fault_entry_create, fault_incident_create
from planner.models import Simulation
from planner.plans.services import plan_create
from tests.factories import RackGroupFactory, SiteFactory

pytestmark = pytest.mark.slow

# Examples per operation and generation mode (schemathesis's coverage phase adds its own
# boundary cases on top): about 11,500 requests, 80 s of CPU, against PostgreSQL. Raise it
# locally to search harder.
FUZZ_MAX_EXAMPLES = int(os.environ.get("FLOPFIT_FUZZ_MAX_EXAMPLES", "15"))

PROBE = Path(__file__).parent / "fixtures" / "h200-probe.json"
CASES_FILE = Path(tempfile.gettempdir()) / "flopfit-api-fuzz-cases.txt"

# A small question, so the plan the fuzz reads is ranked in a fraction of a second.
PLAN_QUESTION = {
    "name": "Fuzz plan",
    "workload": {"task": "train", "model": "meta-llama-3-8b", "tokens": 1e11},
    "accelerators": ["nvidia-h100-sxm5-80gb", "amd-mi300x"],
    "count": {"min": 8, "max": 16},
}

schema = schemathesis.openapi.from_wsgi("/api/schema/?format=json", application)
schema.config.generation.update(
    modes=[GenerationMode.POSITIVE, GenerationMode.NEGATIVE], max_examples=FUZZ_MAX_EXAMPLES
)

cases_sent = {"count": 0}


@pytest.fixture(scope="module", autouse=True)
def _report_cases_sent():
    yield
    line = f"schemathesis: {cases_sent['count']} requests sent over the API document"
    CASES_FILE.write_text(line + "\n")
    print(f"\n{line} ({CASES_FILE})")


@pytest.fixture
def _connection_kept_open():
    """What Django's test client does: a request's end must not close the connection that
    holds the test's transaction (the WSGI application closes it after every request)."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@pytest.fixture
def world(loaded_catalog, cast, monkeypatch, _connection_kept_open):
    """The rows the fuzz can reach, the admin's token, and the ids to put in paths."""
    # The fuzz checks the HTTP contract; queueing is tested with a real worker elsewhere, and
    # a valid simulation question must not leave tasks in a shared broker.
    monkeypatch.setattr("planner.simulations.services._publish", lambda simulation: None)
    team, admin = cast.team, cast.admin
    _, key = token_create(user=admin, name="fuzz")
    site = SiteFactory(team=team)
    rack_group = RackGroupFactory(site=site)
    plan = plan_create(data=PLAN_QUESTION, user=admin, team=team)
    simulation = Simulation.objects.create(
        kind=SimulationKind.TRAINING,
        inputs={"kind": "training"},
        inputs_hash="fuzz" * 16,
        status=SimulationStatus.QUEUED,
        model_version=MODEL_VERSION,
        created_by=admin,
    )
    profile = calibration_create(
        probe=json.loads(PROBE.read_text()), name="Fuzz H200", user=admin, team=team
    )
    fault = fault_entry_create(
        team=team, user=admin, title_en="Fuzz fault", category="cuda", patterns="fuzz"
    )
    incident = fault_incident_create(
        team=team, user=admin, entry=fault, happened_on=dt.date(2026, 11, 1), what_happened="x"
    )
    slugs = {kind: rows[0].values["slug"] for kind, rows in loaded_catalog.items()}
    ids = {
        "/api/v1/sites/": site.pk,
        "/api/v1/rack-groups/": rack_group.pk,
        "/api/v1/plans/": plan.pk,
        "/api/v1/simulations/": simulation.pk,
        "/api/v1/calibrations/": profile.pk,
        "/api/v1/fault-entries/": fault.pk,
        "/api/v1/fault-incidents/": incident.pk,
        "/api/v1/accelerators/": slugs["accelerators"],
        "/api/v1/servers/": slugs["servers"],
        "/api/v1/fabrics/": slugs["fabrics"],
        "/api/v1/models/": slugs["models"],
    }
    return {"token": key, "ids": ids}


def _aim_at_a_real_row(case, ids: dict) -> None:
    """Put an existing row's id or slug in the path of about half the valid cases."""
    if not case.path_parameters or case.meta is None or case.meta.generation.mode.is_negative:
        return
    if zlib.crc32(repr(sorted(case.path_parameters.items())).encode()) % 2:
        return
    for prefix, value in ids.items():
        if case.path.startswith(prefix):
            name = next(iter(case.path_parameters))
            case.path_parameters[name] = value


@pytest.mark.django_db
@schema.parametrize()
@settings(
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=list(HealthCheck),
)
def test_no_input_breaks_the_api(case, world):
    _aim_at_a_real_row(case, world["ids"])
    for headers in ({"Authorization": f"Token {world['token']}"}, {}):
        with transaction.atomic():
            response = case.call(headers=headers)
            transaction.set_rollback(True)
        cases_sent["count"] += 1
        case.validate_response(
            response, headers=headers, excluded_checks=[positive_data_acceptance]
        )
