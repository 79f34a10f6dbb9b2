"""The sites and rack-groups API: who may read and write what, how bad input is answered, and
the history of each row. Team Alpha owns the sites (tests/cast.py); its facility engineer
writes them, and the outside facility engineer, on team Beta, may write only Beta's."""

import dataclasses
from datetime import datetime

import pytest
from rest_framework.test import APIClient

from accounts.roles import Role
from planner.choices import RackCooling, Visibility
from planner.models import RackGroup, Site
from tests.factories import FabricFactory, RackGroupFactory, SiteFactory, UserFactory

pytestmark = pytest.mark.django_db

SITES = "/api/v1/sites/"
RACKS = "/api/v1/rack-groups/"

NEW_SITE = {
    "name": "Hall B",
    "location": "Suzhou",
    "currency": "CNY",
    "electricity_price_per_kwh": "0.7000",
    "pue": 1.4,
    "visibility": Visibility.TEAM,
    "notes": "",
}


def new_rack_group(site: Site, **changes) -> dict:
    return {
        "site": site.pk,
        "name": "Row N",
        "count": 4,
        "power_kw": 40,
        "feeds": "2n",
        "cooling_kw": 40,
        "cooling": RackCooling.ROOM_AIR,
        "units": 42,
        "max_kg": 1500,
        "inlet_c": 25,
        "liquid_loops": False,
        "fabrics": [],
        **changes,
    }


def read(client: APIClient, url: str) -> dict:
    """If-Match for a write: the ETag of the row as `client` reads it now."""
    response = client.get(url)
    assert response.status_code == 200, response.content
    return {"HTTP_IF_MATCH": response["ETag"]}


@pytest.fixture
def site(cast):
    return SiteFactory(team=cast.team, name="Hall A")


@pytest.fixture
def shared_site(cast):
    return SiteFactory(team=cast.team, name="Hall S", visibility=Visibility.SHARED)


@pytest.fixture
def rack_group(site):
    return RackGroupFactory(site=site, name="Row A")


@pytest.fixture
def shared_rack_group(shared_site):
    return RackGroupFactory(site=shared_site, name="Row S")


@pytest.fixture
def facility(cast) -> APIClient:
    """The API as team Alpha's facility engineer sees it."""
    return cast.api("facility")


@pytest.fixture
def outsider(cast) -> APIClient:
    """The API as a facility engineer of another team sees it."""
    return cast.api("outside_facility")


def counts() -> tuple[int, int]:
    return Site.objects.count(), RackGroup.objects.count()


# Role matrix -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("get", SITES),
        ("post", SITES),
        ("get", SITES + "{site}/"),
        ("put", SITES + "{site}/"),
        ("patch", SITES + "{site}/"),
        ("delete", SITES + "{site}/"),
        ("get", SITES + "{site}/history/"),
        ("get", RACKS),
        ("post", RACKS),
        ("get", RACKS + "{rack_group}/"),
        ("put", RACKS + "{rack_group}/"),
        ("patch", RACKS + "{rack_group}/"),
        ("delete", RACKS + "{rack_group}/"),
        ("get", RACKS + "{rack_group}/history/"),
    ],
)
def test_anonymous_requests_get_401_with_a_token_challenge(method, path, cast, site, rack_group):
    url = path.format(site=site.pk, rack_group=rack_group.pk)
    response = getattr(cast.api("anonymous"), method)(url, {}, format="json")
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == "Token"


