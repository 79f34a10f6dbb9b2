"""The embedded default (no broker server) and production settings, each in a fresh process."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run_python(code: str, **env) -> subprocess.CompletedProcess:
    base = {
        k: v
        for k, v in os.environ.items()
        if k not in ("CELERY_BROKER_URL", "CELERY_RESULT_BACKEND", "DATABASE_URL")
    }
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={**base, **env},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_the_embedded_broker_takes_a_task(tmp_path):
    # `make run` queues simulations on SQLAlchemy's transport over a SQLite file.
    broker = f"sqla+sqlite:///{tmp_path / 'broker.sqlite3'}"
    code = (
        "import django; django.setup()\n"
        "from config.celery import app\n"
        "result = app.send_task('planner.simulation.run', args=[0])\n"
        "print('queued', result.id)\n"
    )
    done = run_python(
        code, DJANGO_SETTINGS_MODULE="config.settings.local", CELERY_BROKER_URL=broker
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("queued ")


def test_production_refuses_to_start_without_a_secret_key():
    done = run_python(
        "import django; django.setup()",
        DJANGO_SETTINGS_MODULE="config.settings.production",
        ALLOWED_HOSTS="example.com",
        DJANGO_SECRET_KEY="",
    )
    assert done.returncode != 0 and "DJANGO_SECRET_KEY" in done.stderr


def test_production_refuses_to_start_without_allowed_hosts():
    done = run_python(
        "import django; django.setup()",
        DJANGO_SETTINGS_MODULE="config.settings.production",
        DJANGO_SECRET_KEY="x" * 50,
        ALLOWED_HOSTS="",
    )
    assert done.returncode != 0 and "ALLOWED_HOSTS" in done.stderr
