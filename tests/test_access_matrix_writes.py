"""The access matrix for writes: every API operation that changes or computes (every POST, PUT,
PATCH and DELETE in the OpenAPI document), run as each of the cast on rows that belong to team
Alpha, with a body that would succeed, and the If-Match of the row's current version where the
write needs one. Each role's request runs in a savepoint rolled back after it, so every role
writes to the same fresh rows. A new write operation fails
`test_the_matrix_covers_every_write_operation` until its row is added here.

The rule the statuses follow: no one signed in gets 401 (the public computations excepted); a
role below the operation's writer gets 403; a team Beta writer gets 404 on Alpha's row (it must
not learn the row exists) and 400 when its new row names an Alpha parent (the parent is not one
it may choose); a writer of Alpha gets the operation's success."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import transaction

from accounts.roles import Role
from planner.web.roles import PLAN_MAKERS
from tests.access import (
    PUBLIC,
    ROLES,
    access_rows,  # noqa: F401 (fixture "rows")
    api_operations,
    expected_status,
    row_url,
)

pytestmark = pytest.mark.django_db

ANY_ROLE = Role.VIEWER

# (method, path): (who may, status on success). Changes to a row need its writer's role; the
# computations that store nothing are open to any role (the estimate and compatibility check to
# anyone).
WRITES: dict[tuple[str, str], tuple[str | tuple[str, ...] | None, int]] = {
    ("POST", "/api/v1/estimates/"): (PUBLIC, 200),
    ("POST", "/api/v1/compat/"): (PUBLIC, 200),
    ("POST", "/api/v1/fit/"): (ANY_ROLE, 200),
    ("POST", "/api/v1/diagnose/"): (ANY_ROLE, 200),
    ("POST", "/api/v1/calibrations/"): (Role.PLANNER, 201),
    ("POST", "/api/v1/plans/"): (PLAN_MAKERS, 201),
    ("POST", "/api/v1/plans/{id}/rank/"): (PLAN_MAKERS, 200),
    ("POST", "/api/v1/plans/{id}/release/"): (Role.PLANNER, 200),
    ("POST", "/api/v1/plans/{id}/candidates/{cid}/commit/"): (Role.PLANNER, 201),
    ("POST", "/api/v1/netbox/import/"): (Role.FACILITY, 200),
    ("POST", "/api/v1/simulations/"): (Role.PLANNER, 202),
    ("POST", "/api/v1/simulations/{id}/cancel/"): (Role.PLANNER, 202),
    ("POST", "/api/v1/prices/{id}/copy/"): (Role.PLANNER, 201),
}
for _kind, _writer in {
    "sites": Role.FACILITY,
    "rack-groups": Role.FACILITY,
    "racks": Role.FACILITY,
    "equipment": Role.FACILITY,
    "power-feeds": Role.FACILITY,
    "prices": Role.PLANNER,
    "fault-entries": Role.PLANNER,
    "fault-incidents": Role.PLANNER,
}.items():
    WRITES[("POST", f"/api/v1/{_kind}/")] = (_writer, 201)
    WRITES[("PUT", f"/api/v1/{_kind}/{{id}}/")] = (_writer, 200)
    WRITES[("PATCH", f"/api/v1/{_kind}/{{id}}/")] = (_writer, 200)
    WRITES[("DELETE", f"/api/v1/{_kind}/{{id}}/")] = (_writer, 204)

# New rows that hang from one of Alpha's rows: Beta's writer names a parent it may not choose.
CHILD_OF_ALPHA = {"rack-groups", "racks", "equipment", "power-feeds", "fault-incidents"}
WRITE_METHODS = {"POST", "PUT", "PATCH", "DELETE"}


NETBOX_IMPORT = "/api/v1/netbox/import/"


def _netbox_upload() -> dict:
    """NetBox's API exports, as a dry run: a team's facility people import them into their own
    sites, whichever team they are in."""
    from tests.planner.netbox.conftest import API_FILES, FIXTURES

    files = [SimpleUploadedFile(name, (FIXTURES / name).read_bytes()) for name in API_FILES]
    return {"files": files, "dry_run": "true", "pue": "1.3", "electricity_price_per_kwh": "0.65"}


def expected(cast, method: str, path: str, who: str) -> int:
    writer, success = WRITES[(method, path)]
    return expected_status(
        cast,
        who,
        writer=writer,
        success=success,
        anonymous=401,
        names_alphas_row="{id}" in path,
        names_alphas_parent=path.split("/")[3] in CHILD_OF_ALPHA,
    )


def test_the_matrix_covers_every_write_operation():
    assert {op for op in api_operations() if op[0] in WRITE_METHODS} - set(WRITES) == set()


def _new(kind: str, rows: dict) -> dict:
    """A body that creates a row of `kind` (in the caller's team; under Alpha's parents)."""
    from tests.planner.calibrations.test_api import PROBE
    from tests.planner.estimates.test_api import QUESTION as ESTIMATE
    from tests.planner.estimates.test_fit import QUESTION as FIT
    from tests.planner.faults.test_api import NEW_ENTRY
    from tests.planner.plans.test_candidates import SERVE
    from tests.planner.prices.test_api import NEW_RATE
    from tests.planner.simulations.test_api import SERVING
    from tests.planner.sites.test_api import NEW_SITE

    return {
        "calibrations": PROBE,
        "plans": SERVE,
        "simulations": SERVING,
        "sites": NEW_SITE,
        "prices": NEW_RATE,
        "fault-entries": NEW_ENTRY,
        "fault-incidents": {
            "entry": rows["fault_entry"],
            "happened_on": "2026-11-21",
            "hardware": "gpu-3",
            "what_happened": "Stalled again",
            "fix": "Failed over",
            "resolved": True,
        },
        "rack-groups": {
            "site": rows["site"],
            "name": "Row N",
            "count": 2,
            "power_kw": 40,
            "cooling_kw": 40,
            "units": 42,
            "max_kg": 1500,
        },
        "racks": {"rack_group": rows["rack_group"], "name": "Spare", "position": 9},
        "equipment": {"rack": rows["rack"], "server": "nvidia-dgx-h100", "position_u": 20},
        "power-feeds": {
            "rack": rows["rack"],
            "name": "B",
            "voltage": 400,
            "amperage": 32,
            "phase": "three",
        },
        "estimates": ESTIMATE,
        "fit": FIT,
        "compat": {"accelerator": "nvidia-h100-sxm5-80gb", "driver": "550", "torch": "2.4.0"},
        "diagnose": {"text": "NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus."},
    }[kind]


def _request(cast, rows, method: str, path: str) -> tuple[str, dict, dict]:
    """The URL, body and headers that would make the write succeed for Alpha's writer: a new
    row's fields, or the row as Alpha's admin reads it with its version in If-Match."""
    kind = path.split("/")[3]
    if path.endswith(("/commit/", "/release/")):  # a plan ranked in Alpha's site
        rows = {**rows, "plan": rows["site_plan"]}
    if (method, kind) == ("DELETE", "racks"):  # a rack with equipment in it is refused (409)
        rows = {**rows, "rack": rows["empty_rack"]}
    url = row_url(path, rows)
    if path == NETBOX_IMPORT or path.endswith(("/rank/", "/release/", "/commit/", "/cancel/")):
        # The import's files are made per request; the actions on a row take no fields.
        return url, {}, {}
    if method == "POST" and "{id}" not in path:
        return url, _new(kind, rows), {}
    read = cast.api("admin").get(url.removesuffix("copy/"))
    assert read.status_code == 200, read.content
    headers = {"HTTP_IF_MATCH": read["ETag"]} if read.has_header("ETag") else {}
    body = read.json() if method in {"PUT", "PATCH"} else {}
    return url, body, headers


@pytest.mark.parametrize(("method", "path"), sorted(WRITES))
def test_each_role_gets_the_status_the_rules_say(cast, rows, method, path):
    url, body, headers = _request(cast, rows, method, path)
    clients = {who: cast.api(who) for who in ROLES}
    got, said = {}, {}
    for who in ROLES:
        with transaction.atomic():
            send = getattr(clients[who], method.lower())
            if path == NETBOX_IMPORT:  # files, read afresh by each role's request
                response = send(url, _netbox_upload(), format="multipart")
            else:
                response = send(url, body, format="json", **headers)
            transaction.set_rollback(True)
        got[who] = response.status_code
        said[who] = response.content[:200]
    want = {who: expected(cast, method, path, who) for who in ROLES}
    assert got == want, {who: said[who] for who in ROLES if got[who] != want[who]}