@pytest.mark.parametrize("role", [Role.VIEWER, Role.PLANNER])
def test_viewers_and_planners_read_their_team_sites_but_write_nothing(role, cast, site, rack_group):
    client = cast.api(role)
    before = counts()

    assert client.get(SITES).json()["count"] == 1
    assert client.get(f"{SITES}{site.pk}/").status_code == 200
    assert client.get(f"{SITES}{site.pk}/history/").status_code == 200
    assert client.get(RACKS).json()["count"] == 1
    assert client.get(f"{RACKS}{rack_group.pk}/").status_code == 200
    assert client.get(f"{RACKS}{rack_group.pk}/history/").status_code == 200

    assert client.post(SITES, NEW_SITE, format="json").status_code == 403
    assert client.put(f"{SITES}{site.pk}/", NEW_SITE, format="json").status_code == 403
    assert client.patch(f"{SITES}{site.pk}/", {"pue": 1.5}, format="json").status_code == 403
    assert client.delete(f"{SITES}{site.pk}/").status_code == 403
    assert client.post(RACKS, new_rack_group(site), format="json").status_code == 403
    rack_url = f"{RACKS}{rack_group.pk}/"
    assert client.put(rack_url, new_rack_group(site), format="json").status_code == 403
    assert client.patch(rack_url, {"count": 1}, format="json").status_code == 403
    assert client.delete(rack_url).status_code == 403

    assert counts() == before
    site.refresh_from_db()
    assert (site.name, site.pue) == ("Hall A", 1.3)


def test_facility_creates_updates_and_deletes_sites_of_their_own_team(facility, cast):
    created = facility.post(SITES, {**NEW_SITE, "team": cast.other_team.pk}, format="json")
    assert created.status_code == 201
    body = created.json()
    assert body["team"] == cast.team.name  # the user's team; the body's "team" is ignored
    assert Site.objects.get(pk=body["id"]).team == cast.team
    assert body["capacity"] == {"racks": 0, "power_kw": 0.0, "cooling_kw": 0.0, "units": 0}

    url = f"{SITES}{body['id']}/"
    created_tag = {"HTTP_IF_MATCH": created["ETag"]}
    replaced = facility.put(
        url, {**NEW_SITE, "name": "Hall C", "pue": 1.2}, format="json", **created_tag
    )
    assert replaced.status_code == 200
    assert (replaced.json()["name"], replaced.json()["pue"]) == ("Hall C", 1.2)
    # Each write answers the new ETag, so the next write can follow without reading again.
    patched = facility.patch(
        url,
        {"visibility": Visibility.SHARED},
        format="json",
        HTTP_IF_MATCH=replaced["ETag"],
    )
    assert patched.status_code == 200
    assert patched.json()["visibility"] == "shared"

    assert facility.delete(url, HTTP_IF_MATCH=patched["ETag"]).status_code == 204
    assert not Site.objects.filter(pk=body["id"]).exists()


def test_facility_creates_updates_and_deletes_rack_groups_on_their_own_site(facility, site):
    fabric = FabricFactory(slug="ib-ndr-400")
    created = facility.post(RACKS, new_rack_group(site, fabrics=["ib-ndr-400"]), format="json")
    assert created.status_code == 201
    body = created.json()
    assert (body["site"], body["fabrics"]) == (site.pk, ["ib-ndr-400"])
    group = RackGroup.objects.get(pk=body["id"])
    assert list(group.fabrics.all()) == [fabric]

    url = f"{RACKS}{body['id']}/"
    replaced = facility.put(
        url,
        new_rack_group(site, count=8, fabrics=[]),
        format="json",
        HTTP_IF_MATCH=created["ETag"],
    )
    assert replaced.status_code == 200
    assert (replaced.json()["count"], replaced.json()["fabrics"]) == (8, [])
    patched = facility.patch(url, {"power_kw": 60}, format="json", **read(facility, url))
    assert patched.status_code == 200
    assert patched.json()["power_kw"] == 60

    assert facility.delete(url, HTTP_IF_MATCH=patched["ETag"]).status_code == 204
    assert not RackGroup.objects.filter(pk=body["id"]).exists()


