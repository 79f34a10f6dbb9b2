"""The racks API: who may read and write which rack, and how a rack's writes move its group."""

import pytest

from planner.models import Rack

pytestmark = pytest.mark.django_db

RACKS = "/api/v1/racks/"


def etag(client, url: str) -> dict:
    response = client.get(url)
    assert response.status_code == 200, response.content
    return {"HTTP_IF_MATCH": response["ETag"]}


def test_everyone_on_the_team_reads_racks_with_their_limits(cast, group):
    response = cast.api("viewer").get(RACKS, {"rack_group": group.pk})
    assert response.status_code == 200
    rows = response.json()["results"]
    assert [r["name"] for r in rows] == ["Row A-01", "Row A-02", "Row A-03"]
    assert rows[0]["limits"] == {
        "power_kw": 20.0,
        "cooling_kw": 25.0,
        "units": 42,
        "max_kg": 1200.0,
        "power_from": "group",
    }


def test_another_team_private_rack_is_404(cast, group):
    rack = group.racks.first()
    assert cast.api("outsider").get(f"{RACKS}{rack.pk}/").status_code == 404
    client = cast.api("outside_facility")
    assert client.patch(f"{RACKS}{rack.pk}/", {"notes": "x"}, format="json").status_code == 404


def test_facility_adds_a_rack_and_the_group_count_follows(cast, group):
    new = {"rack_group": group.pk, "name": "Spare", "position": 4, "power_kw": 35}
    response = cast.api("facility").post(RACKS, new, format="json")
    assert response.status_code == 201, response.content
    assert response.json()["limits"]["power_kw"] == 35
    group.refresh_from_db()
    assert group.count == 4


def test_viewer_and_planner_may_not_write_racks(cast, group):
    new = {"rack_group": group.pk, "name": "Spare", "position": 4}
    for who in ("viewer", "planner"):
        assert cast.api(who).post(RACKS, new, format="json").status_code == 403


def test_a_shared_site_rack_is_read_only_for_another_team(cast, shared_group):
    rack = shared_group.racks.first()
    client = cast.api("facility")
    assert client.get(f"{RACKS}{rack.pk}/").status_code == 200
    response = client.patch(
        f"{RACKS}{rack.pk}/", {"notes": "x"}, format="json", **etag(client, f"{RACKS}{rack.pk}/")
    )
    assert response.status_code == 403


def test_a_rack_with_a_name_taken_in_its_group_is_409(cast, group):
    new = {"rack_group": group.pk, "name": "Row A-01", "position": 4}
    response = cast.api("facility").post(RACKS, new, format="json")
    assert response.status_code == 409
    assert response.json()["field"] == "name"


def test_a_bad_limit_is_400_naming_the_field(cast, group):
    new = {"rack_group": group.pk, "name": "Hot", "position": 4, "power_kw": 9000}
    response = cast.api("facility").post(RACKS, new, format="json")
    assert response.status_code == 400
    assert "power_kw" in response.json()


def test_deleting_a_rack_needs_its_etag_and_moves_the_count(cast, group):
    client = cast.api("facility")
    rack = group.racks.first()
    url = f"{RACKS}{rack.pk}/"
    assert client.delete(url).status_code == 428
    assert client.delete(url, **etag(client, url)).status_code == 204
    group.refresh_from_db()
    assert group.count == 2 and not Rack.objects.filter(pk=rack.pk).exists()


def test_rack_group_api_keeps_working_and_its_count_makes_racks(cast, group):
    client = cast.api("facility")
    url = f"/api/v1/rack-groups/{group.pk}/"
    response = client.patch(url, {"count": 5}, format="json", **etag(client, url))
    assert response.status_code == 200, response.content
    assert group.racks.count() == 5


EQUIPMENT = "/api/v1/equipment/"


def test_facility_installs_a_catalog_server_over_the_api(cast, group):
    rack = group.racks.first()
    new = {"rack": rack.pk, "server": "nvidia-dgx-h100", "position_u": 1}
    response = cast.api("facility").post(EQUIPMENT, new, format="json")
    assert response.status_code == 201, response.content
    assert response.json()["nameplate_kw"] == 10.2
    clash = cast.api("facility").post(EQUIPMENT, {**new, "position_u": 4}, format="json")
    assert clash.status_code == 400 and "position_u" in clash.json()


def test_equipment_writes_need_facility_and_deletes_only_remove(cast, group):
    rack = group.racks.first()
    new = {"rack": rack.pk, "name": "leaf", "position_u": 40, "units": 1}
    new |= {"nameplate_kw": 0.5, "weight_kg": 9}
    assert cast.api("planner").post(EQUIPMENT, new, format="json").status_code == 403
    client = cast.api("facility")
    created = client.post(EQUIPMENT, new, format="json").json()
    url = f"{EQUIPMENT}{created['id']}/"
    assert client.delete(url, **etag(client, url)).status_code == 204
    assert client.get(url).json()["removed_at"] is not None
    assert cast.api("outsider").get(url).status_code == 404
