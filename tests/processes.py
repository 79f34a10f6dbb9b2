"""For tests that start real processes (gunicorn, Celery workers, private database servers): a
free loopback port, polling with a deadline, the worker's command line, and the environment a
production-settings process starts from."""

from __future__ import annotations

import os
import secrets
import socket
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

# The suite's own service URLs; a process that must run on its own files gets none of them.
SERVICE_URL_VARIABLES = (
    "DATABASE_URL",
    "CELERY_BROKER_URL",
    "CELERY_RESULT_BACKEND",
    "CACHE_URL",
    "REDIS_URL",
)
# Production wants both (config/settings/production.py). The cache fails open, so a process
# runs whether or not a Redis answers there.
METRICS_TOKEN = "metrics-token-for-the-tests-" + "0" * 8
PRODUCTION_CACHE_URL = "redis://127.0.0.1:6379/14"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def port_answers(port: int) -> bool:
    with socket.socket() as probe:
        probe.settimeout(0.5)
        return probe.connect_ex(("127.0.0.1", port)) == 0


def wait_for(
    predicate: Callable[[], Any],
    *,
    timeout: float = 90,
    every: float = 0.1,
    what: str = "condition",
):
    """Poll until `predicate` returns something true, and return it."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(every)
    raise AssertionError(f"{what}: not reached within {timeout:.0f} s")


def celery_worker_command(
    *, pool: str = "prefork", concurrency: int = 1, name: str | None = None, loglevel: str = "INFO"
) -> list[str]:
    """A worker of this project that starts at once: no gossip, mingle or heartbeat to wait for
    other workers, and -q (no banner) so its output is log lines only."""
    command = [sys.executable, "-m", "celery", "-A", "config", "-q", "worker", "-P", pool]
    if pool == "prefork":
        command += ["-c", str(concurrency)]
    command += ["--without-gossip", "--without-mingle", "--without-heartbeat", "-l", loglevel]
    if name:
        command += ["-n", f"{name}@%h"]
    return command


def production_environment(folder: Path, *, allowed_hosts: str, **overrides: str) -> dict[str, str]:
    """A process with production settings that runs on files in `folder`: a SQLite database
    and the embedded (SQLAlchemy) broker, none of the suite's servers. `overrides` on top."""
    kept = {k: v for k, v in os.environ.items() if k not in SERVICE_URL_VARIABLES}
    return {
        **kept,
        "DJANGO_SETTINGS_MODULE": "config.settings.production",
        "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
        "ALLOWED_HOSTS": allowed_hosts,
        "DATABASE_URL": f"sqlite:///{folder / 'db.sqlite3'}",
        "CELERY_BROKER_URL": f"sqla+sqlite:///{folder / 'broker.sqlite3'}",
        "CACHE_URL": PRODUCTION_CACHE_URL,
        "FLOPFIT_METRICS_TOKEN": METRICS_TOKEN,
        **overrides,
    }


def suite_database_url() -> str:
    """The URL of the database pytest-django made, for a process that must share it."""
    from django.db import connection

    db = connection.settings_dict
    if db["ENGINE"].endswith("sqlite3"):
        return f"sqlite:///{db['NAME']}"
    host = db["HOST"] or "127.0.0.1"
    return f"postgres://{db['USER']}@{host}:{db['PORT'] or 5432}/{db['NAME']}"