def test_admin_reads_and_writes_another_team_private_site(cast, site, rack_group):
    admin = cast.api(UserFactory(role=Role.ADMIN, team=cast.other_team))
    assert admin.get(SITES).json()["count"] == 1
    assert admin.get(f"{SITES}{site.pk}/").status_code == 200
    site_url = f"{SITES}{site.pk}/"
    patched = admin.patch(site_url, {"pue": 1.5}, format="json", **read(admin, site_url))
    assert patched.status_code == 200
    created = admin.post(RACKS, new_rack_group(site), format="json")
    assert created.status_code == 201
    rack_url = f"{RACKS}{rack_group.pk}/"
    changed = admin.patch(rack_url, {"count": 2}, format="json", **read(admin, rack_url))
    assert changed.status_code == 200
    assert admin.delete(rack_url, HTTP_IF_MATCH=changed["ETag"]).status_code == 204

    own = admin.post(SITES, NEW_SITE, format="json")
    assert own.status_code == 201
    assert own.json()["team"] == cast.other_team.name
    # The site's ETag covers its capacity: the rack groups changed since the PATCH above.
    assert admin.delete(site_url, HTTP_IF_MATCH=patched["ETag"]).status_code == 412
    assert admin.delete(site_url, **read(admin, site_url)).status_code == 204
    assert not Site.objects.filter(pk=site.pk).exists()


def test_another_team_private_site_is_404_on_read_and_write(outsider, site, rack_group):
    before = counts()
    assert outsider.get(SITES).json()["count"] == 0
    assert outsider.get(f"{SITES}{site.pk}/").status_code == 404
    assert outsider.put(f"{SITES}{site.pk}/", NEW_SITE, format="json").status_code == 404
    assert outsider.patch(f"{SITES}{site.pk}/", {"pue": 2}, format="json").status_code == 404
    assert outsider.delete(f"{SITES}{site.pk}/").status_code == 404
    assert outsider.get(f"{SITES}{site.pk}/history/").status_code == 404

    rack_url = f"{RACKS}{rack_group.pk}/"
    assert outsider.get(RACKS).json()["count"] == 0
    assert outsider.get(rack_url).status_code == 404
    assert outsider.patch(rack_url, {"count": 1}, format="json").status_code == 404
    assert outsider.delete(rack_url).status_code == 404
    assert outsider.get(f"{rack_url}history/").status_code == 404
    # Adding racks to it: the site "does not exist" for this user.
    response = outsider.post(RACKS, new_rack_group(site), format="json")
    assert response.status_code == 400
    assert "site" in response.json()
    assert counts() == before


def test_another_team_private_site_is_404_for_its_viewers_too(cast, site, rack_group):
    viewer = cast.api(UserFactory(role=Role.VIEWER, team=cast.other_team))
    assert viewer.get(f"{SITES}{site.pk}/").status_code == 404
    assert viewer.get(f"{RACKS}{rack_group.pk}/").status_code == 404


def test_another_team_shared_site_is_readable_but_403_on_write(
    outsider, cast, shared_site, shared_rack_group
):
    url = f"{SITES}{shared_site.pk}/"
    before = counts()
    assert [s["name"] for s in outsider.get(SITES).json()["results"]] == ["Hall S"]
    assert outsider.get(url).json()["team"] == cast.team.name
    assert outsider.put(url, NEW_SITE, format="json").status_code == 403
    assert outsider.patch(url, {"pue": 2}, format="json").status_code == 403
    assert outsider.delete(url).status_code == 403

    rack_url = f"{RACKS}{shared_rack_group.pk}/"
    assert outsider.get(rack_url).status_code == 200
    assert outsider.patch(rack_url, {"count": 1}, format="json").status_code == 403
    assert outsider.delete(rack_url).status_code == 403
    assert outsider.post(RACKS, new_rack_group(shared_site), format="json").status_code == 403
    assert counts() == before
    shared_site.refresh_from_db()
    assert shared_site.pue == 1.3


