"""The plan form, and one page per plan with its ranking re-ordered by five weight sliders, its
charts and a comparison of 2-4 builds.

Plans are written by `planner.plans.services.plan_create` (the API and `manage.py recommend`
call the same service) and re-ordered by `planner.plans.selectors.plan_ranking`. Anyone signed
in reads their team's plans; planners and admins create them; another team's are a 404."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from django.contrib import messages
from django.core.cache import cache
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.utils.safestring import mark_safe
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods
from django.views.decorators.vary import vary_on_headers

from accounts.roles import Role, has_any_role, has_role
from catalog.context_processors import display_currency
from planner.engine import RequestError
from planner.messages.answers import plan_why_none
from planner.messages.render import render as render_message
from planner.models import Plan
from planner.plans.builds import SWEEP_MIN
from planner.plans.comparison import compare_rows
from planner.plans.figures import (
    TASK_LABELS,
    build_names,
    candidate_row,
    chart_data,
    chart_labels,
    output_len_of,
    plan_stack,
    question_rows,
    rejected_rows,
    weights_query,
)
from planner.plans.forms.plans import PlanForm, SweepForm, WeightsForm
from planner.plans.selectors import (
    plan_serving_check,
    plan_task,
    plan_visible_to,
    plan_with_ranking,
    ranked_candidates,
)
from planner.plans.services import (
    plan_create,
)
from planner.plans.serving_check import serving_check_context
from planner.racks.selectors import plan_commitments, site_changed_after
from planner.web.editing import apply_engine_error
from planner.web.htmx import partial_wanted
from planner.web.lists import list_page, render_list
from planner.web.roles import PLAN_MAKERS, writer_team

PAGE_SIZE = 25


def plan_racks_context(request: HttpRequest, plan: Plan) -> dict[str, Any]:
    """What the plan page shows of its site: the racks it holds, whether the site changed
    since the ranking, and which buttons the reader may press."""
    ranked_at = plan.ranked_at or plan.created_at
    return {
        "commitments": plan_commitments(plan=plan),
        "site_changed": plan.site is not None
        and site_changed_after(site=plan.site, moment=ranked_at, except_plan_id=plan.pk),
        "can_commit": plan.site is not None and has_role(request.user, Role.PLANNER),
        "can_rerank": has_any_role(request.user, PLAN_MAKERS),
    }


COMPARE_MIN, COMPARE_MAX = 2, 4


def visible_plan(request: HttpRequest, pk: int) -> Plan:
    plan = plan_with_ranking(
        plans=plan_visible_to(request.user).select_related("site", "workload", "created_by"),
        pk=pk,
    )
    if plan is None:
        raise Http404
    return plan


# --- figures as the pages show them ----------------------------------------------------------


def _with_names(first: Any, names: dict[str, dict[str, str]]) -> Any:
    """Why the first build is first, naming its card and server as the catalog does (the
    engine names them by slug)."""
    if not isinstance(first, dict) or "params" not in first:
        return first
    params = dict(first["params"])
    for kind in ("accelerator", "server"):
        if isinstance(params.get(kind), str):
            params[kind] = names[kind].get(params[kind], params[kind])
    return {"code": first["code"], "params": params}


def ranking_context(request: HttpRequest, plan: Plan) -> dict[str, Any]:
    weights_form = WeightsForm(request.GET, plan=plan)
    weights, objective = weights_form.weights(), weights_form.objective()
    ordered = ranked_candidates(plan=plan, weights=weights, objective=objective)
    candidates = ordered.candidates
    names = build_names(plan)
    output_len = output_len_of(plan)
    return {
        "plan": plan,
        "weights_form": weights_form,
        "weights": weights,
        "weights_query": weights_query(weights, objective),
        "candidates": candidates,
        "objective": ordered.objective,
        "why_first_text": render_message(_with_names(ordered.first, names))
        if ordered.first
        else "",
        "names": names,
        "output_len": output_len,
        "serving": plan_task(plan) == "inference",
    }


# --- plans -----------------------------------------------------------------------------------


@require_GET
@vary_on_headers("HX-Request")
def plan_list(request: HttpRequest) -> HttpResponse:
    plans = plan_visible_to(request.user).select_related("site", "workload", "created_by")
    page, query = list_page(request, plans)
    rows = []
    for plan in page:
        ranking = plan.ranking or {}
        best = (ranking.get("candidates") or [None])[0]
        rows.append(
            {
                "plan": plan,
                "task": TASK_LABELS.get(plan_task(plan), plan_task(plan)),
                "viable": len(ranking.get("candidates", [])),
                "evaluated": ranking.get("evaluated", 0),
                "best": best,
            }
        )
    return render_list(
        request,
        "planner/plans/plan_list.html",
        {
            "page": page,
            "query": query,
            "rows": rows,
            "can_create": has_any_role(request.user, PLAN_MAKERS),
        },
    )


@require_http_methods(["GET", "POST"])
def plan_create_view(request: HttpRequest) -> HttpResponse:
    team = writer_team(request.user, PLAN_MAKERS)
    if request.method == "POST":
        form = PlanForm(request.POST, user=request.user, team=team)
    else:
        form = PlanForm(
            user=request.user, team=team, initial={"workload": request.GET.get("workload")}
        )
    if request.method == "POST" and form.is_valid():
        try:
            plan = plan_create(
                data=form.question(),
                user=request.user,
                team=team,
                site=form.cleaned_data["site"],
                workload=form.cleaned_data["workload"],
            )
        except RequestError as exc:
            apply_engine_error(form, exc)
        else:
            messages.success(request, _("The plan was ranked."))
            return redirect(plan)
    return render(
        request,
        "planner/plans/plan_form.html",
        {"form": form, "has_workloads": form.fields["workload"].queryset.exists()},
    )


# The ranking and rejected-builds sections of a plan page hold nothing personal and a plan's
# ranking never changes once saved, so their HTML is kept in the shared cache under an exact key
# (plan, its version, language, weights, page). The expiry only bounds how long a catalog card
# renamed since keeps its old name there.
FRAGMENT_CACHE_S = 600


def _fragment_key(name: str, plan: Plan, *parts: str) -> str:
    raw = "|".join([name, str(plan.pk), plan.updated_at.isoformat(), get_language() or "", *parts])
    return f"plan-page:{hashlib.sha256(raw.encode()).hexdigest()}"


def _plan_page_context(request: HttpRequest, plan: Plan) -> dict[str, Any]:
    """Everything the page's ranking and rejected sections show (the costly part)."""
    context = ranking_context(request, plan)
    candidates, names = context["candidates"], context["names"]
    page = Paginator(candidates, PAGE_SIZE).get_page(request.GET.get("page"))
    charts = chart_data(plan, candidates, names=names, output_len=context["output_len"])
    stack = plan_stack(plan)
    rows = [
        candidate_row(c, names=names, output_len=context["output_len"], stack=stack) for c in page
    ]
    context.update(
        {
            "page": page,
            "query": context["weights_query"],
            "rows": rows,
            "has_layout": any(r["serving"] for r in rows),
            "target_rps": plan.question.get("target_rps"),
            "rejected": rejected_rows(
                plan, names, list(plan_serving_check(plan=plan).failed.values())
            ),
            "why_none": plan_why_none(plan.ranking),
            "charts": charts,
            "chart_labels": chart_labels(plan, charts["metric"], charts["serving"]),
            "compare_range": (COMPARE_MIN, COMPARE_MAX),
        }
    )
    return context


