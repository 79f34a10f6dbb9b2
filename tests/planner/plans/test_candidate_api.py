"""One build of a plan over the API: the build itself (team-scoped, its rank under the order
given) and its purchase list as JSON or CSV.

The plan buys NVIDIA DGX H100 systems at the shipped reference prices (tests/conftest.py:
reference_prices), so its builds have priced lines to list."""

import csv
import io

import pytest

from planner.models import Price
from planner.plans.services import plan_create

pytestmark = pytest.mark.django_db

QUESTION = {
    "workload": {
        "task": "train",
        "model": "meta-llama-3-8b",
        "tokens": 1e11,
        "fabric": "ib-ndr-400",
    },
    "accelerators": ["nvidia-h100-sxm5-80gb"],
    "servers": ["nvidia-dgx-h100"],
    "count": {"min": 8, "max": 32},
}


@pytest.fixture
def plan(reference_prices, cast):
    return plan_create(data=QUESTION, user=cast.planner, team=cast.team)


def url(plan, cid, tail: str = "") -> str:
    return f"/api/v1/plans/{plan.pk}/candidates/{cid}/{tail}"


def cid_of(plan, count: int) -> int:
    return next(i for i, c in enumerate(plan.ranking["candidates"]) if c["count"] == count)


def test_a_build_answers_with_its_estimate_fit_cost_lines_and_rank(cast, plan):
    cid = cid_of(plan, 16)
    answer = cast.api("viewer").get(url(plan, cid))
    assert answer.status_code == 200
    body = answer.json()
    assert body["id"] == cid and body["count"] == 16 and body["nodes"] == 2
    assert {"estimate", "fit", "cost", "scores", "reasons", "rank"} <= set(body)
    system = body["cost"]["lines"][0]
    assert system["item"] == "system" and system["quantity"] == 2
    assert Price.objects.get(pk=system["price_id"]).source == system["source"]
    # The rank follows the order asked for: the most devices train fastest.
    fastest = cast.api("viewer").get(url(plan, cid_of(plan, 32)), {"objective": "time"}).json()
    assert fastest["rank"] == 1


def test_another_teams_plan_and_a_missing_build_are_404(cast, plan):
    assert cast.api("outsider").get(url(plan, 0)).status_code == 404
    assert cast.api("outsider").get(url(plan, 0, "purchase-list/")).status_code == 404
    past = len(plan.ranking["candidates"])
    assert cast.api("viewer").get(url(plan, past)).status_code == 404
    assert cast.api("anonymous").get(url(plan, 0)).status_code == 401


def test_a_bad_weight_is_400_naming_it(cast, plan):
    answer = cast.api("viewer").get(url(plan, 0), {"software": 101})
    assert answer.status_code == 400 and "software" in answer.json()


def test_the_purchase_list_as_json_names_every_price(cast, plan):
    body = cast.api("viewer").get(url(plan, cid_of(plan, 16), "purchase-list/")).json()
    assert [line["item"] for line in body["lines"]] == [
        "system",
        "switch_port",
        "transceiver",
        "cable",
    ]  # without a site, no rack is counted
    assert body["currency"] == "USD" and body["count"] == 16
    priced = [line for line in body["lines"] if line["amount"] is not None]
    assert body["total"] == pytest.approx(sum(line["amount"] for line in priced))
    assert body["missing"] == ["Cable"]
    for line in priced:
        price = Price.objects.get(pk=line["price_id"])
        assert line["source"] == price.source and line["price_date"] == price.price_date.isoformat()


def test_the_purchase_list_as_csv_by_format_or_accept(cast, plan):
    client = cast.api("viewer")
    for answer in (
        client.get(url(plan, cid_of(plan, 16), "purchase-list/"), {"format": "csv"}),
        client.get(url(plan, cid_of(plan, 16), "purchase-list/"), HTTP_ACCEPT="text/csv"),
    ):
        assert answer.status_code == 200
        assert answer["Content-Type"].startswith("text/csv")
        header, *rows = list(csv.reader(io.StringIO(answer.content.decode())))
        assert header[0] == "Item" and len(rows) == 4
        assert rows[0][:6] == [
            "Complete system",
            "NVIDIA DGX H100 (8 \u00d7 NVIDIA H100 SXM5 80GB)",
            "nvidia-dgx-h100",
            "2",
            "270000",
            "540000",
        ]


def test_the_candidate_endpoints_are_in_the_schema(cast):
    schema = cast.api("viewer").get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    schema = schema.json()
    paths = schema["paths"]
    assert "/api/v1/plans/{id}/candidates/{cid}/" in paths
    purchase = paths["/api/v1/plans/{id}/candidates/{cid}/purchase-list/"]["get"]
    assert set(purchase["responses"]["200"]["content"]) == {"application/json", "text/csv"}
