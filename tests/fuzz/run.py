"""`make fuzz`: schemathesis's command line over every operation of the API, in all four of its
phases (examples, coverage, fuzzing, stateful), against gunicorn on a loopback port and a
database of its own (SQLite in a temporary folder: the catalog, reference prices, the fault
guide, and a team whose admin's API token signs the requests).

    python -m tests.fuzz.run --max-time 120

The time budget is split between a run signed as the admin (every write allowed) and an
anonymous one. It exits with schemathesis's status: 0 when no check failed, so no 5xx, no status
the document leaves out, no body that breaks its schema. The cases run are printed at the end."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.processes import SERVICE_URL_VARIABLES, free_port, port_answers, wait_for

ROOT = Path(__file__).resolve().parents[2]
PHASES = "examples,coverage,fuzzing,stateful"
# Valid data may still be refused (the document cannot say which catalog slugs exist or which
# fields rule each other out; the API answers 400 naming the field), so that check is left out,
# as in tests/test_api_fuzz.py. So is its mirror, that every request off the document is
# refused: list filters read leniently as Django's do (an unknown ordering or a page that is not
# a number falls back to the default), and a button-like POST that takes no fields ignores an
# empty body of another type. What the fuzz holds the API to: no 5xx, every status documented,
# every body as its schema says.
EXCLUDED_CHECKS = "positive_data_acceptance,negative_data_rejection"
# The largest questions the document's examples ask (a serving plan searching 64 accelerators)
# take tens of seconds: more than schemathesis's 10 s default.
REQUEST_TIMEOUT_S = 60


def _environment(folder: Path) -> dict[str, str]:
    kept = {k: v for k, v in os.environ.items() if k not in SERVICE_URL_VARIABLES}
    return {
        **kept,
        "DJANGO_SETTINGS_MODULE": "config.settings.test",
        "DATABASE_URL": f"sqlite:///{folder / 'fuzz.sqlite3'}",
        "CELERY_BROKER_URL": "memory://",
        "PYTHONPATH": str(ROOT),
    }


SEED = """
import django
django.setup()
from django.core.management import call_command
from accounts.roles import Role
from accounts.services import team_get_or_create, token_create, user_create
for command in ("migrate", "loadcatalog", "loadprices", "loadfaults", "setuproles"):
    call_command(command, verbosity=0)
team = team_get_or_create(name="Fuzz")
admin = user_create(username="fuzz-admin", password="a-long-fuzz-password", role=Role.ADMIN,
                    team=team)
print(token_create(user=admin, name="fuzz")[1])
"""


def _seed(env: dict[str, str]) -> str:
    """Migrate and load the database; the admin's API key."""
    done = subprocess.run(
        [sys.executable, "-c", SEED], env=env, cwd=ROOT, capture_output=True, text=True
    )
    if done.returncode:
        sys.exit(f"seeding the fuzz database failed:\n{done.stderr}")
    return done.stdout.strip().splitlines()[-1]


def _schemathesis(url: str, *, max_time: int, headers: list[str], report: Path) -> tuple[int, int]:
    """One run; its exit status and the cases it sent (from its ndjson report)."""
    command = [
        str(Path(sys.executable).with_name("schemathesis")),
        "run",
        f"{url}/api/schema/?format=json",
        "--phases",
        PHASES,
        "--checks",
        "all",
        "--exclude-checks",
        EXCLUDED_CHECKS,
        "--max-time",
        str(max_time),
        "--request-timeout",
        str(REQUEST_TIMEOUT_S),
        "--max-response-time",
        str(REQUEST_TIMEOUT_S),
        "--workers",
        "1",
        "--suppress-health-check",
        "all",
        "--report",
        "ndjson",
        "--report-ndjson-path",
        str(report),
        *[arg for header in headers for arg in ("-H", header)],
    ]
    # In the report's folder: schemathesis leaves its .schemathesis/ cache where it runs.
    status = subprocess.run(command, cwd=report.parent).returncode
    return status, _cases(report)


def _cases(report: Path) -> int:
    """Test cases the report records (each a request and its checks)."""
    cases = 0
    if not report.exists():
        return 0
    for line in report.read_text().splitlines():
        event = json.loads(line)
        finished = event.get("ScenarioFinished")
        if finished:
            cases += len(finished.get("recorder", {}).get("cases", {}))
    return cases


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--max-time", type=int, default=600, help="seconds, for both runs")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="flopfit-fuzz-") as tmp:
        folder = Path(tmp)
        env = _environment(folder)
        key = _seed(env)
        port = free_port()
        server = subprocess.Popen(
            [
                str(Path(sys.executable).with_name("gunicorn")),
                "config.wsgi",
                "--bind",
                f"127.0.0.1:{port}",
                # One request at a time: SQLite takes one writer, and a locked database would
                # answer 500 for reasons of this harness, not of the API.
                "--workers",
                "1",
                "--timeout",
                str(REQUEST_TIMEOUT_S * 2),
                "--log-level",
                "warning",
                # What is fuzzed is the API: a query string past gunicorn's 4 KB request line
                # would be answered 414 by gunicorn before Django saw it (production keeps the
                # limit; the schema describes the application's answers).
                "--limit-request-line",
                "0",
            ],
            env=env,
            cwd=ROOT,
        )
        try:
            wait_for(lambda: port_answers(port), timeout=60, what="gunicorn answering")
            url = f"http://127.0.0.1:{port}"
            signed_in = max(1, options.max_time * 2 // 3)
            runs = [
                ("admin", signed_in, [f"Authorization: Token {key}"]),
                ("anonymous", max(1, options.max_time - signed_in), []),
            ]
            statuses, total = [], 0
            for who, seconds, headers in runs:
                report = folder / f"{who}.ndjson"
                status, cases = _schemathesis(url, max_time=seconds, headers=headers, report=report)
                print(f"schemathesis as {who}: {cases} cases, exit {status}")
                statuses.append(status)
                total += cases
            print(f"schemathesis: {total} cases over every operation ({PHASES})")
            return max(statuses)
        finally:
            server.terminate()
            server.wait(timeout=30)


if __name__ == "__main__":
    sys.exit(main())
