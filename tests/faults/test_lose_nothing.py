"""Nothing lost, with production settings: a worker SIGKILLed mid-run, Redis restarted empty
while one simulation runs and another waits in its queue, PostgreSQL restarted while a
simulation runs. Each simulation finishes, or is retried and finishes, and its whole result
lands in its one row.

The processes run `config.settings.production`, with the time limits scaled down (a soft limit
of SOFT_LIMIT_S and the visibility timeout and Celery limits derived from it as production
derives them), so that recovery by the periodic task comes within minutes, not the better part
of an hour. Redis and PostgreSQL are the test's own, on free ports (tests/faults/conftest.py):
the shared servers are never touched."""

from __future__ import annotations

import json
import os
import signal

import psycopg
import pytest

from planner.engine.simulate.question import MAX_REQUESTS
from planner.simulations.services import HARD_LIMIT_MARGIN_S, LOST_GRACE_S
from tests.faults.conftest import simulation_row
from tests.planner.simulations.test_worker import slow
from tests.processes import production_environment, wait_for

pytestmark = pytest.mark.slow

DATABASE = "flopfit_faults_lose_nothing"
# A simulation's soft limit; its task's hard limit is 30 s more, the broker's visibility timeout
# outlasts that (production refuses to start otherwise).
SOFT_LIMIT_S = 20
TASK_LIMIT_S = SOFT_LIMIT_S + 35
VISIBILITY_TIMEOUT_S = TASK_LIMIT_S + 10
# A run queued or running this long is queued again by the periodic task (planner.simulations
# .services._stuck_rows); the periodic task runs every REQUEUE_EVERY_S.
STUCK_AFTER_S = SOFT_LIMIT_S + HARD_LIMIT_MARGIN_S + LOST_GRACE_S
REQUEUE_EVERY_S = 2
# Recovery, then a run of a few seconds on a busy 2-core machine: the workers here run the
# serving loop as plain Python (NUMBA_DISABLE_JIT, the same source and answers), about 30 us a
# request, so a tenth of the largest run the API accepts lasts long enough to be cut off mid-run
# and ends well inside the soft limit. Compiled, the whole run would take under a second.
FINISHES_WITHIN_S = STUCK_AFTER_S + 120
REQUESTS = MAX_REQUESTS // 10


START = """
import json
from planner.simulations.services import simulation_start
for question in json.loads({questions!r}):
    print(simulation_start(data=question)[0].pk)
"""


@pytest.fixture
def production(private_postgres, private_redis, processes, tmp_path):
    """Production settings on the private PostgreSQL and Redis, migrated, with the catalog."""
    private_postgres.create_database(DATABASE)
    database_url = private_postgres.url(DATABASE)
    env = production_environment(
        tmp_path,
        allowed_hosts="127.0.0.1",
        DATABASE_URL=database_url,
        CELERY_BROKER_URL=private_redis.url(0),
        CELERY_RESULT_BACKEND=private_redis.url(1),
        CACHE_URL=private_redis.url(2),
        SIMULATION_SOFT_TIME_LIMIT_S=str(SOFT_LIMIT_S),
        CELERY_TASK_TIME_LIMIT=str(TASK_LIMIT_S),
        CELERY_TASK_SOFT_TIME_LIMIT=str(TASK_LIMIT_S - 5),
        CELERY_VISIBILITY_TIMEOUT_S=str(VISIBILITY_TIMEOUT_S),
        SIMULATION_REQUEUE_EVERY_S=str(REQUEUE_EVERY_S),
        PYTHONUNBUFFERED="1",
        NUMBA_DISABLE_JIT="1",
    )
    processes.manage(env, "migrate", "--no-input", "-v", "0")
    processes.manage(env, "loadcatalog")
    processes.beat(env, tmp_path / "celerybeat-schedule")
    return {"env": env, "url": database_url}


def start(processes, production, *seeds: int) -> list[int]:
    """Ask for simulations, one after the other, as the web process does (the service
    publishes each one's task); their ids."""
    questions = [slow(seed, requests=REQUESTS) for seed in seeds]
    script = START.format(questions=json.dumps(questions))
    printed = processes.manage(production["env"], "shell", "-c", script).splitlines()
    return [int(line) for line in printed[-len(seeds) :]]


def running(production, pk: int) -> bool:
    row = simulation_row(production["url"], pk)
    return row["status"] == "running" and row["progress"] > 0.05


def finished(production, pk: int) -> dict:
    row = wait_for(
        lambda: (
            (r := simulation_row(production["url"], pk))["status"] not in ("queued", "running")
            and r
        ),
        timeout=FINISHES_WITHIN_S,
        every=0.5,
        what=f"simulation {pk} finished",
    )
    return row


def assert_landed_whole(production, pk: int) -> dict:
    row = finished(production, pk)
    assert row["status"] == "succeeded", row
    assert row["has_result"] and int(row["completed"]) == REQUESTS, row
    assert row["error"] == "" and row["finished"] >= row["started"]
    with psycopg.connect(production["url"]) as conn:
        twins = conn.execute(
            "SELECT count(*) FROM planner_simulation WHERE inputs_hash ="
            " (SELECT inputs_hash FROM planner_simulation WHERE id = %s)",
            [pk],
        ).fetchone()[0]
    assert twins == 1  # retried in its own row, never a second one
    return row


def test_a_worker_sigkilled_mid_run_loses_nothing(production, processes):
    worker = processes.worker(production["env"])
    [pk] = start(processes, production, 31)
    wait_for(lambda: running(production, pk), timeout=120, what="the run under way")
    os.killpg(worker.pid, signal.SIGKILL)  # the worker and its pool child, no goodbye
    worker.wait(timeout=10)
    cut_off = simulation_row(production["url"], pk)
    assert cut_off["status"] == "running" and not cut_off["has_result"]

    processes.worker(production["env"])  # the replacement an orchestrator would start
    row = assert_landed_whole(production, pk)
    assert row["attempts"] >= 2  # the first run was cut off
    print(f"worker SIGKILLed at {cut_off['progress']:.0%}: finished after {row['attempts']} runs")


def test_a_redis_restart_loses_neither_the_running_nor_the_queued_run(
    production, processes, private_redis
):
    first, second = start(processes, production, 41, 42)
    processes.worker(production["env"])  # one run at a time: the second waits in Redis
    wait_for(lambda: running(production, first), timeout=120, what="the first run under way")
    assert simulation_row(production["url"], second)["status"] == "queued"

    private_redis.kill()
    private_redis.start()  # the same port, empty: the queued task is gone with it

    for pk in (first, second):
        row = assert_landed_whole(production, pk)
        print(f"simulation {pk} after the Redis restart: {row['status']}, {row['attempts']} runs")


def test_a_postgres_restart_mid_run_loses_nothing(production, processes, private_postgres):
    processes.worker(production["env"])
    [pk] = start(processes, production, 51)
    wait_for(lambda: running(production, pk), timeout=120, what="the run under way")
    private_postgres.restart()
    row = assert_landed_whole(production, pk)
    print(f"PostgreSQL restarted mid-run: finished after {row['attempts']} runs")
