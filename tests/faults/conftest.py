"""Private servers for the fault tests: a Redis and a PostgreSQL cluster that a test may kill and
restart, and the web server (gunicorn) and Celery worker processes that use them.

Nothing here stops or restarts the shared servers the rest of the suite talks to: each server
is started by the test on a free loopback port and removed when the test ends."""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import signal
import subprocess
import sys
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import IO

import pytest

from tests.conftest import require_or_skip
from tests.processes import (
    celery_worker_command,
    free_port,
    port_answers,
    suite_database_url,
    wait_for,
)

ROOT = Path(__file__).resolve().parents[2]
PG_BIN_ROOT = Path("/usr/lib/postgresql")
STARTUP_TIMEOUT_S = 30


def _stop(proc: subprocess.Popen, *, grace_s: float = 10) -> None:
    """SIGTERM the process group, then SIGKILL whatever is left of it."""
    if proc.poll() is not None:
        return
    os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=grace_s)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)


class Logs:
    """One log file per process, printed at teardown so a failing test shows what they said."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.files: dict[str, IO[str]] = {}

    def open(self, name: str) -> IO[str]:
        self.files[name] = (self.folder / f"{name}.log").open("w+")
        return self.files[name]

    def dump(self) -> None:
        for name, file in self.files.items():
            file.seek(0)
            print(f"--- {name} ---\n{file.read()[-4000:]}")
            file.close()


@pytest.fixture
def logs(tmp_path) -> Iterator[Logs]:
    collected = Logs(tmp_path)
    yield collected
    collected.dump()


# --- Redis -----------------------------------------------------------------------------------


class PrivateRedis:
    """A redis-server of the test's own: no persistence, so a restart comes back empty, as a
    broker whose machine rebooted would."""

    def __init__(self, binary: str, folder: Path, logs: Logs):
        self.binary = binary
        self.folder = folder
        self.logs = logs
        self.port = free_port()
        self.proc: subprocess.Popen | None = None

    def url(self, db: int = 0) -> str:
        return f"redis://127.0.0.1:{self.port}/{db}"

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [
                self.binary,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--daemonize",
                "no",
                "--dir",
                str(self.folder),
            ],
            start_new_session=True,
            stdout=self.logs.open(f"redis-{self.port}-{uuid.uuid4().hex[:4]}"),
            stderr=subprocess.STDOUT,
        )
        wait_for(lambda: port_answers(self.port), timeout=STARTUP_TIMEOUT_S, what="redis up")

    def kill(self) -> None:
        """SIGKILL: the broker vanishes with no goodbye to its clients."""
        assert self.proc is not None
        os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=10)

    def stop(self) -> None:
        if self.proc is not None:
            _stop(self.proc)


@pytest.fixture
def private_redis(tmp_path, logs) -> Iterator[PrivateRedis]:
    binary = shutil.which("redis-server")
    if binary is None:
        require_or_skip("the fault tests start their own redis-server, which is not installed")
    folder = tmp_path / "redis"
    folder.mkdir()
    server = PrivateRedis(binary, folder, logs)
    server.start()
    yield server
    server.stop()


# --- PostgreSQL ------------------------------------------------------------------------------


def _pg_bin() -> Path | None:
    versions = sorted(
        (p for p in PG_BIN_ROOT.glob("*/bin") if (p / "initdb").exists()),
        key=lambda p: int(p.parent.name) if p.parent.name.isdigit() else 0,
    )
    return versions[-1] if versions else None


class PrivatePostgres:
    """A PostgreSQL cluster of the test's own, run by the `postgres` user in a temporary folder,
    with trust authentication on loopback. fsync is off: a test's data need not survive a
    power cut, and a fast restart shuts down cleanly anyway."""

    def __init__(self, bin_dir: Path, folder: Path):
        self.bin_dir = bin_dir
        self.folder = folder
        self.data = folder / "data"
        self.port = free_port()

    def _as_postgres(self, *args: str, timeout: float = 60) -> None:
        command = " ".join(f"'{a}'" for a in args)
        subprocess.run(
            ["su", "postgres", "-s", "/bin/sh", "-c", command],
            check=True,
            timeout=timeout,
            capture_output=True,
        )

    def init(self) -> None:
        self._as_postgres(
            str(self.bin_dir / "initdb"),
            "-D",
            str(self.data),
            "-A",
            "trust",
            "-U",
            "postgres",
            "--no-sync",
        )
        self.start()

    def _pg_ctl(self, action: str, *extra: str) -> None:
        self._as_postgres(
            str(self.bin_dir / "pg_ctl"),
            "-D",
            str(self.data),
            "-l",
            str(self.folder / "server.log"),
            "-o",
            f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 -c fsync=off",
            "-w",
            "-t",
            str(STARTUP_TIMEOUT_S),
            action,
            *extra,
        )

    def start(self) -> None:
        self._pg_ctl("start")

    def restart(self) -> None:
        """Fast mode: open sessions are cut off and in-flight transactions rolled back, as an
        operator's restart or a failover does. Returns once the server accepts connections."""
        self._pg_ctl("restart", "-m", "fast")

    def stop(self) -> None:
        self._pg_ctl("stop", "-m", "immediate")

    def url(self, name: str) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/{name}"

    def create_database(self, name: str) -> None:
        import psycopg

        with psycopg.connect(self.url("postgres"), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')

    def log_tail(self) -> str:
        path = self.folder / "server.log"
        return path.read_text()[-3000:] if path.exists() else ""


@pytest.fixture
def private_postgres() -> Iterator[PrivatePostgres]:
    bin_dir = _pg_bin()
    if bin_dir is None:
        require_or_skip(f"no PostgreSQL server binaries under {PG_BIN_ROOT}")
    try:
        owner = pwd.getpwnam("postgres")
    except KeyError:
        require_or_skip("no postgres user to run a private PostgreSQL cluster")
    if os.geteuid() != 0:
        require_or_skip("a private PostgreSQL cluster is started as root switching to postgres")
    # Not under pytest's tmp_path: the postgres user must be able to reach the folder.
    folder = Path(tempfile.mkdtemp(prefix="flopfit-pg-"))
    os.chown(folder, owner.pw_uid, owner.pw_gid)
    cluster = PrivatePostgres(bin_dir, folder)
    try:
        cluster.init()
        yield cluster
    finally:
        # It may never have started, or be down already: the folder goes either way.
        with contextlib.suppress(subprocess.CalledProcessError):
            cluster.stop()
        print(f"--- postgres ---\n{cluster.log_tail()}")
        shutil.rmtree(folder, ignore_errors=True)


# --- the application's processes ------------------------------------------------------------


def app_environment(**overrides: str) -> dict[str, str]:
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.test",
        "PYTHONUNBUFFERED": "1",
        **overrides,
    }


