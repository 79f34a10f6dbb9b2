"""The faults API: the diagnosis, the guide and a team's entries and incidents, who reads and
writes what, and another team's rows as 404."""

import pytest

from planner.models import FaultEntry, FaultIncident
from tests.planner.faults.conftest import NOTHING, OOM, XID_79

pytestmark = pytest.mark.django_db

DIAGNOSE = "/api/v1/diagnose/"
ENTRIES = "/api/v1/fault-entries/"
INCIDENTS = "/api/v1/fault-incidents/"
NEW_ENTRY = {
    "title_en": "Fabric manager not running",
    "category": "interconnect",
    "patterns": r"(?i)fabric manager.*(not running|failed)",
    "checks": "systemctl status nvidia-fabricmanager",
    "fixes_en": "Start nvidia-fabricmanager with the driver's version",
}


def test_diagnose_answers_ranked_matches_with_evidence(cast, fault_guide):
    response = cast.api("viewer").post(DIAGNOSE, {"text": f"boot ok\n{XID_79}"}, format="json")
    assert response.status_code == 200, response.content
    first = response.json()["matches"][0]
    assert first["key"] == "xid-79"
    assert first["evidence"] == {"line_number": 2, "line": XID_79}
    assert first["url"].startswith("http://testserver/faults/")


def test_diagnose_answers_in_the_requests_language(cast, fault_guide):
    response = cast.api("viewer").post(
        DIAGNOSE, {"text": OOM}, format="json", HTTP_ACCEPT_LANGUAGE="zh-hans"
    )
    assert response.json()["matches"][0]["title"] == "CUDA 显存不足（out of memory）"  # noqa: RUF001


def test_diagnose_says_when_nothing_matches(cast, fault_guide):
    response = cast.api("viewer").post(DIAGNOSE, {"text": NOTHING}, format="json")
    assert response.status_code == 200 and response.json()["matches"] == []


def test_diagnose_refuses_a_missing_text_naming_the_field(cast, fault_guide):
    response = cast.api("viewer").post(DIAGNOSE, {}, format="json")
    assert response.status_code == 400 and "text" in response.json()


def test_anonymous_requests_get_401(cast, fault_guide):
    anonymous = cast.api("anonymous")
    assert anonymous.post(DIAGNOSE, {"text": XID_79}, format="json").status_code == 401
    assert anonymous.get(ENTRIES).status_code == 401


def test_the_guide_is_listed_and_searchable(cast, fault_guide):
    client = cast.api("viewer")
    everything = client.get(ENTRIES, {"page_size": 200}).json()
    assert everything["count"] == len(fault_guide)
    found = client.get(ENTRIES, {"q": "fallen bus"}).json()["results"]
    assert [e["key"] for e in found] == ["xid-79"]
    by_code = client.get(ENTRIES, {"xid": 119}).json()["results"]
    assert [e["key"] for e in by_code] == ["xid-119-120"]


def test_planners_add_team_entries_that_stay_private(cast, fault_guide):
    created = cast.api("planner").post(ENTRIES, NEW_ENTRY, format="json")
    assert created.status_code == 201, created.content
    pk = created.json()["id"]
    assert created.json()["whose"] == "team"
    assert cast.api("viewer").get(f"{ENTRIES}{pk}/").status_code == 200
    assert cast.api("outsider").get(f"{ENTRIES}{pk}/").status_code == 404
    assert cast.api("outsider").get(f"{ENTRIES}{pk}/history/").status_code == 404


def test_viewers_may_not_write_and_the_guide_is_read_only(cast, fault_guide):
    assert cast.api("viewer").post(ENTRIES, NEW_ENTRY, format="json").status_code == 403
    guide = fault_guide["xid-79"]
    client = cast.api("planner")
    etag = client.get(f"{ENTRIES}{guide.pk}/")["ETag"]
    response = client.patch(
        f"{ENTRIES}{guide.pk}/", {"weight": 1}, format="json", HTTP_IF_MATCH=etag
    )
    assert response.status_code == 403
    assert FaultEntry.objects.get(pk=guide.pk).weight == 95


def test_a_bad_pattern_is_a_400_naming_the_field(cast, fault_guide):
    response = cast.api("planner").post(ENTRIES, {**NEW_ENTRY, "patterns": "(oops"}, format="json")
    assert response.status_code == 400 and "patterns" in response.json()


def test_incidents_are_recorded_with_history_and_hidden_from_other_teams(cast, fault_guide):
    client = cast.api("planner")
    created = client.post(
        INCIDENTS,
        {
            "entry": fault_guide["xid-79"].pk,
            "happened_on": "2026-11-20",
            "what_happened": "GPU 3 fell off the bus",
            "accelerator": None,
        },
        format="json",
    )
    assert created.status_code == 201, created.content
    url = f"{INCIDENTS}{created.json()['id']}/"
    response = client.patch(
        url,
        {"fix": "Reseated the riser", "resolved": True},
        format="json",
        HTTP_IF_MATCH=created["ETag"],
    )
    assert response.status_code == 200, response.content
    history = client.get(f"{url}history/").json()["results"]
    assert [h["kind"] for h in history] == ["changed", "created"]
    assert cast.api("outsider").get(url).status_code == 404
    assert cast.api("outsider").get(INCIDENTS).json()["count"] == 0
    assert FaultIncident.objects.get().team == cast.team
