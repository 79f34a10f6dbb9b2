"""Load and soak runs against gunicorn and a Celery worker on loopback, with production
settings, PostgreSQL and Redis. Prints a table per endpoint group and the verdicts against the
targets (bench/load/mix.py), and writes them as JSON and markdown under bench/results/.

    .venv/bin/python bench/load/run.py                 # 5 minutes of the mix
    .venv/bin/python bench/load/run.py --soak 600      # 60 s warm-up + 10 minutes, RSS sampled
    .venv/bin/python bench/load/run.py --duration 20 --out /tmp/load   # a dry run

Needs PostgreSQL and Redis running (127.0.0.1:5432 and :6379 by default) and the `load` extra
(`make load` installs it). By default it works in its own database, flopfit_load, dropped and
created anew, and its own Redis databases 7 (broker), 8 (results) and 10 (cache), emptied
first; it drops nothing else. It stops the server and the worker it started, whatever happens.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import urlsplit

import results
from memory import alive, tree_memory
from mix import DEFAULT_RATES_RPS, users_and_rate

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
BIN = Path(sys.executable).parent
DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/flopfit_load"
# Only a database whose name starts so is dropped and created anew.
OWN_DATABASE_PREFIX = "flopfit_load"
DEFAULT_BROKER_URL = "redis://127.0.0.1:6379/7"
DEFAULT_RESULTS_URL = "redis://127.0.0.1:6379/8"
DEFAULT_CACHE_URL = "redis://127.0.0.1:6379/10"
# Throttling stays on, at rates the mix never reaches: the run measures serving, not refusing.
THROTTLE_RATE = "100000/min"
READY_TIMEOUT_S = 90
STOP_TIMEOUT_S = 15
SAMPLE_EVERY_S = 10.0


def _args(argv: list[str] | None) -> argparse.Namespace:
    cpus = len(os.sched_getaffinity(0))
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--duration", type=float, default=300, help="seconds of load (default 300)")
    p.add_argument(
        "--soak",
        type=float,
        metavar="SECONDS",
        help="soak: the mix for --warmup + SECONDS, memory sampled every 10 s",
    )
    p.add_argument("--warmup", type=float, default=60, help="soak warm-up, s (default 60)")
    p.add_argument("--database-url", default=os.environ.get("DATABASE_URL", DEFAULT_DATABASE_URL))
    p.add_argument("--broker-url", default=DEFAULT_BROKER_URL)
    p.add_argument("--results-url", default=DEFAULT_RESULTS_URL)
    p.add_argument("--cache-url", default=DEFAULT_CACHE_URL)
    p.add_argument(
        "--keep-data",
        action="store_true",
        help="migrate and reseed, but neither drop the database nor empty the Redis databases",
    )
    p.add_argument("--workers", type=int, default=2 * cpus + 1, help="gunicorn workers")
    p.add_argument("--celery-concurrency", type=int, default=cpus)
    p.add_argument("--port", type=int, default=0, help="default: a free port")
    for group, rate in DEFAULT_RATES_RPS.items():
        p.add_argument(
            f"--{group.replace(' ', '-').lower()}-rps",
            type=float,
            default=rate,
            dest=f"rate_{group}",
            metavar="RPS",
            help=f"{group} requests/s (default {rate:g})",
        )
    p.add_argument("--out", type=Path, default=ROOT / "bench" / "results")
    p.add_argument("--run-dir", type=Path, help="logs and locust CSV (default var/load/<time>)")
    args = p.parse_args(argv)
    name = urlsplit(args.database_url).path.lstrip("/")
    if not args.keep_data and not name.startswith(OWN_DATABASE_PREFIX):
        p.error(
            f"--database-url: refusing to drop {name!r}; name a database starting with "
            f"{OWN_DATABASE_PREFIX!r} or pass --keep-data"
        )
    return args


def _environment(args: argparse.Namespace) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        {
            "DJANGO_SETTINGS_MODULE": "config.settings.production",
            "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
            "ALLOWED_HOSTS": "127.0.0.1,localhost",
            # Plain HTTP on loopback: no TLS terminator in front of gunicorn here.
            "DJANGO_SECURE_SSL_REDIRECT": "false",
            "DATABASE_URL": args.database_url,
            "CELERY_BROKER_URL": args.broker_url,
            "CELERY_RESULT_BACKEND": args.results_url,
            "CACHE_URL": args.cache_url,
            "FLOPFIT_METRICS_TOKEN": secrets.token_urlsafe(32),
            # collectstatic writes here, not to the shared var/staticfiles.
            "DJANGO_STATIC_ROOT": str(ROOT / "var" / "load" / "staticfiles"),
            "FLOPFIT_THROTTLE_ANON": THROTTLE_RATE,
            "FLOPFIT_THROTTLE_USER": THROTTLE_RATE,
            "FLOPFIT_THROTTLE_COMPUTE": THROTTLE_RATE,
            "LOG_LEVEL": "WARNING",
            "PYTHONUNBUFFERED": "1",
        }
    )
    return env


# --- data ------------------------------------------------------------------------------------


def _prepare_database(url: str, *, fresh: bool) -> None:
    import psycopg

    parts = urlsplit(url)
    name = parts.path.lstrip("/")
    if parts.scheme not in ("postgres", "postgresql", "pgsql"):
        sys.exit(f"--database-url: PostgreSQL only, not {parts.scheme!r}")
    # `fresh` only for the bench's own database: _args refused any other name.
    admin_url = parts._replace(path="/postgres").geturl()
    with psycopg.connect(admin_url, autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone()
        if fresh and exists:
            conn.execute(f'DROP DATABASE "{name}" WITH (FORCE)')
        if fresh or not exists:
            conn.execute(f'CREATE DATABASE "{name}"')


def _empty_redis(urls: list[str]) -> None:
    import redis

    for url in dict.fromkeys(urls):
        redis.Redis.from_url(url, socket_connect_timeout=2).flushdb()


def _manage(env: dict[str, str], *command: str) -> None:
    subprocess.run([str(BIN / "python"), "manage.py", *command], cwd=ROOT, env=env, check=True)


def _seed(env: dict[str, str], run_dir: Path) -> dict:
    out = run_dir / "seed.json"
    subprocess.run(
        [str(BIN / "python"), str(HERE / "seed.py"), str(out)], cwd=ROOT, env=env, check=True
    )
    return json.loads(out.read_text())


# --- processes -------------------------------------------------------------------------------


class Processes:
    """The server, the worker and locust, each in its own process group so that stopping one
    stops its children too; stopped on exit, on Ctrl-C and on SIGTERM."""

    def __init__(self) -> None:
        self.started: dict[str, subprocess.Popen] = {}
        self.logs = []

    def start(self, name: str, argv: list[str], env: dict[str, str], log: Path) -> int:
        handle = log.open("wb")
        self.logs.append(handle)
        process = subprocess.Popen(
            argv, cwd=ROOT, env=env, stdout=handle, stderr=subprocess.STDOUT, start_new_session=True
        )
        self.started[name] = process
        return process.pid

    def check(self) -> None:
        for name, process in self.started.items():
            if process.poll() is not None:
                raise RuntimeError(f"{name} exited with {process.returncode}; see its log")

    def stop(self) -> None:
        for process in self.started.values():
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
        deadline = time.monotonic() + STOP_TIMEOUT_S
        for process in self.started.values():
            try:
                process.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        self.started.clear()
        for handle in self.logs:
            handle.close()


def _fresh_dir(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    for child in path.iterdir():
        child.unlink()
    return path


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get(url: str, headers: dict[str, str] | None = None) -> int:
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status
    except urllib.error.HTTPError as exc:
        return exc.code


def _wait_ready(base_url: str, worker_log: Path, processes: Processes) -> None:
    deadline = time.monotonic() + READY_TIMEOUT_S
    server_up = worker_up = False
    while not (server_up and worker_up):
        processes.check()
        if time.monotonic() > deadline:
            raise RuntimeError(
                f"not ready after {READY_TIMEOUT_S} s: server {server_up}, worker {worker_up}"
            )
        with contextlib.suppress(OSError):  # refused until gunicorn listens
            server_up = server_up or _get(f"{base_url}/") == 200
        worker_up = worker_up or b" ready." in worker_log.read_bytes()
        time.sleep(0.5)


def _check_pages(base_url: str, seed: dict) -> None:
    """Each page of the mix answers 200 once before locust starts: a broken page fails here,
    with its URL, rather than as a column of errors."""
    token = {"Authorization": f"Token {seed['token']}"}
    session = {"Cookie": seed["session_cookie"]}
    for path, headers in (
        ("/catalog/accelerators/", {}),
        ("/api/v1/accelerators/", token),
        (f"/plans/{seed['plan_id']}/", session),
    ):
        status = _get(base_url + path, headers)
        if status != 200:
            raise RuntimeError(f"GET {path} answered {status} before the run")


# --- the run ---------------------------------------------------------------------------------


def _hardware(args: argparse.Namespace) -> dict:
    from importlib.metadata import version

    import psycopg
    import redis

    cpu_model = "unknown"
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            cpu_model = line.split(":", 1)[1].strip()
            break
    mem_kib = int(Path("/proc/meminfo").read_text().split()[1])
    with psycopg.connect(args.database_url) as conn:
        pg_version = conn.execute("SHOW server_version").fetchone()[0]
    redis_version = redis.Redis.from_url(args.broker_url).info("server")["redis_version"]
    return {
        "cpus": len(os.sched_getaffinity(0)),
        "cpu_model": cpu_model,
        "memory_gib": mem_kib / 1024**2,
        "kernel": platform.release(),
        "python": platform.python_version(),
        "postgresql": pg_version,
        "redis": redis_version,
        # Read from the package metadata: importing locust would patch this process (gevent).
        "locust": version("locust"),
        "gunicorn": version("gunicorn"),
        "loadavg": " ".join(f"{x:.2f}" for x in os.getloadavg()),
    }


def _simulation_counts(database_url: str) -> dict[str, int]:
    """Simulation rows by status when the load stops: the fresh questions the worker took."""
    import psycopg

    with psycopg.connect(database_url) as conn:
        rows = conn.execute(
            "SELECT status, count(*) FROM planner_simulation GROUP BY status ORDER BY status"
        ).fetchall()
    return dict(rows)


def _run_locust(
    *,
    base_url: str,
    config_path: Path,
    users: int,
    run_time_s: float,
    csv_prefix: Path,
    env: dict[str, str],
    log: Path,
    processes: Processes,
    sample_pids: dict[str, int],
) -> list[dict]:
    """Locust headless for `run_time_s`; samples the memory of each process tree meanwhile."""
    argv = [
        str(BIN / "locust"),
        "-f",
        str(HERE / "locustfile.py"),
        "--headless",
        "--host",
        base_url,
        "--users",
        str(users),
        "--spawn-rate",
        str(users),
        "--run-time",
        f"{int(run_time_s)}s",
        "--stop-timeout",
        "10",
        "--reset-stats",
        "--only-summary",
        "--csv",
        str(csv_prefix),
    ]
    samples = []
    started = time.monotonic()
    # Started like the server, so that an interrupted run stops locust too.
    processes.start("locust", argv, {**env, "LOAD_CONFIG": str(config_path)}, log)
    locust = processes.started["locust"]
    next_sample = started
    while locust.poll() is None:
        now = time.monotonic()
        if now >= next_sample:
            samples.append(
                {
                    "t_s": round(now - started, 1),
                    "groups": {
                        name: vars(tree_memory(pid))
                        for name, pid in sample_pids.items()
                        if alive(pid)
                    },
                }
            )
            next_sample += SAMPLE_EVERY_S
        time.sleep(0.2)
    del processes.started["locust"]
    if not (csv_prefix.parent / f"{csv_prefix.name}_stats.csv").exists():
        raise RuntimeError(f"locust wrote no statistics (exit {locust.returncode}); see {log}")
    return samples


def main(argv: list[str] | None = None) -> int:
    args = _args(argv)
    mode = "soak" if args.soak else "load"
    run_time_s = args.warmup + args.soak if args.soak else args.duration
    rates = {group: getattr(args, f"rate_{group}") for group in DEFAULT_RATES_RPS}
    started_at = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    run_dir = args.run_dir or ROOT / "var" / "load" / started_at.replace(":", "")
    run_dir.mkdir(parents=True, exist_ok=True)
    env = _environment(args)
    processes = Processes()
    # SIGTERM (a CI timeout, kill) stops the children through the `finally` below.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    try:
        print(f"preparing {args.database_url} (logs in {run_dir})", flush=True)
        _prepare_database(args.database_url, fresh=not args.keep_data)
        if not args.keep_data:
            _empty_redis([args.broker_url, args.results_url, args.cache_url])
        _manage(env, "migrate", "--no-input", "-v", "0")
        _manage(env, "loadcatalog")
        _manage(env, "collectstatic", "--no-input", "-v", "0")
        seed = _seed(env, run_dir)
        print(
            f"plan {seed['plan_id']}: {seed['plan_candidates']} viable of "
            f"{seed['plan_evaluated']} builds, ranked in {seed['plan_rank_s']} s",
            flush=True,
        )
        port = args.port or _free_port()
        base_url = f"http://127.0.0.1:{port}"
        worker_log = run_dir / "worker.log"
        worker_pid = processes.start(
            "celery worker",
            [
                str(BIN / "celery"), "-A", "config", "worker", "--loglevel", "INFO",
                "--concurrency", str(args.celery_concurrency), "--hostname", "load@%h",
            ],
            {**env, "PROMETHEUS_MULTIPROC_DIR": str(_fresh_dir(run_dir / "metrics" / "worker"))},
            worker_log,
        )  # fmt: skip
        # The deployed configuration (config/gunicorn.py, as docker-compose runs it); the
        # command line overrides its address and number of workers.
        server_pid = processes.start(
            "gunicorn",
            [
                str(BIN / "gunicorn"), "-c", "config/gunicorn.py", "config.wsgi",
                "--bind", f"127.0.0.1:{port}", "--workers", str(args.workers),
            ],
            {**env, "PROMETHEUS_MULTIPROC_DIR": str(_fresh_dir(run_dir / "metrics" / "web"))},
            run_dir / "gunicorn.log",
        )  # fmt: skip
        _wait_ready(base_url, worker_log, processes)
        _check_pages(base_url, seed)
        hardware = _hardware(args)
        config_path = run_dir / "locust-config.json"
        config_path.write_text(json.dumps({"seed": seed, "rates_rps": rates}))
        users = sum(users_and_rate(rate)[0] for rate in rates.values())
        print(
            f"{mode}: {run_time_s:.0f} s at {sum(rates.values()):g} req/s ({users} users) "
            f"against {base_url}, {args.workers} gunicorn workers",
            flush=True,
        )
        samples = _run_locust(
            base_url=base_url,
            config_path=config_path,
            users=users,
            run_time_s=run_time_s,
            csv_prefix=run_dir / "locust",
            env=env,
            log=run_dir / "locust.log",
            processes=processes,
            sample_pids={"web": server_pid, "worker": worker_pid},
        )
        processes.check()
        simulations = _simulation_counts(args.database_url)
    finally:
        processes.stop()

    stats = results.read_stats(run_dir / "locust_stats.csv", rates)
    verdicts = results.verdicts([s for s in stats if s.name != "Aggregated"])
    memory_verdicts = results.memory_verdicts(samples, args.warmup) if args.soak else []
    report = {
        "mode": mode,
        "started_at": started_at,
        "duration_s": run_time_s,
        "warmup_s": args.warmup if args.soak else 0,
        "sample_every_s": SAMPLE_EVERY_S,
        "hardware": hardware,
        "gunicorn_workers": args.workers,
        "celery_concurrency": args.celery_concurrency,
        "settings": "config.settings.production",
        "throttle": THROTTLE_RATE,
        "rates_rps": rates,
        "plan": {k: seed[k] for k in ("plan_candidates", "plan_evaluated", "plan_rank_s")},
        "stats": results.as_dicts(stats),
        "verdicts": results.as_dicts(verdicts),
        "simulations": simulations,
        "memory_verdicts": results.as_dicts(memory_verdicts),
        "memory_samples": samples,
    }
    print(results.markdown(report))
    for path in results.write(report, args.out):
        print(f"written: {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}")
    passed = all(v.passed for v in (*verdicts, *memory_verdicts))
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
