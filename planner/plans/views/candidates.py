"""One build of a plan: its estimate with the memory bar, its fit per rack group, its cost line
by line with each price's source, the five scores and why; links to simulate it; its purchase
list as a page to print and as CSV; and, from the plan page, a sweep simulation of the top
builds.

The build is named by its `id`, its place in the stored ranking, so a link stays the same
whatever the weights; the weights in the query only give its rank. Another team's plan is a
404, as on the plan pages."""

from __future__ import annotations

import io
from typing import Any

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.text import slugify
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST
from django_htmx.http import HttpResponseClientRedirect

from accounts.roles import Role, has_role
from planner.engine import RequestError
from planner.messages.render import error_line
from planner.models import Plan
from planner.plans.builds import (
    build_label,
    simulation_form_query,
    simulation_kind,
)
from planner.plans.figures import (
    BINDING_LABELS,
    build_names,
    candidate_row,
    output_len_of,
    plan_stack,
)
from planner.plans.forms.plans import SweepForm, WeightsForm
from planner.plans.purchases import (
    ORIGIN_LABELS,
    purchase_rows,
    purchase_total,
    write_purchase_csv,
)
from planner.plans.selectors import plan_candidate, plan_task
from planner.plans.services import plan_build_simulate, plan_sweep_start
from planner.plans.views.plans import visible_plan
from planner.simulations.services import QueueUnavailable
from planner.web.downloads import csv_download
from planner.web.memory_bar import memory_bar
from planner.web.roles import require_role


def _visible_build(request: HttpRequest, pk: int, cid: int) -> tuple[Plan, dict[str, Any]]:
    """The plan and its build `cid`, ranked by the weights in the query; 404 for either."""
    plan = visible_plan(request, pk)
    return plan, _candidate(request, plan, cid)


def _candidate(request: HttpRequest, plan: Plan, candidate_id: int) -> dict[str, Any]:
    weights_form = WeightsForm(request.GET, plan=plan)
    candidate = plan_candidate(
        plan=plan,
        candidate_id=candidate_id,
        weights=weights_form.weights(),
        objective=weights_form.objective(),
    )
    if candidate is None:
        raise Http404
    return candidate


def _fit_rows(fit: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        {**group, "binding": BINDING_LABELS.get(group.get("binding"), group.get("binding"))}
        for group in fit.get("groups") or []
    ]


def _rent(cost: dict[str, Any]) -> dict[str, Any] | None:
    line = cost.get("rent_line")
    if not line or line.get("origin") in (None, "missing"):
        return None
    return {**line, "origin_label": ORIGIN_LABELS.get(line["origin"], line["origin"])}


def _page_context(request: HttpRequest, plan: Plan, candidate: dict[str, Any]) -> dict[str, Any]:
    names = build_names(plan)
    row = candidate_row(
        candidate, names=names, output_len=output_len_of(plan), stack=plan_stack(plan)
    )
    kind = simulation_kind(plan)
    rows = purchase_rows(plan, candidate, names)
    return {
        "plan": plan,
        "row": row,
        "label": build_label(candidate, names),
        "serving": plan_task(plan) == "inference",
        "slo": {"ttft_ms": plan.question.get("ttft_ms"), "tpot_ms": plan.question.get("tpot_ms")},
        "bar": memory_bar(row["estimate"]["memory"]),
        "fit_rows": _fit_rows(row["fit"]),
        "cost": {**candidate["cost"], "notes": row["cost_notes"]},
        "rent": _rent(candidate["cost"]),
        "purchase_rows": rows,
        "purchase_total": purchase_total(rows),
        "simulate_url": reverse("planner:simulation_create", args=[kind])
        + "?"
        + simulation_form_query(plan, candidate),
        "simulation_kind": kind,
        "can_simulate": has_role(request.user, Role.PLANNER),
        "can_commit": plan.site_id is not None and has_role(request.user, Role.PLANNER),
        "plan_query": request.GET.urlencode(),
    }


def _build_page(request: HttpRequest, pk: int, cid: int, template: str) -> HttpResponse:
    plan, candidate = _visible_build(request, pk, cid)
    return render(request, template, _page_context(request, plan, candidate))


@require_GET
def candidate_detail(request: HttpRequest, pk: int, cid: int) -> HttpResponse:
    return _build_page(request, pk, cid, "planner/plans/candidate_detail.html")


@require_GET
def candidate_purchase(request: HttpRequest, pk: int, cid: int) -> HttpResponse:
    """The purchase list as a page to print (or save as PDF) for procurement."""
    return _build_page(request, pk, cid, "planner/plans/candidate_purchase.html")


@require_GET
def candidate_purchase_csv(request: HttpRequest, pk: int, cid: int) -> HttpResponse:
    plan, candidate = _visible_build(request, pk, cid)
    out = io.StringIO()
    write_purchase_csv(out, purchase_rows(plan, candidate, build_names(plan)))
    name = f"{slugify(plan.name) or 'plan'}-{plan.pk}-build-{cid}-purchase.csv"
    return csv_download(out.getvalue(), name)


def _go(request: HttpRequest, url: str) -> HttpResponse:
    """A redirect; over htmx, one the browser follows as a whole page."""
    if request.htmx:
        return HttpResponseClientRedirect(url)
    return redirect(url)


@require_POST
def candidate_simulate(request: HttpRequest, pk: int, cid: int) -> HttpResponse:
    """Start the simulation of one build on the layout the plan ranked it on."""
    require_role(request.user, Role.PLANNER)
    plan = visible_plan(request, pk)
    try:
        simulation, queued = plan_build_simulate(plan=plan, candidate_id=cid, user=request.user)
    except RequestError as exc:  # no such build: back to the plan
        messages.error(request, error_line(exc))
        return _go(request, plan.get_absolute_url())
    except QueueUnavailable:
        messages.error(request, QueueUnavailable.reason)
        return _go(request, reverse("planner:plan_candidate", args=[plan.pk, cid]))
    if queued:
        messages.success(request, _("The simulation of this build was queued."))
    else:
        messages.info(request, _("This build was already simulated: here is that run."))
    return _go(request, simulation.get_absolute_url())


@require_POST
def plan_sweep(request: HttpRequest, pk: int) -> HttpResponse:
    """Start a sweep simulation of the plan's top N builds under the weights on the page."""
    require_role(request.user)
    plan = visible_plan(request, pk)
    form = SweepForm(request.POST, plan=plan)
    back = plan.get_absolute_url()
    if not form.is_valid():
        for errors in form.errors.values():
            for error in errors:
                messages.error(request, error)
        return _go(request, back)
    try:
        simulation, queued = plan_sweep_start(
            plan=plan,
            top=form.cleaned_data["top"],
            weights=form.weights(),
            objective=form.objective(),
            user=request.user,
        )
    except RequestError as exc:
        messages.error(request, error_line(exc))
        return _go(request, back)
    except QueueUnavailable:
        messages.error(request, QueueUnavailable.reason)
        return _go(request, back)
    if queued:
        messages.success(request, _("The sweep was queued."))
    else:
        messages.info(request, _("These builds were already swept: here is that run."))
    return _go(request, simulation.get_absolute_url())
