"""PostgreSQL restarted under load: at most the requests in flight around the restart fail, none
that starts 5 s after it began, and a simulation running on a worker at that moment retries
and completes, its result written once.

The cluster is the test's own (initdb in a temporary folder, on a free port), so restarting
it disturbs nothing else; gunicorn runs with persistent connections and health checks, as
production does, and the worker and broker are real processes."""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass

import pytest
import requests

from planner.engine.simulate.question import MAX_REQUESTS
from tests.faults.conftest import app_environment, simulation_row
from tests.processes import wait_for

pytestmark = pytest.mark.slow

# The bound: no request that starts this long after the restart began may fail.
RECOVERED_WITHIN_S = 5.0
LOAD_THREADS = 2
LOAD_BEFORE_S = 2.0
LOAD_AFTER_S = 8.0
DATABASE = "flopfit_faults_restart"

ESTIMATE = {
    "task": "train",
    "model": "meta-llama-3-8b",
    "accelerator": "nvidia-h100-sxm5-80gb",
    "count": 8,
    "tokens": 1e11,
}
# The largest serving run the API accepts: several seconds on one core, so the restart lands
# while it runs.
LONG_RUN = {
    "kind": "serving",
    "estimate": {
        "task": "inference",
        "model": "meta-llama-3-8b",
        "accelerator": "nvidia-h100-sxm5-80gb",
        "count": 8,
    },
    "rate_per_s": 400,
    "requests": MAX_REQUESTS,
    "seed": 11,
}

SETUP_SCRIPT = """
import json
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
from django.contrib.sessions.backends.db import SessionStore
from accounts.roles import Role
from accounts.services import token_create, user_create
user = user_create(username="pat", password="a-long-test-password", role=Role.PLANNER)
_, key = token_create(user=user, name="load")
session = SessionStore()
session[SESSION_KEY] = str(user.pk)
session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
session[HASH_SESSION_KEY] = user.get_session_auth_hash()
session.create()
print(json.dumps({"token": key, "session": session.session_key}))
"""


@dataclass(frozen=True)
class Sent:
    what: str
    started: float
    ended: float
    status: int  # 0: no HTTP answer at all


class Load:
    """Threads sending the catalog list, an estimate and a page, one after another, and
    recording when each request started and ended and how it was answered."""

    def __init__(self, base: str, token: str, session_key: str):
        self.base = base
        self.token = token
        self.session_key = session_key
        self.sent: list[Sent] = []
        self.stopping = threading.Event()
        self.lock = threading.Lock()
        self.threads = [threading.Thread(target=self._run) for _ in range(LOAD_THREADS)]

    def _requests(self, client: requests.Session):
        api = {"Authorization": f"Token {self.token}"}
        yield "catalog", lambda: client.get(f"{self.base}/api/v1/accelerators/", headers=api)
        yield (
            "estimate",
            lambda: client.post(f"{self.base}/api/v1/estimates/", json=ESTIMATE, headers=api),
        )
        yield "page", lambda: client.get(f"{self.base}/catalog/accelerators/")

    def _run(self) -> None:
        client = requests.Session()
        client.cookies.set("sessionid", self.session_key)
        while not self.stopping.is_set():
            for what, send in self._requests(client):
                started = time.monotonic()
                try:
                    status = send().status_code
                except requests.RequestException:
                    status = 0
                with self.lock:
                    self.sent.append(Sent(what, started, time.monotonic(), status))

    def __enter__(self) -> Load:
        for thread in self.threads:
            thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stopping.set()
        for thread in self.threads:
            thread.join(timeout=30)


def test_a_postgres_restart_under_load_fails_only_requests_in_flight_and_the_task_completes(
    private_postgres, private_redis, processes
):
    private_postgres.create_database(DATABASE)
    database_url = private_postgres.url(DATABASE)
    setup = app_environment(DATABASE_URL=database_url, CELERY_BROKER_URL=private_redis.url(0))
    processes.manage(setup, "migrate", "--no-input", "-v", "0")
    processes.manage(setup, "loadcatalog")
    people = json.loads(processes.manage(setup, "shell", "-c", SETUP_SCRIPT).splitlines()[-1])

    # Production's connection handling: kept for a minute, checked before reuse.
    env = app_environment(
        DATABASE_URL=f"{database_url}?conn_max_age=60&conn_health_checks=true",
        CELERY_BROKER_URL=private_redis.url(0),
        CELERY_RESULT_BACKEND=private_redis.url(1),
        CACHE_URL=private_redis.url(2),
        REDIS_URL=private_redis.url(2),
    )
    base = processes.gunicorn(env)
    processes.worker(env)

    with Load(base, people["token"], people["session"]) as load:
        time.sleep(LOAD_BEFORE_S)
        queued = requests.post(
            f"{base}/api/v1/simulations/",
            json=LONG_RUN,
            headers={"Authorization": f"Token {people['token']}"},
            timeout=30,
        )
        assert queued.status_code == 202, queued.text
        pk = queued.json()["id"]
        wait_for(
            lambda: simulation_row(database_url, pk)["status"] == "running",
            timeout=60,
            what="the simulation running",
        )
        restart_began = time.monotonic()
        private_postgres.restart()
        restart_done = time.monotonic()
        time.sleep(max(0.0, LOAD_AFTER_S - (time.monotonic() - restart_began)))

    sent = load.sent
    failed = [s for s in sent if not 200 <= s.status < 300]
    after = [s for s in sent if s.started > restart_began + RECOVERED_WITHIN_S]
    # Every failure was in flight while the server was down: it started before the server
    # accepted connections again and ended after the restart began.
    assert all(s.started <= restart_done and s.ended >= restart_began for s in failed), failed
    assert not [s for s in after if s in failed]
    # The load kept going after the restart, and every kind of request was answered then.
    assert {s.what for s in after if s.status == 200} == {"catalog", "estimate", "page"}
    print(
        f"{len(sent)} requests, {len(failed)} failed around a restart of "
        f"{restart_done - restart_began:.2f} s"
    )

    # The run met a dead connection at its next progress report, retried on a fresh one and
    # finished: one success, its result complete, no error left behind.
    row = wait_for(
        lambda: (
            (r := simulation_row(database_url, pk))["status"] not in ("queued", "running") and r
        ),
        timeout=120,
        every=0.5,
        what="the simulation finished",
    )
    assert row["status"] == "succeeded", row
    assert row["has_result"] and int(row["completed"]) == MAX_REQUESTS
    assert row["error"] == "" and row["finished"] >= row["started"]
    assert row["attempts"] >= 2  # the first try was cut off by the restart
