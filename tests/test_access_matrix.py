"""The access matrix: every API operation that reads (every GET in the OpenAPI document), run
as each of the cast (anonymous, viewer, planner, facility, admin of team Alpha, and a planner and
a facility engineer of team Beta), on rows that belong to Alpha; each answers the status written
here (the writes: tests/test_access_matrix_writes.py). A new GET operation fails `test_the_matrix_covers_every_read_operation` until its
row is added, so no view ships without saying who may read it.

Alpha's private rows are a 404 to Beta's planner (it must not learn they exist); the catalog
answers anyone; everything else wants a signed-in user (401 with a challenge otherwise)."""

import pytest

from tests.access import ANONYMOUS, ROLES, access_rows, api_operations, row_url  # noqa: F401 (fixture "rows")

pytestmark = pytest.mark.django_db

PUBLIC = dict.fromkeys(ROLES, 200)
SIGNED_IN = {**PUBLIC, ANONYMOUS: 401}
ALPHAS_OWN = {**SIGNED_IN, "outsider": 404, "outside_facility": 404}

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
}
# Pages of Alpha's private rows, the same rule as the API.
PAGES: dict[str, dict[str, int]] = {
    "/simulations/{simulation}/": {**ALPHAS_OWN, ANONYMOUS: 302},
    "/plans/{plan}/": {**ALPHAS_OWN, ANONYMOUS: 302},
    "/sites/{site}/": {**ALPHAS_OWN, ANONYMOUS: 302},
    "/calibrations/{calibration}/": {**ALPHAS_OWN, ANONYMOUS: 302},
}


def test_the_matrix_covers_every_read_operation():
    assert {op for op in api_operations() if op[0] == "GET"} - set(MATRIX) == set()


# One test per operation, each run as every role on fresh rows.
@pytest.mark.parametrize(("method", "path"), sorted(MATRIX))
def test_each_role_gets_the_status_the_matrix_says(cast, rows, method, path):
    url = row_url(path, rows)
    got = {who: cast.api(who).generic(method, url).status_code for who in ROLES}
    assert got == MATRIX[(method, path)]


@pytest.mark.parametrize("page", sorted(PAGES))
def test_each_role_gets_the_status_the_matrix_says_on_pages(cast, rows, page):
    url = page.format(**rows)
    got = {who: cast.browser(who).get(url).status_code for who in ROLES}
    assert got == PAGES[page]
