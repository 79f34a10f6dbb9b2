"""Prometheus metrics: requests by route, Celery tasks by outcome, and the scrape endpoint."""

import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import kombu
import pytest
from celery import signals
from django.db import connection
from django.urls import resolve
from prometheus_client import REGISTRY
from prometheus_client.parser import text_string_to_metric_families

from config.metrics import on_worker_init
from planner.simulations.tasks import simulation_run_task
from tests.processes import celery_worker_command, suite_database_url

ROOT = Path(__file__).resolve().parents[2]
SIMULATION_TASK = "planner.simulation.run"


def sample(name: str, **labels) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


def families(text: str) -> dict:
    return {family.name: family for family in text_string_to_metric_families(text)}


def test_a_request_is_timed_under_its_route_pattern_not_its_path(client, db):
    route = resolve("/api/v1/accelerators/no-such-card/").route
    assert "accelerators" in route and "no-such-card" not in route
    labels = {"method": "GET", "route": route, "status": "404"}
    before = sample("flopfit_http_request_duration_seconds_count", **labels)
    requests_before = sample("flopfit_http_requests_total", **labels)
    assert client.get("/api/v1/accelerators/no-such-card/").status_code == 404
    assert client.get("/api/v1/accelerators/another-card/").status_code == 404
    assert sample("flopfit_http_request_duration_seconds_count", **labels) == before + 2
    assert sample("flopfit_http_requests_total", **labels) == requests_before + 2
    exposition = client.get("/metrics").content.decode()
    assert "no-such-card" not in exposition and "another-card" not in exposition


def test_unknown_paths_and_methods_share_one_label_each(client):
    unresolved = {"method": "GET", "route": "<unresolved>", "status": "404"}
    odd_method = {"method": "other", "route": "healthz", "status": "405"}
    before = sample("flopfit_http_requests_total", **unresolved)
    before_odd = sample("flopfit_http_requests_total", **odd_method)
    client.get(f"/api/no-such-thing-{uuid.uuid4().hex}/")
    client.generic("BREW", "/healthz")
    assert sample("flopfit_http_requests_total", **unresolved) == before + 1
    assert sample("flopfit_http_requests_total", **odd_method) == before_odd + 1


def run_task_signals(task, *, outcome: str) -> None:
    """The signals a Celery pool child sends around one execution, in the order
    celery.app.trace sends them (prerun; success, failure or retry; postrun)."""
    task_id = str(uuid.uuid4())
    signals.task_prerun.send(sender=task, task_id=task_id, task=task, args=(1,), kwargs={})
    if outcome == "success":
        signals.task_success.send(sender=task, result=None)
    elif outcome == "failure":
        error = RuntimeError("engine refused the layout")
        signals.task_failure.send(
            sender=task, task_id=task_id, exception=error, args=(1,), kwargs={}, traceback=None
        )
    else:
        signals.task_retry.send(sender=task, request=task.request, reason="broker busy")
    signals.task_postrun.send(
        sender=task,
        task_id=task_id,
        task=task,
        args=(1,),
        kwargs={},
        retval=None,
        state=outcome.upper(),
    )


@pytest.mark.parametrize("outcome", ["success", "failure", "retry"])
def test_a_task_run_records_its_duration_and_outcome(outcome):
    task = simulation_run_task
    labels = {"task": SIMULATION_TASK, "outcome": outcome}
    runs_before = sample("flopfit_task_duration_seconds_count", **labels)
    outcomes_before = sample("flopfit_task_outcomes_total", **labels)
    run_task_signals(task, outcome=outcome)
    assert sample("flopfit_task_duration_seconds_count", **labels) == runs_before + 1
    assert sample("flopfit_task_duration_seconds_sum", **labels) > 0
    assert sample("flopfit_task_outcomes_total", **labels) == outcomes_before + 1


def test_a_task_whose_process_died_counts_as_a_failure_without_a_duration():
    # The worker's main process sends task_failure alone when a pool child is killed (hard
    # time limit, out of memory): there was no prerun in this process.
    task = simulation_run_task
    labels = {"task": SIMULATION_TASK, "outcome": "failure"}
    runs_before = sample("flopfit_task_duration_seconds_count", **labels)
    outcomes_before = sample("flopfit_task_outcomes_total", **labels)
    signals.task_failure.send(
        sender=task, task_id=str(uuid.uuid4()), exception=MemoryError(), args=(), kwargs={}
    )
    assert sample("flopfit_task_outcomes_total", **labels) == outcomes_before + 1
    assert sample("flopfit_task_duration_seconds_count", **labels) == runs_before


def test_metrics_answers_the_text_exposition_format(client):
    client.get("/healthz")
    response = client.get("/metrics")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/plain; version=")
    parsed = families(response.content.decode())
    assert parsed["flopfit_http_request_duration_seconds"].type == "histogram"
    assert parsed["flopfit_task_outcomes"].type == "counter"