def test_rack_groups_cannot_be_moved_to_a_site_the_user_may_only_read(facility, rack_group, cast):
    theirs = SiteFactory(team=cast.other_team, visibility=Visibility.SHARED)
    url = f"{RACKS}{rack_group.pk}/"
    moved = facility.patch(url, {"site": theirs.pk}, format="json", **read(facility, url))
    assert moved.status_code == 403
    rack_group.refresh_from_db()
    assert rack_group.site.name == "Hall A"


# Validation: 400 with the field named, 409 for a taken name, nothing saved -----------------


def test_negative_power_is_400_naming_power_kw_and_saves_nothing(facility, site):
    before = counts()
    response = facility.post(RACKS, new_rack_group(site, power_kw=-5), format="json")
    assert response.status_code == 400
    assert list(response.json()) == ["power_kw"]
    assert counts() == before


def test_pue_of_5_is_400_naming_pue_and_saves_nothing(facility, site):
    before = counts()
    response = facility.post(SITES, {**NEW_SITE, "pue": 5}, format="json")
    assert response.status_code == 400
    assert list(response.json()) == ["pue"]
    url = f"{SITES}{site.pk}/"
    patched = facility.patch(url, {"pue": 5}, format="json", **read(facility, url))
    assert patched.status_code == 400
    assert "pue" in patched.json()
    assert counts() == before
    site.refresh_from_db()
    assert site.pue == 1.3


def test_a_duplicate_site_name_in_the_team_is_409_naming_name(facility, site):
    before = counts()
    response = facility.post(SITES, {**NEW_SITE, "name": "Hall A"}, format="json")
    assert response.status_code == 409
    assert response.json()["field"] == "name"
    assert "Hall A" in response.json()["detail"]
    assert counts() == before

    other = facility.post(SITES, NEW_SITE, format="json")
    url = f"{SITES}{other.json()['id']}/"
    renamed = facility.patch(url, {"name": "Hall A"}, format="json", HTTP_IF_MATCH=other["ETag"])
    assert renamed.status_code == 409
    other = other.json()
    assert Site.objects.get(pk=other["id"]).name == "Hall B"


def test_the_same_site_name_in_another_team_is_fine(outsider, site):
    response = outsider.post(SITES, {**NEW_SITE, "name": "Hall A"}, format="json")
    assert response.status_code == 201


def test_a_duplicate_rack_group_name_in_a_site_is_409_naming_name(facility, rack_group):
    before = counts()
    response = facility.post(RACKS, new_rack_group(rack_group.site, name="Row A"), format="json")
    assert response.status_code == 409
    assert response.json()["field"] == "name"
    assert counts() == before


def test_direct_liquid_cooling_without_loops_is_400_and_saves_nothing(facility, site, rack_group):
    before = counts()
    liquid = new_rack_group(site, cooling=RackCooling.LIQUID, liquid_loops=False)
    response = facility.post(RACKS, liquid, format="json")
    assert response.status_code == 400
    assert "Direct liquid cooling needs liquid loops." in response.json()["non_field_errors"]
    url = f"{RACKS}{rack_group.pk}/"
    patched = facility.patch(
        url, {"cooling": RackCooling.LIQUID}, format="json", **read(facility, url)
    )
    assert patched.status_code == 400
    assert counts() == before
    rack_group.refresh_from_db()
    assert rack_group.cooling == RackCooling.ROOM_AIR


def test_an_unknown_fabric_is_400_naming_fabrics(facility, site):
    response = facility.post(RACKS, new_rack_group(site, fabrics=["no-such"]), format="json")
    assert response.status_code == 400
    assert list(response.json()) == ["fabrics"]


# History ----------------------------------------------------------------------------------


