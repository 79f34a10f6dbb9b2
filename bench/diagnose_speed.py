"""How fast the fault matcher reads a long kernel log against the shipped guide, beside a plain
loop over the same lines and patterns (each pattern searched in each line, no ranking), measured
in the same run with the ratio. Prints a table.

    .venv/bin/python bench/diagnose_speed.py

Pure matcher, no database: the guide's rows are read from catalog/data/faults.
"""

from __future__ import annotations

import os
import re
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")

import django

django.setup()

from planner.faults.matching import Rule, diagnose  # noqa: E402 (after django.setup)
from planner.faults.reference import read_guide  # noqa: E402

# A day of a busy node's kernel log: mostly noise, a few faults.
NOISE = "[ 8812.114211] IPv4: martian source 10.0.0.255 from 10.0.0.17, on dev ib0"
FAULTS = (
    "[ 9001.000001] NVRM: Xid (PCI:0000:3b:00): 79, pid='<unknown>', name=<unknown>, "
    "GPU has fallen off the bus.",
    "RuntimeError: CUDA error: an illegal memory access was encountered",
)
LINES = 100_000
RUNS = 5


def log_text() -> str:
    lines = [NOISE] * LINES
    for i, fault in enumerate(FAULTS):
        lines[(i + 1) * LINES // (len(FAULTS) + 1)] = fault
    return "\n".join(lines)


def plain_loop(text: str, patterns: list[re.Pattern[str]]) -> int:
    hits = 0
    for line in text.splitlines():
        for pattern in patterns:
            if pattern.search(line):
                hits += 1
    return hits


def best_of(function, *args) -> float:
    times = []
    for _ in range(RUNS):
        start = time.perf_counter()
        function(*args)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    rows = read_guide()
    rules = [
        Rule(
            row.key,
            tuple(str(row.values["patterns"]).split("\n")),
            tuple(int(c) for c in str(row.values["xid_codes"]).split()),
            int(row.values["weight"]),
        )
        for row in rows
    ]
    patterns = [re.compile(p) for rule in rules for p in rule.patterns if p]
    text = log_text()
    found = diagnose(text, rules)
    assert found.matches[0].key == "xid-79"
    matcher_s = best_of(diagnose, text, rules)
    loop_s = best_of(plain_loop, text, patterns)
    print(f"{LINES:,} log lines, {len(rules)} guide entries, {len(patterns)} patterns")
    print(f"{'what':<40}{'median s':>10}{'lines/s':>14}")
    print(
        f"{'diagnose (rank, evidence, Xid codes)':<40}{matcher_s:>10.3f}{LINES / matcher_s:>14,.0f}"
    )
    print(f"{'plain loop (search only)':<40}{loop_s:>10.3f}{LINES / loop_s:>14,.0f}")
    print(f"ratio diagnose / plain loop: {matcher_s / loop_s:.2f}")


if __name__ == "__main__":
    main()
