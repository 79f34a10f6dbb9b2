"""The prices API: who reads and writes what, the page's filters, ETags on every write, copies
of reference prices, retiring (DELETE keeps the price), and history."""

import pytest
from rest_framework.test import APIClient

from accounts.roles import Role
from planner.models import Price

pytestmark = pytest.mark.django_db

PRICES = "/api/v1/prices/"
NEW_RATE = {
    "kind": "rent",
    "item_kind": "accelerator",
    "accelerator": "amd-mi300x",
    "amount": "1.85",
    "currency": "USD",
    "price_date": "2026-11-01",
    "source": "quote from Vultr, ref V-9",
    "provider": "Vultr",
    "terms": "reserved_1y",
    "instance_name": "MI300X 8x",
    "accelerators_per_instance": 8,
}


def read(client: APIClient, url: str) -> dict:
    response = client.get(url)
    assert response.status_code == 200, response.content
    return {"HTTP_IF_MATCH": response["ETag"]}


@pytest.fixture
def planner(cast):
    return cast.api(cast[Role.PLANNER])


def test_anonymous_requests_get_401(quote):
    for method, url in [("get", PRICES), ("post", PRICES), ("get", f"{PRICES}{quote.pk}/")]:
        assert getattr(APIClient(), method)(url).status_code == 401


def test_a_team_reads_its_prices_and_the_reference_and_never_anothers(cast, quote, reference_price):
    own = cast.api(cast[Role.VIEWER]).get(PRICES).json()
    assert {row["id"] for row in own["results"]} == {quote.pk, reference_price.pk}
    outsider = cast.api(cast["outsider"])
    assert [row["id"] for row in outsider.get(PRICES).json()["results"]] == [reference_price.pk]
    assert outsider.get(f"{PRICES}{quote.pk}/").status_code == 404
    assert outsider.get(f"{PRICES}{quote.pk}/history/").status_code == 404


def test_a_price_reads_with_its_provenance_and_age(cast, quote, reference_price):
    body = cast.api(cast[Role.VIEWER]).get(f"{PRICES}{reference_price.pk}/").json()
    assert body["accelerator"] == "amd-mi300x" and body["amount"] == "15000.000000"
    assert (body["team"], body["is_reference"]) == (None, True)
    assert body["source"] == "https://huggingface.co/hardware/mi300"
    assert (body["stale"], body["expired"]) == (False, False)
    mine = cast.api(cast[Role.VIEWER]).get(f"{PRICES}{quote.pk}/").json()
    assert (mine["team"], mine["is_reference"]) == ("Alpha", False)


@pytest.mark.parametrize("role", [Role.VIEWER, Role.FACILITY])
def test_viewers_and_facility_write_nothing(cast, quote, card, role):
    client = cast.api(cast[role])
    url = f"{PRICES}{quote.pk}/"
    assert client.post(PRICES, NEW_RATE, format="json").status_code == 403
    assert client.patch(url, {"notes": "x"}, format="json", **read(client, url)).status_code == 403
    assert client.delete(url, **read(client, url)).status_code == 403
    assert client.post(f"{url}copy/", {}, format="json").status_code == 403
    assert Price.objects.count() == 1


def test_a_planner_creates_updates_and_retires_with_etags_and_nothing_is_deleted(
    planner, alpha, card
):
    created = planner.post(PRICES, {**NEW_RATE, "team": "Beta"}, format="json")
    assert created.status_code == 201, created.content
    body = created.json()
    assert body["team"] == "Alpha" and Price.objects.get(pk=body["id"]).team == alpha
    url = f"{PRICES}{body['id']}/"

    assert planner.patch(url, {"amount": "1.80"}, format="json").status_code == 428
    patched = planner.patch(url, {"amount": "1.80"}, format="json", HTTP_IF_MATCH=created["ETag"])
    assert patched.status_code == 200 and patched.json()["version"] == 2
    stale = planner.patch(url, {"amount": "1.70"}, format="json", HTTP_IF_MATCH=created["ETag"])
    assert stale.status_code == 412 and stale.json()["current_version"] == 2

    assert planner.delete(url).status_code == 428
    assert planner.delete(url, HTTP_IF_MATCH=patched["ETag"]).status_code == 204  # retired
    kept = planner.get(url)
    assert kept.status_code == 200 and kept.json()["retired_at"] is not None
    assert planner.get(PRICES).json()["count"] == 0
    assert planner.get(f"{PRICES}?status=retired").json()["count"] == 1
    again = planner.patch(url, {"notes": "x"}, format="json", HTTP_IF_MATCH=kept["ETag"])
    assert again.status_code == 400
    assert again.json()["non_field_errors"] == ["This price is retired; copy it to use it again."]