def test_site_history_shows_who_created_it_and_who_changed_what(facility, cast):
    created = facility.post(SITES, NEW_SITE, format="json")
    site_id = created.json()["id"]
    patch = facility.patch(
        f"{SITES}{site_id}/", {"pue": 1.5}, format="json", HTTP_IF_MATCH=created["ETag"]
    )
    assert patch.status_code == 200

    response = facility.get(f"{SITES}{site_id}/history/")
    assert response.status_code == 200
    changed, created = response.json()["results"]
    engineer = cast.facility.username
    assert (changed["kind"], changed["who"]) == ("changed", engineer)
    assert {"field": "pue", "old": 1.4, "new": 1.5} in changed["changes"]
    assert (created["kind"], created["who"], created["changes"]) == ("created", engineer, [])
    assert datetime.fromisoformat(changed["when"]) >= datetime.fromisoformat(created["when"])


def test_rack_group_history_shows_the_changed_count(facility, cast, site):
    created = facility.post(RACKS, new_rack_group(site), format="json")
    group_id = created.json()["id"]
    patch = facility.patch(
        f"{RACKS}{group_id}/", {"count": 8}, format="json", HTTP_IF_MATCH=created["ETag"]
    )
    assert patch.status_code == 200

    changed, created = facility.get(f"{RACKS}{group_id}/history/").json()["results"]
    assert (changed["who"], created["who"]) == (cast.facility.username,) * 2
    assert {"field": "count", "old": 4, "new": 8} in changed["changes"]


# Lists ------------------------------------------------------------------------------------


def test_site_capacity_sums_its_rack_groups(facility, site):
    RackGroupFactory(site=site, count=10, power_kw=20, cooling_kw=25, units=42)
    RackGroupFactory(site=site, count=5, power_kw=40, cooling_kw=40, units=48)
    capacity = facility.get(f"{SITES}{site.pk}/").json()["capacity"]
    # 10 x 20 kW + 5 x 40 kW; 10 x 25 kW + 5 x 40 kW; 10 x 42 U + 5 x 48 U
    assert capacity == {"racks": 15, "power_kw": 400.0, "cooling_kw": 450.0, "units": 660}


def test_lists_are_paginated_and_filtered_like_the_pages(facility, cast, site):
    other = SiteFactory(team=cast.team, name="Depot", location="Harbin")
    RackGroupFactory(site=site, name="Row A")
    RackGroupFactory(site=other, name="Row Z", liquid_loops=True)

    found = facility.get(SITES, {"q": "harbin"}).json()
    assert (found["count"], found["results"][0]["name"]) == (1, "Depot")
    assert [s["name"] for s in facility.get(SITES, {"ordering": "-name"}).json()["results"]] == [
        "Hall A",
        "Depot",
    ]
    racks = facility.get(RACKS, {"site": other.pk}).json()
    assert [r["name"] for r in racks["results"]] == ["Row Z"]
    assert facility.get(RACKS, {"liquid_loops": "true"}).json()["count"] == 1
    assert facility.get(RACKS, {"power_kw_min": "lots"}).status_code == 400


def test_a_name_taken_between_check_and_save_is_still_409(facility, site, monkeypatch):
    # Another request can take the name after full_clean looked; the database then refuses.
    monkeypatch.setattr("planner.sites.services._full_clean", lambda obj: None)
    before = counts()
    response = facility.post(SITES, {**NEW_SITE, "name": "Hall A"}, format="json")
    assert response.status_code == 409
    assert response.json()["field"] == "name"
    assert counts() == before


# Versions: ETag, If-Match, If-None-Match ---------------------------------------------------


def test_a_read_answers_a_strong_etag_naming_the_row_and_its_version(facility, rack_group):
    response = facility.get(f"{RACKS}{rack_group.pk}/")
    assert response.json()["version"] == 1
    assert response["ETag"].startswith(f'"rack-group-{rack_group.pk}-v1-')
    assert not response["ETag"].startswith("W/")
    site = facility.get(f"{SITES}{rack_group.site_id}/")
    assert site["ETag"].startswith(f'"site-{rack_group.site_id}-v1-')


