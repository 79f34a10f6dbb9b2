"""The simulation pages: the list, a form per kind, and one page per simulation that polls its
progress partial while a worker runs it and shows the result with charts once it is done.

Every write goes through `planner.simulations` (the API and `manage.py simulate` call the same
services). Anyone signed in may read; planners and admins may start and cancel (403 for the
others)."""

from __future__ import annotations

import json
from typing import Any

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django.views.decorators.vary import vary_on_headers

from accounts.roles import Role, has_role
from planner.choices import SimulationKind, SimulationStatus
from planner.engine import RequestError
from planner.models import Simulation
from planner.simulations.filtersets import SimulationFilterSet
from planner.simulations.forms import FORMS
from planner.simulations.selectors import simulation_visible_to
from planner.simulations.services import QueueUnavailable, simulation_cancel, simulation_start
from planner.web.editing import apply_engine_error
from planner.web.htmx import partial_wanted
from planner.web.lists import render_filtered_list
from planner.web.roles import require_role

SECONDS_PER_HOUR = 3600
SECONDS_PER_DAY = 86_400

# Time lost by cause, as the training engine names the keys of `lost_s`.
LOST_CAUSES = {
    "checkpointing": gettext_lazy("Writing checkpoints"),
    "lost_work": gettext_lazy("Work redone since the last checkpoint"),
    "detection_restart": gettext_lazy("Detecting failures and restarting"),
    "throttling": gettext_lazy("Thermal throttling"),
    "stragglers": gettext_lazy("Stragglers"),
}
LATENCIES = {
    "ttft_ms": gettext_lazy("Time to first token, TTFT"),
    "tpot_ms": gettext_lazy("Time per output token, TPOT"),
    "e2e_ms": gettext_lazy("End to end"),
}
PERCENTILES = ("p50", "p90", "p99")


# --- results as the page shows them ----------------------------------------------------------


def _training_context(result: dict[str, Any]) -> dict[str, Any]:
    completion_s = result["completion_s"]["mean"] or 0.0
    return {
        "percentile_rows": [
            {
                "label": name,
                "days": result["completion_days"][name],
                "hours": result["completion_s"][name] / SECONDS_PER_HOUR,
            }
            for name in (*PERCENTILES, "mean")
        ],
        "lost_rows": [
            {
                "label": LOST_CAUSES.get(cause, cause),
                "hours": seconds / SECONDS_PER_HOUR,
                "share": 100 * seconds / completion_s if completion_s > 0 else 0.0,
            }
            for cause, seconds in result["lost_s"].items()
        ],
        "goodput_percent": 100 * result["goodput"],
        "work_days": result["work_s"] / SECONDS_PER_DAY,
        "mtbf_hours": None if result["mtbf_s"] is None else result["mtbf_s"] / SECONDS_PER_HOUR,
        "interval_minutes": {
            "used": _minutes(result["checkpoint_interval_s"]),
            "young_daly": _minutes(result["young_daly_interval_s"]),
            "best": _minutes(result["best_interval_s"]),
        },
        "best_completion_days": None
        if result["best_completion_s"] is None
        else result["best_completion_s"] / SECONDS_PER_DAY,
    }


def _minutes(seconds: float | None) -> float | None:
    return None if seconds is None else seconds / 60


def _serving_context(result: dict[str, Any]) -> dict[str, Any]:
    slo = result["slo"]
    search = result.get("replica_search")
    return {
        "latency_rows": [
            {"label": label, **{name: result[key][name] for name in (*PERCENTILES, "mean")}}
            for key, label in LATENCIES.items()
        ],
        # Without a target every request "meets" it: no attainment worth showing.
        "has_slo": slo["ttft_ms"] is not None or slo["tpot_ms"] is not None,
        "attainment_percent": _percent(slo["attainment"]),
        "ttft_attainment_percent": _percent(slo.get("ttft_attainment")),
        "tpot_attainment_percent": _percent(slo.get("tpot_attainment")),
        "search": search,
        "search_rows": [
            {"replicas": row["replicas"], "attainment_percent": 100 * row["attainment"]}
            for row in (search or {}).get("tried", [])
        ],
    }


def _sweep_context(inputs: dict[str, Any], result: dict[str, Any]) -> dict[str, Any]:
    """A sweep's comparison: one row per build, linked to its own simulation."""
    parts = result.get("parts") or []
    rows = []
    for i, row in enumerate(result.get("candidates") or []):
        slo = row.get("slo") or {}
        rows.append(
            {
                **row,
                "part": parts[i] if i < len(parts) else None,
                "goodput_percent": _percent(row.get("goodput")),
                "attainment_percent": _percent(slo.get("attainment")),
            }
        )
    return {
        "sweep_kind": (inputs.get("simulation") or {}).get("kind", "training"),
        "sweep_rows": rows,
    }


def _percent(fraction: float | None) -> float | None:
    return None if fraction is None else 100 * fraction