def test_invalid_bodies_are_400_naming_the_field(planner, card):
    no_terms = planner.post(PRICES, {**NEW_RATE, "terms": ""}, format="json")
    assert no_terms.status_code == 400
    assert no_terms.json()["terms"] == [
        "Choose the terms: on demand, reserved, spot or capacity block."
    ]
    unknown = planner.post(PRICES, {**NEW_RATE, "accelerator": "nvidia-h999"}, format="json")
    assert unknown.status_code == 400 and "accelerator" in unknown.json()
    number = planner.post(PRICES, {**NEW_RATE, "amount": 1.85}, format="json")
    assert number.json() == {"amount": ["Expected a JSON string."]}
    assert not Price.objects.exists()


def test_a_reference_price_is_copied_not_changed(planner, cast, alpha, reference_price):
    url = f"{PRICES}{reference_price.pk}/"
    refused = planner.patch(url, {"amount": "1"}, format="json", **read(planner, url))
    assert refused.status_code == 403
    copied = planner.post(
        f"{url}copy/",
        {"amount": "13100", "source": "quote from Example Systems, ref Q-77"},
        format="json",
    )
    assert copied.status_code == 201 and copied["ETag"]
    body = copied.json()
    assert (body["team"], body["amount"], body["copied_from"]) == (
        "Alpha",
        "13100.000000",
        reference_price.pk,
    )
    assert body["accelerator"] == "amd-mi300x"
    admin = cast.api(cast[Role.ADMIN])
    changed = admin.patch(url, {"notes": "checked"}, format="json", **read(admin, url))
    assert changed.status_code == 200


def test_the_list_takes_the_pages_filters(cast, quote, reference_price):
    client = cast.api(cast[Role.VIEWER])
    ids = lambda query: [row["id"] for row in client.get(f"{PRICES}?{query}").json()["results"]]  # noqa: E731
    assert ids("owner=reference") == [reference_price.pk]
    assert ids("owner=team&currency=USD") == [quote.pk]
    assert ids("age=expired") == []
    assert set(ids("item=mi300x")) == {quote.pk, reference_price.pk}
    assert client.get(f"{PRICES}?age=ancient").status_code == 400


def test_history_lists_every_version(cast, planner, quote):
    url = f"{PRICES}{quote.pk}/"
    planner.patch(url, {"notes": "called back"}, format="json", **read(planner, url))
    history = planner.get(f"{url}history/").json()["results"]
    assert [entry["kind"] for entry in history] == ["changed", "created"]
    assert history[0]["changes"] == [{"field": "notes", "old": "", "new": "called back"}]
    assert history[0]["who"] == cast.planner.username


def test_the_document_lets_a_price_that_was_not_copied_say_so(cast, quote):
    """`copied_from` is null for a price entered by hand: the OpenAPI document says it may be."""
    from drf_spectacular.generators import SchemaGenerator

    body = cast.api("viewer").get(f"{PRICES}{quote.pk}/").json()
    assert body["copied_from"] is None
    schema = SchemaGenerator().get_schema(request=None, public=True)
    declared = schema["components"]["schemas"]["Price"]["properties"]["copied_from"]
    assert "null" in declared["type"], declared
