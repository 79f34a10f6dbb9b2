"""The side-by-side comparison of a plan's builds: one row per figure, a cell per build, the
best of each row marked."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _

from planner.engine.recommend import cost_tier
from planner.engine.scoring import DIMENSIONS
from planner.models import Plan
from planner.plans.figures import DIMENSION_LABELS, money
from planner.plans.serving import compare_lines as serving_lines
from planner.templatetags.band_tags import band_cell


def _compare_line(label, values, better=None, shown=None, tiers=None) -> dict[str, Any]:
    """One row of the comparison: a cell per build, the best marked where `better` says which
    way is better ("high" or "low") and the builds differ. With `tiers` (one per cell, lower
    first), only the cells of the lowest tier with a figure compete for best."""
    numbers = [v for v in values if isinstance(v, int | float)]
    tiers = tiers or [0] * len(values)
    numbered = [(v, t) for v, t in zip(values, tiers, strict=True) if isinstance(v, int | float)]
    top = min((t for _v, t in numbered), default=0)
    rivals = [v for v, t in numbered if t == top]
    best = None
    if better and len(numbers) > 1 and (len(set(numbers)) > 1 or len(rivals) < len(numbers)):
        best = max(rivals) if better == "high" else min(rivals)
    return {
        "label": label,
        "cells": [
            {"value": (shown or (lambda v: v))(v), "best": v is not None and v == best and t == top}
            for v, t in zip(values, tiers, strict=True)
        ],
        "numeric": bool(numbers),
    }


def _nested(rows: list[dict[str, Any]], path: tuple[str, ...]) -> list[Any]:
    """Each row's value at `path` (None where a step is missing)."""
    out = []
    for r in rows:
        value: Any = r
        for key in path:
            value = value.get(key) if isinstance(value, dict) else None
        out.append(value)
    return out


# The comparison's rows: label, how to read the figure from a row, which way is better.
def compare_rows(
    rows: list[dict[str, Any]], plan: Plan, serving: bool, display: str | None = None
) -> list[dict]:
    currency = plan.currency
    line = _compare_line

    def get(path):
        return _nested(rows, path)

    def cash(v):
        return money(v, currency, display)

    def measured_error(label, metric):
        """How far the engine's `metric` strayed from measurements, as a band per row."""
        band = [(r.get("uncertainty") or {}).get(metric) for r in rows]
        return line(label, band, shown=band_cell)

    lines = [
        line(_("Rank"), [r["rank"] for r in rows], "low"),
        line(_("Overall score (0-100)"), [r["overall"] for r in rows], "high"),
        *(
            line(f"{DIMENSION_LABELS[k]} (0-100)", [r["scores"][i]["score"] for r in rows], "high")
            for i, k in enumerate(DIMENSIONS)
        ),
        line(_("Accelerators"), [r["count"] for r in rows]),
        line(_("Servers"), [r["nodes"] for r in rows]),
    ]
    if serving:
        lines += [
            line(_("Serving capacity (requests/s)"), [r["capacity_rps"] for r in rows], "high"),
            *(line(*spec) for spec in serving_lines(rows)),
            measured_error(
                _("Measured error of decode figures (median / 90th percentile)"), "decode"
            ),
        ]
    else:
        lines += [
            line(_("Time to train (days)"), [r["days"] for r in rows], "low"),
            measured_error(
                _("Measured error of time and throughput (median / 90th percentile)"), "throughput"
            ),
            line(
                _("Throughput (tokens/s)"), get(("estimate", "throughput", "tokens_per_s")), "high"
            ),
            line(
                _("Model FLOPs utilisation, MFU (%)"),
                [None if v is None else 100 * v for v in get(("estimate", "throughput", "mfu"))],
                "high",
            ),
        ]
    lines += [
        line(_("Memory per device (GiB)"), get(("estimate", "memory", "per_device_gib"))),
        line(_("Memory capacity per device (GiB)"), get(("estimate", "memory", "capacity_gib"))),
        line(_("Bottleneck"), get(("estimate", "bottleneck"))),
        line(_("IT power (kW)"), get(("fit", "it_power_kw")), "low"),
        line(_("Facility power with PUE (kW)"), get(("fit", "facility_power_kw")), "low"),
        line(_("Racks needed"), [r["racks_needed"] for r in rows], "low"),
        line(_("Binding constraint"), [r["binding"] for r in rows]),
        line(
            _("Cost as ranked (TCO, else rent of the job)"),
            [r["cost_amount"] for r in rows],
            "low",
            cash,
            # Like with like, as the ranking: a TCO beats any rent, whatever the amounts.
            [cost_tier({"basis": r["cost_basis"]}) for r in rows],
        ),
        line(_("Capex"), [r["capex"] for r in rows], "low", cash),
        line(_("Energy per year"), [r["energy_per_year"] for r in rows], "low", cash),
        line(_("Total cost of ownership"), [r["tco"] for r in rows], "low", cash),
        line(_("Rent for the job"), [r["rent_job"] for r in rows], "low", cash),
        line(_("Cloud rent per year"), [r["rent_per_year"] for r in rows], None, cash),
        line(_("Buying beats renting after (months)"), [r["breakeven_months"] for r in rows]),
    ]
    return lines
