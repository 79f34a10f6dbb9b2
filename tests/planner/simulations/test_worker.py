"""Simulations on a real worker process through a real broker (Redis in CI): progress,
idempotency, a worker killed mid-run, a broker that is down, and the time limit.

Each test starts `celery worker` as a subprocess on the test database, as production runs it.
"""

import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection

from planner.choices import SimulationStatus
from planner.engine.simulate.question import MAX_REQUESTS
from planner.models import Simulation
from planner.simulations.services import simulation_start
from planner.simulations.tasks import simulation_run_task
from tests.conftest import require_or_skip
from tests.processes import celery_worker_command, suite_database_url, wait_for

pytestmark = pytest.mark.django_db(transaction=True)

ROOT = Path(__file__).resolve().parents[3]
QUICK = {
    "kind": "training",
    "estimate": {
        "task": "train",
        "model": "meta-llama-3-8b",
        "accelerator": "nvidia-h100-sxm5-80gb",
        "count": 64,
        "tokens": 1e12,
    },
    "trials": 20_000,
}


def slow(seed: int, requests: int = MAX_REQUESTS) -> dict:
    """A serving run that takes several seconds on one core at the most requests the API
    accepts (about 5 s on the 2-core CI machine, 1 s per 400,000 requests)."""
    return {
        "kind": "serving",
        "estimate": {
            "task": "inference",
            "model": "meta-llama-3-8b",
            "accelerator": "nvidia-h100-sxm5-80gb",
            "count": 8,
        },
        "rate_per_s": 400,
        "requests": requests,
        "seed": seed,
    }


@pytest.fixture
def broker():
    url = settings.CELERY_BROKER_URL
    if not url.startswith("redis://"):
        require_or_skip("a worker process needs a broker server (set CELERY_BROKER_URL to Redis)")
    import redis

    client = redis.Redis.from_url(url, socket_connect_timeout=2)
    try:
        client.ping()
    except redis.exceptions.ConnectionError:
        require_or_skip(f"no Redis at {url}")
    client.delete("celery", "unacked", "unacked_index")  # nothing left over from other runs
    return url