def _chart_labels() -> dict[str, str]:
    """The charts' titles and axes, translated here so the script holds no text of its own."""
    return {
        "histogram": _("Completion time over the trials"),
        "completionDays": _("Completion time (days)"),
        "trials": _("Trials"),
        "interval": _("Mean completion by checkpoint interval"),
        "intervalMinutes": _("Checkpoint interval (minutes)"),
        "meanCompletionDays": _("Mean completion (days)"),
        "youngDaly": _("Young/Daly interval"),
        "best": _("Best interval simulated"),
        "latency": _("Latency percentiles"),
        "latencyMs": _("Latency (ms, log scale)"),
        "ttft": _("TTFT"),
        "tpot": _("TPOT"),
        "e2e": _("End to end"),
        "queue": _("Requests over time"),
        "timeS": _("Time (s)"),
        "requests": _("Requests"),
        "waiting": _("Waiting"),
        "running": _("Running"),
        "replicaSearch": _("SLO attainment by replicas"),
        "replicas": _("Replicas"),
        "attainmentPercent": _("SLO attainment (%)"),
    }


def _question_summary(inputs: Any) -> dict[str, Any]:
    """Model, accelerator and devices of a stored question: a slug as it is, an inline shape
    (an API caller may send one) as "inline"."""
    estimate = inputs.get("estimate") if isinstance(inputs, dict) else None
    estimate = estimate if isinstance(estimate, dict) else {}

    def name(value: Any) -> str:
        if isinstance(value, str):
            return value
        return _("inline") if value else "—"

    return {
        "model": name(estimate.get("model")),
        "accelerator": name(estimate.get("accelerator")),
        "count": estimate.get("count"),
    }


def _detail_context(request: HttpRequest, simulation: Simulation) -> dict[str, Any]:
    context: dict[str, Any] = {
        "simulation": simulation,
        "question": _question_summary(simulation.inputs),
        "inputs_json": json.dumps(simulation.inputs, indent=2, sort_keys=True),
        "percent": 100 * simulation.progress,
        "elapsed_s": simulation.elapsed_s,
        "can_cancel": has_role(request.user, Role.PLANNER) and not simulation.finished,
        "result": simulation.result,
    }
    result = simulation.result
    if simulation.status == SimulationStatus.SUCCEEDED and result:
        context["chart_labels"] = _chart_labels()
        if simulation.kind == SimulationKind.SWEEP:
            context.update(_sweep_context(simulation.inputs, result))
        elif simulation.kind == SimulationKind.TRAINING:
            context.update(_training_context(result))
        else:
            context.update(_serving_context(result))
    return context


# --- pages -----------------------------------------------------------------------------------


@require_GET
@vary_on_headers("HX-Request")
def simulation_list(request: HttpRequest) -> HttpResponse:
    return render_filtered_list(
        request,
        "planner/simulations/simulation_list.html",
        SimulationFilterSet(request.GET or None, queryset=simulation_visible_to(request.user)),
        row=lambda simulation: {
            "simulation": simulation,
            "percent": 100 * simulation.progress,
            **_question_summary(simulation.inputs),
        },
        can_start=has_role(request.user, Role.PLANNER),
    )


@require_http_methods(["GET", "POST"])
def simulation_create(request: HttpRequest, kind: str) -> HttpResponse:
    form_class = FORMS.get(kind)
    if form_class is None:
        raise Http404
    require_role(request.user)
    if request.method == "POST":
        form = form_class(request.POST)
    else:
        form = form_class(initial=form_class.initial_from(request.GET))
    status = 200
    if request.method == "POST" and form.is_valid():
        try:
            simulation, queued = simulation_start(data=form.question(), user=request.user)
        except RequestError as exc:
            apply_engine_error(form, exc)
        except QueueUnavailable:
            form.add_error(None, QueueUnavailable.reason)
            status = 503
        else:
            if queued:
                messages.success(request, _("The simulation was queued."))
            else:
                messages.info(request, _("This question was already asked: here is its run."))
            return redirect(simulation)
    return render(
        request,
        "planner/simulations/simulation_form.html",
        {"form": form, "kind": SimulationKind(kind)},
        status=status,
    )


@never_cache  # polled every second: always the row as it is now
@require_GET
@vary_on_headers("HX-Request")
def simulation_detail(request: HttpRequest, pk: int) -> HttpResponse:
    simulation = get_object_or_404(simulation_visible_to(request.user), pk=pk)
    context = _detail_context(request, simulation)
    template = "planner/simulations/simulation_detail.html"
    if partial_wanted(request):
        # The poll: the progress partial while it runs; once finished, the same partial ends
        # the polling and carries the outcome (and the status) as out-of-band swaps.
        template += "#progress"
        context["polled"] = True
    return render(request, template, context)


@require_POST
def simulation_cancel_view(request: HttpRequest, pk: int) -> HttpResponse:
    require_role(request.user)
    simulation = get_object_or_404(simulation_visible_to(request.user), pk=pk)
    cancelled = simulation_cancel(simulation=simulation)
    if partial_wanted(request):
        # The status swapped in says what happened; no message waits for the next page.
        context = {**_detail_context(request, simulation), "polled": True}
        return render(request, "planner/simulations/simulation_detail.html#progress", context)
    if cancelled:
        messages.success(request, _("The simulation was cancelled."))
    else:
        messages.info(request, _("The simulation had already finished."))
    return redirect(simulation)
