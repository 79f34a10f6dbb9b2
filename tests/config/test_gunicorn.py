"""gunicorn with config/gunicorn.py and production settings, on loopback, as the container runs
it: JSON log lines, probes through the container's health check, metrics merged over workers."""

import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from config.healthprobe import probe, probe_host
from tests.processes import (
    METRICS_TOKEN,
    free_port,
    port_answers,
    production_environment,
    wait_for,
)

ROOT = Path(__file__).resolve().parents[2]
WORKERS = 2


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp("gunicorn")
    metrics_dir = tmp_path / "metrics-web"
    metrics_dir.mkdir()
    stale = metrics_dir / "counter_999999.db"
    stale.write_bytes(b"left by a previous run")
    port = free_port()
    # The embedded broker: /readyz connects to it like to Redis, with no server to run.
    environment = production_environment(
        tmp_path,
        allowed_hosts="plan.example.com",
        GUNICORN_BIND=f"127.0.0.1:{port}",
        GUNICORN_WORKERS=str(WORKERS),
        PROMETHEUS_MULTIPROC_DIR=str(metrics_dir),
        # Never collected: WhiteNoise warns about it, and that warning must log as JSON too.
        DJANGO_STATIC_ROOT=str(tmp_path / "not-collected"),
    )
    log_path = tmp_path / "stdout.log"
    with log_path.open("w") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "-c", "config/gunicorn.py", "config.wsgi"],
            cwd=ROOT,
            env=environment,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            wait_for(
                lambda: proc.poll() is not None or port_answers(port),
                timeout=60,
                what="gunicorn listening",
            )
            assert proc.poll() is None, "gunicorn exited while starting"
            yield {
                "url": f"http://127.0.0.1:{port}",
                "log": log_path,
                "stale": stale,
                "metrics_dir": metrics_dir,
            }
        finally:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=30)


def get(server, path: str) -> tuple[int, bytes]:
    headers = {"Host": "plan.example.com", "Authorization": f"Bearer {METRICS_TOKEN}"}
    request = urllib.request.Request(server["url"] + path, headers=headers)
    with urllib.request.urlopen(request, timeout=10) as response:
        return response.status, response.read()


def test_the_container_health_check_passes_for_both_probes(server):
    # A worker loads the application on its first request, which on a busy machine can outlast
    # one probe's 5 s; the container's health check retries likewise before it calls a failure.
    wait_for(
        lambda: probe("/healthz", base_url=server["url"], allowed_hosts="*,plan.example.com") == 0,
        timeout=60,
        every=1,
        what="/healthz answering 200",
    )
    assert probe("/readyz", base_url=server["url"], allowed_hosts="plan.example.com") == 0


def test_the_health_check_fails_when_nothing_answers():
    assert probe("/healthz", base_url=f"http://127.0.0.1:{free_port()}", allowed_hosts="") == 1


def test_the_health_check_fails_on_a_host_the_site_refuses(server):
    assert probe("/healthz", base_url=server["url"], allowed_hosts="other.example.org") == 1


@pytest.mark.parametrize(
    ("allowed_hosts", "host"),
    [
        ("plan.example.com,x.org", "plan.example.com"),
        (".example.com", "example.com"),
        ("*", "localhost"),
        ("", "localhost"),
    ],
)
def test_the_health_check_picks_a_host_the_site_accepts(allowed_hosts, host):
    assert probe_host(allowed_hosts) == host


def test_metrics_add_up_over_every_worker_process(server):
    requests = 12
    for _ in range(requests):
        assert get(server, "/healthz")[0] == 200
    status, body = get(server, "/metrics")
    assert status == 200
    served = {
        (sample.labels["route"], sample.labels["status"]): sample.value
        for family in text_string_to_metric_families(body.decode())
        if family.name == "flopfit_http_requests"
        for sample in family.samples
        if sample.name == "flopfit_http_requests_total"
    }
    # Earlier tests in this module may have probed it too: at least these, and all counted.
    assert served[("healthz", "200")] >= requests
    assert not server["stale"].exists()  # cleared when the server started
    assert len(list(server["metrics_dir"].glob("*.db"))) >= 1


def test_every_log_line_is_json_and_requests_are_logged_with_their_fields(server):
    get(server, "/healthz?from=test")
    time.sleep(0.5)  # the access line is written after the response
    lines = [json.loads(line) for line in server["log"].read_text().splitlines() if line.strip()]
    assert any(
        line["logger"] == "gunicorn.error" and "Booting worker" in line["message"] for line in lines
    )
    assert any(
        line["logger"] == "py.warnings" and "not-collected" in line["message"] for line in lines
    )
    access = [line for line in lines if line["logger"] == "gunicorn.access"]
    mine = [line for line in access if line["query"] == "from=test"]
    assert len(mine) == 1
    assert mine[0]["method"] == "GET" and mine[0]["path"] == "/healthz"
    assert mine[0]["status"] == 200 and mine[0]["duration_ms"] > 0