class Workers:
    def __init__(self, broker_url: str, log):
        self.broker_url = broker_url
        self.log = log  # the workers' own log, shown when a test fails
        self.procs: list[subprocess.Popen] = []

    def start(self, **env) -> subprocess.Popen:
        connection.close()  # the worker opens its own connections
        environment = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "config.settings.test",
            "DATABASE_URL": suite_database_url(),
            "CELERY_BROKER_URL": self.broker_url,
            "CELERY_VISIBILITY_TIMEOUT_S": "3",
            **{k: str(v) for k, v in env.items()},
        }
        proc = subprocess.Popen(
            celery_worker_command(name=f"test-{uuid.uuid4().hex[:8]}", loglevel="WARNING"),
            cwd=ROOT,
            env=environment,
            start_new_session=True,
            stdout=subprocess.DEVNULL,
            stderr=self.log,
        )
        self.procs.append(proc)
        return proc

    def kill(self, proc: subprocess.Popen) -> None:
        os.killpg(proc.pid, signal.SIGKILL)  # the worker and its pool child, no goodbye
        proc.wait(timeout=10)

    def stop_all(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
                try:
                    proc.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    os.killpg(proc.pid, signal.SIGKILL)


@pytest.fixture
def workers(broker, tmp_path):
    with (tmp_path / "worker.log").open("w+") as log:
        pool = Workers(broker, log)
        yield pool
        pool.stop_all()
        log.seek(0)
        print(log.read()[-5000:])  # pytest shows it for a failing test


def row(pk: int) -> Simulation:
    return Simulation.objects.get(pk=pk)


def test_a_simulation_runs_on_a_worker_with_progress_rising(workers, loaded_catalog):
    # The compiled loop runs a million requests in about half a second, faster than progress
    # is written by default; this worker writes each report (every 16,384 arrivals).
    simulation, queued = simulation_start(data=slow(seed=1, requests=1_000_000))
    assert queued and simulation.status == SimulationStatus.QUEUED
    workers.start(SIMULATION_PROGRESS_EVERY_S=0)
    seen = []

    def finished():
        current = row(simulation.pk)
        seen.append(current.progress)
        return current.finished

    wait_for(finished, every=0.1)
    final = row(simulation.pk)
    assert final.status == SimulationStatus.SUCCEEDED, final.error
    assert final.result["completed"] == 1_000_000 and final.progress == 1.0
    assert any(0 < p < 1 for p in seen) and seen == sorted(seen)
    assert final.attempts == 1 and final.started_at <= final.finished_at


def test_the_same_question_twice_is_one_row_and_one_run(workers, loaded_catalog):
    first, queued_first = simulation_start(data=QUICK)
    second, queued_second = simulation_start(
        data=dict(reversed(list(QUICK.items())))
    )  # key order is not the question
    assert first.pk == second.pk and queued_first and not queued_second
    workers.start()
    wait_for(lambda: row(first.pk).finished)
    again, queued_again = simulation_start(data=QUICK)
    assert again.pk == first.pk and not queued_again
    assert Simulation.objects.count() == 1 and row(first.pk).attempts == 1


def stored(pk: int) -> dict:
    """Every column of the row and, on PostgreSQL, `xmin`: the transaction that last wrote the
    row, which any UPDATE changes even when it writes the same values."""
    values = Simulation.objects.filter(pk=pk).values().get()
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT xmin::text FROM planner_simulation WHERE id = %s", [pk])
            values["xmin"] = cursor.fetchone()[0]
    return values


@pytest.mark.slow  # a worker process killed, and the broker's visibility timeout waited out
def test_a_worker_killed_mid_run_leaves_the_row_recoverable_and_it_completes_once(
    workers, loaded_catalog
):
    simulation, _ = simulation_start(data=slow(seed=2))
    first = workers.start()
    wait_for(lambda: row(simulation.pk).progress > 0.05, every=0.1)
    workers.kill(first)
    interrupted = row(simulation.pk)
    assert interrupted.status == SimulationStatus.RUNNING and interrupted.result is None
    assert interrupted.attempts == 1 and interrupted.finished_at is None
    time.sleep(4)  # past the visibility timeout: the unacknowledged task is delivered again
    workers.start()
    statuses = []

    def finished():
        current = row(simulation.pk)
        statuses.append(current.status)
        return current.finished

    wait_for(finished, timeout=120, every=0.1)
    final = row(simulation.pk)
    assert final.status == SimulationStatus.SUCCEEDED, final.error
    assert final.attempts == 2 and final.result["completed"] == MAX_REQUESTS
    assert final.task_id == interrupted.task_id  # the same task, delivered again
    assert final.started_at <= final.finished_at and final.error == ""
    assert Simulation.objects.filter(inputs_hash=final.inputs_hash).count() == 1
    assert set(statuses) <= {SimulationStatus.RUNNING, SimulationStatus.SUCCEEDED}

    # The broker may deliver a task once more after it succeeded (an acknowledgement lost with
    # a connection, a visibility timeout passed while it ran): the row is not written again.
    written = stored(simulation.pk)
    simulation_run_task.apply_async(args=[simulation.pk], task_id=final.task_id)
    # One worker, one task at a time, in the order sent: once this later question is done,
    # the duplicate delivery has been handled.
    later, _ = simulation_start(data=QUICK)
    wait_for(lambda: row(later.pk).finished)
    assert stored(simulation.pk) == written


def test_a_run_past_its_time_limit_is_marked_timed_out(workers, loaded_catalog, settings):
    # Celery sends the limits with the message, so the sender's setting is the one that counts.
    # The compiled loop runs the largest serving question in about a second, so the limit is
    # half of one: the signal lands inside the run, often while numba enters the loop.
    settings.SIMULATION_SOFT_TIME_LIMIT_S = 0.5
    simulation, _ = simulation_start(data=slow(seed=3))
    workers.start(SIMULATION_SOFT_TIME_LIMIT_S=1)
    wait_for(lambda: row(simulation.pk).finished, timeout=60)
    final = row(simulation.pk)
    assert final.status == SimulationStatus.TIMED_OUT
    assert "time limit" in final.error and final.result is None


def test_cancelling_a_running_simulation_stops_it(workers, loaded_catalog):
    from planner.simulations.services import simulation_cancel

    simulation, _ = simulation_start(data=slow(seed=4))
    workers.start()
    wait_for(lambda: row(simulation.pk).status == SimulationStatus.RUNNING, every=0.1)
    assert simulation_cancel(simulation=row(simulation.pk))
    time.sleep(2)
    final = row(simulation.pk)
    assert final.status == SimulationStatus.CANCELLED and final.result is None


BROKER_DOWN_SCRIPT = """
import json, time
from planner.simulations.services import QueueUnavailable, simulation_start
started = time.monotonic()
try:
    simulation_start(data=json.loads(QUESTION))
    print("queued")
except QueueUnavailable as exc:
    print(f"unavailable {time.monotonic() - started:.2f} {exc}")
"""


def test_start_with_the_broker_down_fails_fast_and_queues_nothing(broker, loaded_catalog):
    # A fresh process, as a web server would be, whose broker is a port nothing listens on.
    import json

    connection.close()
    result = subprocess.run(
        [
            sys.executable,
            "manage.py",
            "shell",
            "-c",
            BROKER_DOWN_SCRIPT.replace("QUESTION", repr(json.dumps(QUICK))),
        ],
        cwd=ROOT,
        env={
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "config.settings.test",
            "DATABASE_URL": suite_database_url(),
            "CELERY_BROKER_URL": "redis://127.0.0.1:1/0",
        },
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    line = result.stdout.strip().splitlines()[-1]
    assert line.startswith("unavailable"), result.stdout + result.stderr
    assert float(line.split()[1]) < 2.5  # answered within the connection timeout, no hanging
    lost = Simulation.objects.get()
    assert lost.status == SimulationStatus.FAILED and "queue" in lost.error
    assert not Simulation.objects.filter(
        status__in=[SimulationStatus.QUEUED, SimulationStatus.RUNNING]
    ).exists()


SWEEP = {
    "kind": "sweep",
    "simulation": {"kind": "training", "trials": 5_000},
    "candidates": [
        {
            "task": "train",
            "model": "meta-llama-3-8b",
            "accelerator": "nvidia-h100-sxm5-80gb",
            "count": 64,
            "tokens": 1e12,
        },
        {
            "task": "train",
            "model": "meta-llama-3-8b",
            "accelerator": "nvidia-a100-sxm4-80gb",
            "count": 64,
            "tokens": 1e12,
        },
    ],
    "labels": ["64 x H100", "64 x A100"],
}


def test_a_sweep_fans_out_and_gathers_the_comparison(workers, loaded_catalog):
    sweep, queued = simulation_start(data=SWEEP)
    assert queued and sweep.parts.count() == 2
    workers.start()
    wait_for(lambda: row(sweep.pk).finished, timeout=120)
    final = row(sweep.pk)
    assert final.status == SimulationStatus.SUCCEEDED, final.error
    labels = [c["label"] for c in final.result["candidates"]]
    assert labels == ["64 x H100", "64 x A100"]
    h100, a100 = final.result["candidates"]
    assert h100["completion_days"]["mean"] < a100["completion_days"]["mean"]
    assert all(
        Simulation.objects.get(pk=pk).status == SimulationStatus.SUCCEEDED
        for pk in final.result["parts"]
    )


def test_a_sweep_reuses_parts_already_simulated(workers, loaded_catalog):
    single = {**SWEEP["simulation"], "estimate": SWEEP["candidates"][0]}
    part, _ = simulation_start(data=single)
    workers.start()
    wait_for(lambda: row(part.pk).finished)
    sweep, _ = simulation_start(data=SWEEP)
    assert part in sweep.parts.all()
    wait_for(lambda: row(sweep.pk).finished, timeout=120)
    assert row(sweep.pk).status == SimulationStatus.SUCCEEDED
    assert row(part.pk).attempts == 1  # not run again
    assert Simulation.objects.count() == 3