def test_metrics_wants_the_bearer_token_when_one_is_set(client, settings):
    settings.FLOPFIT_METRICS_TOKEN = "scrape-" + uuid.uuid4().hex
    assert client.get("/metrics").status_code == 401
    wrong = client.get("/metrics", HTTP_AUTHORIZATION="Bearer not-the-token")
    assert wrong.status_code == 401 and wrong["WWW-Authenticate"].startswith("Bearer")
    right = client.get("/metrics", HTTP_AUTHORIZATION=f"Bearer {settings.FLOPFIT_METRICS_TOKEN}")
    assert right.status_code == 200


_CHILD = """
import django
django.setup()
from planner.simulations.tasks import simulation_run_task
from tests.config.test_metrics import run_task_signals
run_task_signals(simulation_run_task, outcome="success")
run_task_signals(simulation_run_task, outcome="failure")
"""


def test_metrics_merges_the_samples_other_processes_wrote(client, tmp_path, monkeypatch):
    # Two worker processes of another container, each writing its own files into a shared
    # directory, as Celery's prefork children do with PROMETHEUS_MULTIPROC_DIR set.
    worker_dir = tmp_path / "worker"
    worker_dir.mkdir()
    for _ in range(2):
        done = subprocess.run(
            [sys.executable, "-c", _CHILD],
            cwd=ROOT,
            env={
                **{k: v for k, v in os.environ.items() if k != "DATABASE_URL"},
                "DJANGO_SETTINGS_MODULE": "config.settings.test",
                "PROMETHEUS_MULTIPROC_DIR": str(worker_dir),
            },
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert done.returncode == 0, done.stderr
    assert len(list(worker_dir.glob("*.db"))) >= 2
    monkeypatch.setenv("FLOPFIT_METRICS_READ_DIRS", str(worker_dir))
    text = client.get("/metrics").content.decode()
    outcomes = families(text)["flopfit_task_outcomes"]
    totals = {s.labels["outcome"]: s.value for s in outcomes.samples if s.name.endswith("_total")}
    assert totals == {"success": 2.0, "failure": 2.0}


def test_a_worker_starting_clears_only_its_own_directory(tmp_path, monkeypatch):
    own, other = tmp_path / "worker", tmp_path / "web"
    own.mkdir()
    other.mkdir()
    (own / "counter_4242.db").write_bytes(b"from the previous run")
    (other / "counter_4343.db").write_bytes(b"a live web process")
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(own))
    on_worker_init()  # the worker_init receiver; Celery sends it with the worker instance
    assert list(own.iterdir()) == [] and (other / "counter_4343.db").exists()


@pytest.mark.django_db(transaction=True)
def test_a_real_worker_pool_child_writes_task_metrics_the_web_can_read(
    client, tmp_path, monkeypatch
):
    # docker-compose's arrangement: a prefork worker writes into its directory on a volume, the
    # web merges it. The broker is SQLAlchemy's transport on a file: real, with no server.
    worker_dir = tmp_path / "worker"
    worker_dir.mkdir()
    broker_url = f"sqla+sqlite:///{tmp_path / 'broker.sqlite3'}"
    connection.close()  # the worker opens its own
    worker = subprocess.Popen(
        celery_worker_command(loglevel="WARNING"),
        cwd=ROOT,
        env={
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "config.settings.test",
            "DATABASE_URL": suite_database_url(),
            "CELERY_BROKER_URL": broker_url,
            "CELERY_RESULT_BACKEND": "cache+memory://",
            "PROMETHEUS_MULTIPROC_DIR": str(worker_dir),
        },
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        # A bare connection: this process's Celery options may be Redis's, not the file's.
        with kombu.Connection(broker_url) as conn:
            # Simulation 0 does not exist: the task answers "missing" and succeeds.
            simulation_run_task.apply_async(args=[0], connection=conn)
        monkeypatch.setenv("FLOPFIT_METRICS_READ_DIRS", str(worker_dir))
        deadline = time.monotonic() + 90
        totals = {}
        while time.monotonic() < deadline and not totals:
            assert worker.poll() is None, "the worker exited"
            outcomes = families(client.get("/metrics").content.decode()).get(
                "flopfit_task_outcomes"
            )
            totals = {
                (s.labels["task"], s.labels["outcome"]): s.value
                for s in (outcomes.samples if outcomes else [])
                if s.name.endswith("_total")
            }
            time.sleep(0.3)
    finally:
        os.killpg(worker.pid, signal.SIGTERM)
        worker.wait(timeout=30)
    assert totals == {(SIMULATION_TASK, "success"): 1.0}
