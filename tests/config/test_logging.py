"""Log lines as JSON: one object per line, whatever the message holds."""

import io
import json
import logging
import os
import signal
import subprocess
import sys
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured
from gunicorn.glogging import SafeAtoms

from config.logging import GunicornAccessFormatter, JsonFormatter, logging_config
from tests.processes import celery_worker_command, production_environment

ROOT = Path(__file__).resolve().parents[2]


def emit(formatter: logging.Formatter, log) -> list[dict]:
    """Log through a real logger and handler into a buffer; return the parsed lines."""
    buffer = io.StringIO()
    handler = logging.StreamHandler(buffer)
    handler.setFormatter(formatter)
    logger = logging.getLogger(f"flopfit.test.{uuid.uuid4().hex}")
    logger.addHandler(handler)
    logger.propagate = False
    logger.setLevel(logging.DEBUG)
    log(logger)
    lines = buffer.getvalue().splitlines()
    return [json.loads(line) for line in lines]


def test_a_record_is_one_json_object_with_time_level_logger_and_message():
    (line,) = emit(JsonFormatter(), lambda log: log.warning("rack %s over budget", "A3"))
    assert line["level"] == "WARNING" and line["logger"].startswith("flopfit.test.")
    assert line["message"] == "rack A3 over budget"
    assert line["time"].endswith("Z")
    logged_at = datetime.fromisoformat(line["time"].replace("Z", "+00:00"))
    assert logged_at.utcoffset().total_seconds() == 0
    assert abs((datetime.now(UTC) - logged_at).total_seconds()) < 60
    assert "exception" not in line


def test_an_exception_travels_as_text_inside_the_one_line():
    def log(logger):
        try:
            {}["missing"]
        except KeyError:
            logger.exception("lookup failed")

    (line,) = emit(JsonFormatter(), log)
    assert line["message"] == "lookup failed" and line["level"] == "ERROR"
    assert line["exception"].startswith("Traceback (most recent call last):")
    assert "KeyError: 'missing'" in line["exception"]


def test_non_ascii_text_survives_and_the_line_stays_ascii():
    buffer = io.StringIO()
    handler = logging.StreamHandler(buffer)
    handler.setFormatter(JsonFormatter())
    record = logging.LogRecord(
        "flopfit", logging.INFO, __file__, 1, "机柜 %s 功率超限 — 12 kW", ("甲",), None
    )
    handler.handle(record)
    text = buffer.getvalue()
    assert text.isascii() and text.count("\n") == 1
    assert json.loads(text)["message"] == "机柜 甲 功率超限 — 12 kW"


def test_extra_fields_are_kept_and_values_json_cannot_hold_become_text():
    simulation = uuid.UUID("12345678-1234-5678-1234-567812345678")
    (line,) = emit(
        JsonFormatter(),
        lambda log: log.info("queued", extra={"simulation": simulation, "attempt": 2}),
    )
    assert line["simulation"] == str(simulation) and line["attempt"] == 2


def test_a_gunicorn_access_line_carries_the_request_fields():
    # The atoms gunicorn's Logger.atoms() builds for `GET /healthz?full=1` answered 200.
    atoms = SafeAtoms(
        {
            "h": "10.0.0.7",
            "m": "GET",
            "U": "/healthz",
            "q": "full=1",
            "s": "200",
            "B": 16,
            "D": 1534,
            "a": "kube-probe/1.30",
            "{x-request-id}i": "req-42",
        }
    )
    record = logging.LogRecord(
        "gunicorn.access", logging.INFO, __file__, 1, '%(h)s "%(r)s" %(s)s', atoms, None
    )
    line = json.loads(GunicornAccessFormatter().format(record))
    assert line["method"] == "GET" and line["path"] == "/healthz" and line["query"] == "full=1"
    assert line["status"] == 200 and line["duration_ms"] == 1.534
    assert line["request_id"] == "req-42" and line["remote_addr"] == "10.0.0.7"
    assert line["response_bytes"] == 16 and line["user_agent"] == "kube-probe/1.30"


def test_a_missing_request_id_reads_as_a_dash_not_an_error():
    atoms = SafeAtoms({"m": "GET", "U": "/", "q": "", "s": "302", "B": None, "D": 900})
    record = logging.LogRecord("gunicorn.access", logging.INFO, __file__, 1, "%(s)s", atoms, None)
    line = json.loads(GunicornAccessFormatter().format(record))
    assert line["request_id"] == "-" and line["status"] == 302 and line["response_bytes"] is None


@pytest.mark.parametrize(
    ("log_format", "level", "message"),
    [
        ("xml", "INFO", "LOG_FORMAT must be one of plain, json, not 'xml'"),
        ("json", "LOUD", "LOG_LEVEL 'LOUD' is not a logging level"),
    ],
)
def test_bad_logging_settings_are_refused_by_name(log_format, level, message):
    with pytest.raises(ImproperlyConfigured, match=message):
        logging_config(log_format=log_format, level=level)


def test_log_format_json_puts_django_logs_on_stdout_as_json_lines():
    environment = {
        **{k: v for k, v in os.environ.items() if k != "DATABASE_URL"},
        "DJANGO_SETTINGS_MODULE": "config.settings.local",
        "LOG_FORMAT": "json",
    }
    code = (
        "import django, logging; django.setup()\n"
        "logging.getLogger('planner').warning('预算 %d kW', 40)\n"
        "logging.getLogger('planner').debug('below the level')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert [(line["logger"], line["message"]) for line in lines] == [("planner", "预算 40 kW")]


def test_the_celery_worker_logs_json_lines_through_django_logging(tmp_path):
    # The worker as docker-compose starts it (-q: no banner), on the embedded broker.
    environment = production_environment(
        tmp_path,
        allowed_hosts="example.com",
        CELERY_RESULT_BACKEND=f"db+sqlite:///{tmp_path / 'results.sqlite3'}",
    )
    stdout_path = tmp_path / "worker.log"
    with stdout_path.open("w") as stdout:
        worker = subprocess.Popen(
            celery_worker_command(pool="solo"),
            cwd=ROOT,
            env=environment,
            stdout=stdout,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        try:
            deadline = time.monotonic() + 60
            while "ready." not in stdout_path.read_text() and time.monotonic() < deadline:
                assert worker.poll() is None, "the worker exited while starting"
                time.sleep(0.2)
        finally:
            os.killpg(worker.pid, signal.SIGTERM)
            worker.wait(timeout=30)
    # Celery prints its shutdown notice ("worker: Warm shutdown (MainProcess)") straight to
    # stdout, outside logging; every other line is a log record.
    lines = [
        json.loads(line)
        for line in stdout_path.read_text().splitlines()
        if line.strip() and not line.startswith("worker: ")
    ]
    ready = [line for line in lines if line["message"].endswith("ready.")]
    assert len(ready) == 1 and ready[0]["logger"] == "celery.apps.worker"
    assert ready[0]["level"] == "INFO"