class Processes:
    """The web server and workers a test starts; all stopped at teardown."""

    def __init__(self, logs: Logs):
        self.logs = logs
        self.procs: list[subprocess.Popen] = []

    def gunicorn(self, env: dict[str, str], *, workers: int = 2) -> str:
        """gunicorn as production runs it, on a free loopback port. Returns its base URL."""
        port = free_port()
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "gunicorn",
                "config.wsgi:application",
                "--bind",
                f"127.0.0.1:{port}",
                "--workers",
                str(workers),
                "--timeout",
                "60",
                "--graceful-timeout",
                "5",
            ],
            cwd=ROOT,
            env=env,
            start_new_session=True,
            stdout=subprocess.DEVNULL,
            stderr=self.logs.open(f"gunicorn-{port}"),
        )
        self.procs.append(proc)
        wait_for(
            lambda: proc.poll() is not None or port_answers(port),
            timeout=STARTUP_TIMEOUT_S,
            what="gunicorn listening",
        )
        assert proc.poll() is None, "gunicorn exited at start; its log is printed below"
        return f"http://127.0.0.1:{port}"

    def _spawn(self, command: list[str], env: dict[str, str], log: str) -> subprocess.Popen:
        """A process in a session of its own (so its children are stopped with it)."""
        proc = subprocess.Popen(
            command,
            cwd=ROOT,
            env=env,
            start_new_session=True,
            stdout=subprocess.DEVNULL,
            stderr=self.logs.open(log),
        )
        self.procs.append(proc)
        return proc

    def worker(self, env: dict[str, str]) -> subprocess.Popen:
        name = f"fault-{uuid.uuid4().hex[:8]}"
        return self._spawn(celery_worker_command(name=name), env, f"worker-{name}")

    def beat(self, env: dict[str, str], schedule: Path) -> subprocess.Popen:
        """Celery beat, which sends the periodic tasks (simulations whose task was lost are
        queued again), keeping its schedule in `schedule`."""
        command = [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "config",
            "-q",
            "beat",
            "-s",
            str(schedule),
        ]
        return self._spawn(command, env, f"beat-{uuid.uuid4().hex[:4]}")

    def manage(self, env: dict[str, str], *args: str, timeout: float = 120) -> str:
        result = subprocess.run(
            [sys.executable, "manage.py", *args],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        assert result.returncode == 0, f"manage.py {args[0]} failed:\n{result.stderr[-3000:]}"
        return result.stdout

    def stop_all(self) -> None:
        for proc in reversed(self.procs):
            _stop(proc)


@pytest.fixture
def processes(logs) -> Iterator[Processes]:
    started = Processes(logs)
    yield started
    started.stop_all()


def shared_database_url() -> str:
    """The URL of the database pytest-django made, for processes that must share it; the fault
    tests run on PostgreSQL only, as production does."""
    from django.db import connection

    if not connection.settings_dict["ENGINE"].endswith("postgresql"):
        require_or_skip("the fault tests need PostgreSQL (set DATABASE_URL)")
    return suite_database_url()


def simulation_row(url: str, pk: int) -> dict:
    """What a simulation's row says now, read straight from the database at `url`."""
    import psycopg

    with psycopg.connect(url) as conn:
        cursor = conn.execute(
            "SELECT status, attempts, error, result IS NOT NULL, result->>'completed',"
            " started_at, finished_at, progress FROM planner_simulation WHERE id = %s",
            [pk],
        )
        names = (
            "status",
            "attempts",
            "error",
            "has_result",
            "completed",
            "started",
            "finished",
            "progress",
        )
        return dict(zip(names, cursor.fetchone(), strict=True))
