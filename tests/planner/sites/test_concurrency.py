"""Many clients editing one rack group at once, over HTTP against the running server, on
PostgreSQL: no update is lost, no request fails with a 5xx, a name taken twice at once is one
201 and the rest 409, and no row ever mixes two edits into one that breaks a rule.

Every client reads the rack group, then writes with If-Match; a 412 means someone else got
there first, and the client reads again and retries, as the API asks of every client."""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
from collections import Counter
from typing import Any, NamedTuple

import pytest
from django.db import connection

from accounts.services import token_create
from planner.models import RackGroup
from planner.sites.services import rack_group_save, site_create
from tests.conftest import require_or_skip

pytestmark = pytest.mark.django_db(transaction=True)

CLIENTS = 8
INCREMENTS_PER_CLIENT = 5
# A client that lost this many races in a row is stuck, not unlucky: 8 clients mean at most 7
# others can win between its read and its write each time.
MAX_ATTEMPTS = 200
REQUEST_TIMEOUT_S = 30


class Reply(NamedTuple):
    status: int
    etag: str | None
    body: Any


@pytest.fixture(autouse=True)
def _postgresql_only():
    if connection.vendor != "postgresql":
        require_or_skip(
            "concurrent writers need PostgreSQL: SQLite serialises them behind one file lock"
        )


@pytest.fixture
def token(cast) -> str:
    return token_create(user=cast.facility, name="concurrency")[1]


@pytest.fixture
def rack_group(cast) -> RackGroup:
    site = site_create(
        team=cast.team,
        user=None,
        name="Hall A",
        currency="CNY",
        electricity_price_per_kwh="0.6",
        pue=1.3,
    )
    return rack_group_save(
        rack_group=RackGroup(
            site=site,
            name="Row A",
            count=10,
            power_kw=40,
            cooling_kw=40,
            cooling="rdhx",
            liquid_loops=True,
            units=42,
            max_kg=1500,
        )
    )


def call(method: str, url: str, *, token: str, body=None, if_match: str | None = None) -> Reply:
    headers = {"Authorization": f"Token {token}", "Accept": "application/json"}
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    if if_match is not None:
        headers["If-Match"] = if_match
    request = urllib.request.Request(url, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=REQUEST_TIMEOUT_S) as response:
            status, etag, raw = response.status, response.headers.get("ETag"), response.read()
    except urllib.error.HTTPError as error:
        status, etag, raw = error.code, error.headers.get("ETag"), error.read()
    try:
        parsed = json.loads(raw) if raw else None
    except ValueError:
        parsed = raw.decode(errors="replace")  # a 500 page, kept for the failure message
    return Reply(status, etag, parsed)


def run_together(clients: int, work) -> list:
    """Run `work(i, barrier)` in `clients` threads that may wait at one barrier to start their
    racing step at the same moment; re-raise the first failure."""
    barrier = threading.Barrier(clients, timeout=REQUEST_TIMEOUT_S)
    results: list = [None] * clients
    errors: list[BaseException] = []

    def run(i: int) -> None:
        try:
            results[i] = work(i, barrier)
        except BaseException as exc:  # handed to the main thread below
            errors.append(exc)
            barrier.abort()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise errors[0]
    return results