def test_a_write_without_if_match_is_428_and_changes_nothing(facility, site, rack_group):
    for method, url, body in [
        ("put", f"{SITES}{site.pk}/", NEW_SITE),
        ("patch", f"{SITES}{site.pk}/", {"pue": 1.5}),
        ("delete", f"{SITES}{site.pk}/", None),
        ("put", f"{RACKS}{rack_group.pk}/", new_rack_group(site)),
        ("patch", f"{RACKS}{rack_group.pk}/", {"count": 2}),
        ("delete", f"{RACKS}{rack_group.pk}/", None),
    ]:
        response = getattr(facility, method)(url, body, format="json")
        assert response.status_code == 428, (method, url)
        assert "If-Match" in response.json()["detail"]
    rack_group.refresh_from_db()
    site.refresh_from_db()
    assert (site.pue, site.version, rack_group.count, rack_group.version) == (1.3, 1, 10, 1)


def test_a_stale_if_match_is_412_naming_the_current_version_and_changes_nothing(
    facility, rack_group
):
    url = f"{RACKS}{rack_group.pk}/"
    mine = read(facility, url)
    theirs = facility.patch(url, {"count": 12}, format="json", **read(facility, url))
    assert theirs.status_code == 200

    response = facility.patch(url, {"count": 11}, format="json", **mine)
    assert response.status_code == 412
    body = response.json()
    assert body["current_version"] == 2
    assert body["current_etag"] == theirs["ETag"] == response["ETag"]
    assert "version 2" in body["detail"] and theirs["ETag"] in body["detail"]
    assert facility.delete(url, **mine).status_code == 412
    rack_group.refresh_from_db()
    assert (rack_group.count, rack_group.version) == (12, 2)

    # Read again, apply again: it goes through.
    retried = facility.patch(url, {"count": 13}, format="json", HTTP_IF_MATCH=body["current_etag"])
    assert retried.status_code == 200
    assert retried.json()["version"] == 3


def test_if_match_compares_strongly_and_accepts_a_list_or_a_star(facility, rack_group):
    url = f"{RACKS}{rack_group.pk}/"
    tag = read(facility, url)["HTTP_IF_MATCH"]
    weak = facility.patch(url, {"count": 2}, format="json", HTTP_IF_MATCH=f"W/{tag}")
    assert weak.status_code == 412  # RFC 9110, 13.1.1: a weak tag never matches If-Match
    garbage = facility.patch(url, {"count": 2}, format="json", HTTP_IF_MATCH="not a tag")
    assert garbage.status_code == 412
    listed = facility.patch(url, {"count": 2}, format="json", HTTP_IF_MATCH=f'"other", {tag}')
    assert listed.status_code == 200
    star = facility.patch(url, {"count": 3}, format="json", HTTP_IF_MATCH="*")
    assert star.status_code == 200
    rack_group.refresh_from_db()
    assert (rack_group.count, rack_group.version) == (3, 3)


def test_a_write_answers_the_etag_a_following_read_gives(facility, site):
    fabric = FabricFactory(slug="ib-ndr-400")
    created = facility.post(RACKS, new_rack_group(site, fabrics=[fabric.slug]), format="json")
    url = f"{RACKS}{created.json()['id']}/"
    assert created["ETag"] == facility.get(url)["ETag"]
    patched = facility.patch(
        url, {"fabrics": [], "count": 5}, format="json", HTTP_IF_MATCH=created["ETag"]
    )
    assert patched.json()["fabrics"] == []
    assert patched["ETag"] == facility.get(url)["ETag"] != created["ETag"]


def test_if_none_match_with_the_current_etag_is_304_without_a_body(facility, rack_group):
    url = f"{RACKS}{rack_group.pk}/"
    tag = read(facility, url)["HTTP_IF_MATCH"]
    same = facility.get(url, HTTP_IF_NONE_MATCH=tag)
    assert (same.status_code, same.content, same["ETag"]) == (304, b"", tag)
    assert facility.get(url, HTTP_IF_NONE_MATCH=f"W/{tag}").status_code == 304  # weak compare
    facility.patch(url, {"count": 2}, format="json", HTTP_IF_MATCH=tag)
    changed = facility.get(url, HTTP_IF_NONE_MATCH=tag)
    assert changed.status_code == 200 and changed.json()["count"] == 2


