"""What a serving plan's page shows of its check by simulation (planner.engine.simulate.plan_check):
read from the sweep the check ran and the plan's stored ranking."""

from __future__ import annotations

from typing import Any

from planner.engine.simulate.plan_check import CHECK_ATTAINMENT, CHECK_BUILDS, CHECK_REQUESTS
from planner.messages.answers import localise_rejected
from planner.models import Plan
from planner.plans.selectors import plan_serving_check
from planner.plans.serving import serving_figures


def _percentiles(figures: dict[str, Any] | None) -> dict[str, Any]:
    figures = figures or {}
    return {"p50": figures.get("p50"), "p99": figures.get("p99")}


def serving_check_context(plan: Plan, names: dict[str, dict[str, str]]) -> dict[str, Any]:
    """What the page's serving-check section shows: the run's progress while it runs; then
    each build checked with its analytic p99s at the plan's rate beside the simulated
    percentiles and attainment, and the verdict."""
    check = plan_serving_check(plan=plan)
    simulation = check.simulation
    rows = []
    for row in check.rows:
        candidate, simulated = row["candidate"], row["simulated"]
        analytic = serving_figures(candidate["estimate"]) or {}
        failure = row["failure"]
        rows.append(
            {
                "accelerator_name": names["accelerator"].get(
                    candidate["accelerator"], candidate["accelerator"]
                ),
                "server_name": names["server"].get(candidate["server"], candidate["server"]),
                "count": candidate["count"],
                "analytic_ttft_ms": analytic.get("ttft_ms"),
                "analytic_tpot_ms": analytic.get("tpot_ms"),
                "ttft_ms": _percentiles(simulated.get("ttft_ms")),
                "tpot_ms": _percentiles(simulated.get("tpot_ms")),
                "attainment_percent": 100 * ((simulated.get("slo") or {}).get("attainment") or 0),
                "reason": None
                if failure is None
                else localise_rejected({"failures": [failure]})["reason"],
            }
        )
    return {
        "plan": plan,
        "check": check,
        "check_rows": rows,
        "check_percent": 100 * simulation.overall_progress if simulation else 0,
        "check_builds": CHECK_BUILDS,
        "check_requests": CHECK_REQUESTS,
        "check_target_percent": 100 * CHECK_ATTAINMENT,
    }