@require_GET
@vary_on_headers("HX-Request")
def plan_detail(request: HttpRequest, pk: int) -> HttpResponse:
    plan = visible_plan(request, pk)
    ranking = plan.ranking or {}
    weights_form = WeightsForm(request.GET, plan=plan)
    viable = len(ranking.get("candidates", []))
    page_number = Paginator(range(viable), PAGE_SIZE).get_page(request.GET.get("page")).number
    results_key = _fragment_key(
        "results",
        plan,
        weights_query(weights_form.weights(), weights_form.objective()),
        # Amounts show in the visitor's display currency.
        display_currency(request),
        str(page_number),
        "invalid" if weights_form.errors else "",
    )
    check = plan_serving_check(plan=plan)
    results_key = f"{results_key}:{check.key}"
    rejected_key = _fragment_key("rejected", plan, check.key)
    template = "planner/plans/plan_detail.html"
    serving = plan_task(plan) == "inference"
    partial = partial_wanted(request)
    fragments = cache.get_many([results_key] if partial else [results_key, rejected_key])
    results_html, rejected_html = fragments.get(results_key), fragments.get(rejected_key)
    if results_html is None or (rejected_html is None and not partial):
        context = _plan_page_context(request, plan)
        if results_html is None:
            results_html = render_to_string(f"{template}#results", context, request)
            cache.set(results_key, str(results_html), FRAGMENT_CACHE_S)
        if rejected_html is None and not partial:
            rejected_html = render_to_string(f"{template}#rejected", context, request)
            cache.set(rejected_key, str(rejected_html), FRAGMENT_CACHE_S)
    # Both were rendered here from our own templates, with autoescaping, before being cached.
    if partial:
        return HttpResponse(mark_safe(results_html))
    context = {
        "plan": plan,
        "weights_form": weights_form,
        "viable_count": viable - len(check.failed),
        "rejected_count": len(ranking.get("rejected", [])) + len(check.failed),
        "evaluated": ranking.get("evaluated", 0),
        "question_rows": question_rows(plan),
        "question_json": json.dumps(plan.question, indent=2, sort_keys=True),
        "results_html": mark_safe(results_html),
        "can_sweep": viable >= SWEEP_MIN and has_role(request.user, Role.PLANNER),
        "sweep_form": SweepForm(plan=plan),
        "order_objective": weights_form.objective(),
        "serving": serving,
        "rejected_html": mark_safe(rejected_html),
        **plan_racks_context(request, plan),
        "can_check": serving and viable >= SWEEP_MIN and has_role(request.user, Role.PLANNER),
        **serving_check_context(plan, build_names(plan)),
    }
    return render(request, template, context)


@require_GET
def plan_compare(request: HttpRequest, pk: int) -> HttpResponse:
    plan = visible_plan(request, pk)
    context = ranking_context(request, plan)
    wanted = []
    for value in request.GET.getlist("c"):
        if value.isdigit() and int(value) not in wanted:
            wanted.append(int(value))
    by_id = {c["id"]: c for c in context["candidates"]}
    chosen = [by_id[i] for i in wanted if i in by_id]
    error = None
    if not COMPARE_MIN <= len(chosen) <= COMPARE_MAX:
        error = _("Pick between %(low)d and %(high)d builds to compare.") % {
            "low": COMPARE_MIN,
            "high": COMPARE_MAX,
        }
        chosen = []
    chosen.sort(key=lambda c: c["rank"])
    stack = plan_stack(plan)
    rows = [
        candidate_row(c, names=context["names"], output_len=context["output_len"], stack=stack)
        for c in chosen
    ]
    context.update(
        {
            "rows": rows,
            "lines": compare_rows(rows, plan, context["serving"], display_currency(request))
            if rows
            else [],
            "error": error,
        }
    )
    return render(request, "planner/plans/plan_compare.html", context, status=400 if error else 200)
