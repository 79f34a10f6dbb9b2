"""POST /api/v1/netbox/import/: the same import over the API, for facility people only."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from planner.models import Site
from tests.planner.netbox.conftest import API_FILES, FIXTURES

pytestmark = pytest.mark.django_db
URL = "/api/v1/netbox/import/"


def body(**fields):
    files = [open(FIXTURES / name, "rb") for name in API_FILES]  # noqa: SIM115
    return {"files": files, "pue": "1.3", "electricity_price_per_kwh": "0.65"} | fields


def test_a_dry_run_then_the_import_it_showed(cast):
    api = cast.api("facility")
    dry = api.post(URL, body(dry_run="true"), format="multipart")
    assert dry.status_code == 200, dry.json()
    answer = dry.json()
    assert answer["dry_run"] and answer["counts"]["created"] == 8
    assert {r["rack"]: r["usable_power_kw"] for r in answer["racks"]} == {
        "B01": 17.736,
        "B02": 17.736,
    }
    assert not Site.objects.filter(team=cast.team).exists()
    done = api.post(URL, body(expected=answer["fingerprint"]), format="multipart")
    assert done.status_code == 200 and done.json()["counts"]["created"] == 8
    again = api.post(URL, body(expected=answer["fingerprint"]), format="multipart")
    assert again.status_code == 409  # the import now writes nothing, not what the dry run showed


def test_a_bad_file_answers_400_with_file_line_and_column(cast):
    api = cast.api("facility")
    bad = FIXTURES / "api/racks.json"
    files = body()
    feeds = b'{"results": [\n {"power_panel": {"id": 5, "name": "PP-2"}, "name": "X", "amperage": "lots"}]}'
    files["files"] = [open(bad, "rb"), SimpleUploadedFile("power-feeds.json", feeds)]  # noqa: SIM115
    response = api.post(URL, files, format="multipart")
    assert response.status_code == 400
    (problem,) = response.json()["problems"]
    assert problem | {"message": ""} == {
        "file": "power-feeds.json",
        "line": 2,
        "column": 70,
        "field": "amperage",
        "message": "",
    }
    assert not Site.objects.filter(team=cast.team).exists()


@pytest.mark.parametrize(("who", "status"), [("anonymous", 401), ("viewer", 403), ("planner", 403)])
def test_only_facility_people_may_import(cast, who, status):
    assert cast.api(who).post(URL, body(), format="multipart").status_code == status
