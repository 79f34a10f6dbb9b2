"""The load mix and its targets, shared by the runner (bench/load/run.py) and the locust users
(bench/load/locustfile.py)."""

from __future__ import annotations

import math
from dataclasses import dataclass

# Requests/s per endpoint group. The three page groups add up to the 50 requests/s that the
# page target names; estimates at 10/s; one simulation start a second.
DEFAULT_RATES_RPS = {
    "catalog page": 20.0,
    "catalog API": 10.0,
    "plan page": 20.0,
    "estimate": 10.0,
    "simulation start": 1.0,
}
PAGE_GROUPS = ("catalog page", "catalog API", "plan page")


@dataclass(frozen=True)
class Target:
    groups: tuple[str, ...]
    p95_ms: float
    max_error_rate: float | None  # None: the target says nothing of errors
    label: str


# The targets on a 2-core machine: catalog and cached plan pages p95 under 150 ms at 50
# requests/s with 0 errors; estimate p95 under 250 ms.
TARGETS = (
    Target(PAGE_GROUPS, 150.0, 0.0, "catalog and plan pages: p95 < 150 ms, 0 errors"),
    Target(("estimate",), 250.0, None, "estimate: p95 < 250 ms"),
)
# A group counts as run at its rate when locust achieved this share of it: a user's schedule
# only slips (when a response takes longer than the period), never catches up, so a shortfall
# means the server or the load generator could not keep up.
RATE_ACHIEVED_SHARE = 0.95


def users_and_rate(rate_rps: float) -> tuple[int, float]:
    """(users, requests/s per user) for a group: enough users that none sends more than one
    request a second; no users for a group at rate 0."""
    if rate_rps <= 0:
        return 0, 0.0
    users = math.ceil(rate_rps)
    return users, rate_rps / users