def test_a_site_etag_changes_when_its_capacity_does(facility, site, rack_group):
    site_url = f"{SITES}{site.pk}/"
    before = facility.get(site_url)
    rack_url = f"{RACKS}{rack_group.pk}/"
    facility.patch(rack_url, {"count": 20}, format="json", **read(facility, rack_url))
    after = facility.get(site_url)
    assert after.json()["version"] == before.json()["version"] == 1
    assert after["ETag"] != before["ETag"]  # the body's capacity is new: a cached copy is stale
    assert facility.get(site_url, HTTP_IF_NONE_MATCH=before["ETag"]).status_code == 200


def test_a_change_that_races_past_the_if_match_check_is_still_412(
    facility, rack_group, monkeypatch
):
    # Another request saves between this request's If-Match check and its own write: the
    # service's compare-and-set on the version refuses the second write.
    from planner.sites.api import views as api_sites
    from planner.sites.services import rack_group_save

    def save_after_someone_else(*, rack_group, fabrics=None):
        other = RackGroup.objects.get(pk=rack_group.pk)
        other.power_kw = 33
        rack_group_save(rack_group=other)
        return rack_group_save(rack_group=rack_group, fabrics=fabrics)

    rows = api_sites.RackGroupViewSet.rows
    monkeypatch.setattr(
        api_sites.RackGroupViewSet, "rows", dataclasses.replace(rows, save=save_after_someone_else)
    )
    url = f"{RACKS}{rack_group.pk}/"
    response = facility.patch(url, {"count": 7}, format="json", **read(facility, url))
    assert response.status_code == 412
    assert response.json()["current_version"] == 2
    rack_group.refresh_from_db()
    assert (rack_group.count, rack_group.power_kw, rack_group.version) == (10, 33, 2)


def test_every_write_raises_the_version_by_one_and_history_leaves_it_out(facility, site):
    url = f"{SITES}{site.pk}/"
    for pue in (1.4, 1.5):
        response = facility.patch(url, {"pue": pue}, format="json", **read(facility, url))
        assert response.status_code == 200
    assert facility.get(url).json()["version"] == 3
    history = facility.get(f"{url}history/").json()["results"]
    assert len(history) == 3
    assert all(change["field"] != "version" for entry in history for change in entry["changes"])


def test_deleting_a_rack_group_someone_else_deleted_is_404(facility, rack_group):
    url = f"{RACKS}{rack_group.pk}/"
    tag = read(facility, url)
    assert facility.delete(url, **tag).status_code == 204
    assert facility.delete(url, **tag).status_code == 404


def test_an_invalid_body_is_400_before_its_version_is_compared(facility, rack_group):
    url = f"{RACKS}{rack_group.pk}/"
    stale = {"HTTP_IF_MATCH": '"rack-group-1-v0-000000000000"'}
    assert facility.patch(url, {"count": -1}, format="json", **stale).status_code == 400
    assert facility.patch(url, {"count": 2}, format="json", **stale).status_code == 412


def test_a_json_value_of_the_wrong_type_is_400_naming_the_field(facility, site):
    wrong = {**NEW_SITE, "notes": 0, "electricity_price_per_kwh": 0.7, "pue": "1.4"}
    response = facility.post(SITES, wrong, format="json")
    assert response.status_code == 400
    assert response.json() == {
        "notes": ["Expected a JSON string."],
        "electricity_price_per_kwh": ["Expected a JSON string."],
        "pue": ["Expected a JSON number."],
    }
    racks = facility.post(RACKS, new_rack_group(site, count=True, liquid_loops=0), format="json")
    assert racks.status_code == 400
    assert set(racks.json()) == {"count", "liquid_loops"}
    assert counts() == (1, 0)