@pytest.mark.slow  # 8 clients x 5 increments, each retried until it wins its race
def test_concurrent_increments_lose_no_update(live_server, token, rack_group):
    url = f"{live_server.url}/api/v1/rack-groups/{rack_group.pk}/"
    initial = rack_group.count

    def increment(i: int, barrier: threading.Barrier) -> Counter:
        statuses: Counter = Counter()
        barrier.wait()
        done = 0
        for _attempt in range(MAX_ATTEMPTS):
            if done == INCREMENTS_PER_CLIENT:
                return statuses
            read = call("GET", url, token=token)
            statuses[f"GET {read.status}"] += 1
            assert read.status == 200, read.body
            wrote = call(
                "PATCH",
                url,
                token=token,
                body={"count": read.body["count"] + 1},
                if_match=read.etag,
            )
            statuses[f"PATCH {wrote.status}"] += 1
            assert wrote.status in (200, 412), wrote.body
            done += wrote.status == 200
        raise AssertionError(f"client {i} made {done} increments in {MAX_ATTEMPTS} attempts")

    statuses = sum(run_together(CLIENTS, increment), Counter())

    successes = statuses["PATCH 200"]
    assert successes == CLIENTS * INCREMENTS_PER_CLIENT
    assert set(statuses) <= {"GET 200", "PATCH 200", "PATCH 412"}, statuses
    assert statuses["PATCH 412"] > 0, "the clients never raced; the test proved nothing"
    rack_group.refresh_from_db()
    assert rack_group.count == initial + successes  # no lost update
    assert rack_group.version == 1 + successes
    assert rack_group.history.count() == 1 + successes  # the creation, then one per change
    rack_group.full_clean()  # every validator and check constraint still holds


def test_concurrent_creates_of_one_name_are_one_201_and_the_rest_409(
    live_server, token, rack_group
):
    url = f"{live_server.url}/api/v1/rack-groups/"
    body = {
        "site": rack_group.site_id,
        "name": "Row Z",
        "count": 2,
        "power_kw": 30,
        "cooling_kw": 30,
        "units": 42,
        "max_kg": 1200,
    }

    def create(i: int, barrier: threading.Barrier) -> Reply:
        barrier.wait()
        return call("POST", url, token=token, body=body)

    replies = run_together(CLIENTS, create)

    statuses = Counter(reply.status for reply in replies)
    assert statuses == {201: 1, 409: CLIENTS - 1}, [reply.body for reply in replies]
    for reply in replies:
        if reply.status == 409:
            assert reply.body["field"] == "name"
    assert RackGroup.objects.filter(site=rack_group.site, name="Row Z").count() == 1


def test_concurrent_edits_of_different_fields_never_mix_into_a_broken_row(
    live_server, token, rack_group
):
    # Direct liquid cooling needs liquid loops. Half the clients switch the cooling to liquid,
    # the other half remove the loops, all from the same version: each edit is valid alone,
    # together they are not. Exactly one wins; the rest are told the row moved on.
    url = f"{live_server.url}/api/v1/rack-groups/{rack_group.pk}/"
    edits = [{"cooling": "liquid"}, {"liquid_loops": False}]
    rounds = 5

    for _round in range(rounds):
        rack_group.refresh_from_db()
        rack_group.cooling, rack_group.liquid_loops = "rdhx", True
        rack_group_save(rack_group=rack_group)

        def edit(i: int, barrier: threading.Barrier) -> Reply:
            read = call("GET", url, token=token)
            assert read.status == 200, read.body
            barrier.wait()
            return call("PATCH", url, token=token, body=edits[i % 2], if_match=read.etag)

        replies = run_together(CLIENTS, edit)

        statuses = Counter(reply.status for reply in replies)
        assert statuses == {200: 1, 412: CLIENTS - 1}, [reply.body for reply in replies]
        rack_group.refresh_from_db()
        assert (rack_group.cooling, rack_group.liquid_loops) in {
            ("liquid", True),
            ("rdhx", False),
        }
        rack_group.full_clean()

        # A loser that reads again and re-applies its edit is now refused with 400 if the
        # winner's change makes its own break the rule, never saved as a mix.
        winner = next(i for i, reply in enumerate(replies) if reply.status == 200)
        read = call("GET", url, token=token)
        retried = call("PATCH", url, token=token, body=edits[(winner + 1) % 2], if_match=read.etag)
        assert retried.status == 400, retried.body
        assert "Direct liquid cooling needs liquid loops." in retried.body["non_field_errors"]
        rack_group.refresh_from_db()
        rack_group.full_clean()
