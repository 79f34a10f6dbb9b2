"""The plan pages: workloads (list, create, edit, copy), the plan form, and one page per plan
with its ranking re-ordered by five weight sliders, its charts, a comparison of 2-4 builds,
CSV and JSON exports and a printable report.

Plans are written by `planner.plans.plan_create` (the API and `manage.py recommend` call the
same service) and re-ordered by `plan_ranking`. Anyone signed in reads their team's plans and
workloads; planners and admins create and edit them (403 for the others); another team's are
a 404."""

from __future__ import annotations

import csv
import hashlib
import json
from typing import Any

from django.contrib import messages
from django.core.cache import cache
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.utils.http import content_disposition_header
from django.utils.safestring import mark_safe
from django.utils.text import slugify
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django.views.decorators.vary import vary_on_headers

from accounts.roles import Role, has_role
from accounts.services import user_team
from catalog.models import ModelArchitecture
from planner.engine import RequestError
from planner.engine.scoring import DIMENSIONS
from planner.models import Plan, Workload
from planner.plan_figures import (
    CSV_COLUMNS,
    TASK_LABELS,
    _chart_data,
    _chart_labels,
    _compare_rows,
    _names,
    _output_len,
    _rejected_rows,
    _row,
    _weights_query,
    _workload_summary,
    capacity_rps,
    question_rows,
)
from planner.plan_forms import (
    DIMENSION_LABELS,
    WORKLOAD_FORMS,
    PlanForm,
    WeightsForm,
    plan_task,
    ranked_candidates,
    workload_form_class,
)
from planner.plans import plan_create
from planner.selectors import plan_visible_to, plan_with_ranking, workload_visible_to
from planner.web import partial_wanted, require_role
from planner.workloads import NameTaken, workload_copy, workload_create, workload_update

PAGE_SIZE = 25
LIST_PAGE_SIZE = 50
COMPARE_MIN, COMPARE_MAX = 2, 4
REPORT_TOP = 10  # builds in the printable report


def _writer_team(user):
    """The team a planner writes for; an account outside every team cannot own plans."""
    require_role(user)
    team = user_team(user)
    if team is None:
        raise PermissionDenied(_("Your account belongs to no team."))
    return team


def _visible_plan(request: HttpRequest, pk: int) -> Plan:
    plan = plan_with_ranking(
        plans=plan_visible_to(request.user).select_related("site", "workload", "created_by"),
        pk=pk,
    )
    if plan is None:
        raise Http404
    return plan


# --- figures as the pages show them ----------------------------------------------------------


def _ranking_context(request: HttpRequest, plan: Plan) -> dict[str, Any]:
    weights_form = WeightsForm(request.GET, plan=plan)
    weights = weights_form.weights()
    candidates = ranked_candidates(plan=plan, weights=weights)
    names = _names(plan)
    output_len = _output_len(plan)
    return {
        "plan": plan,
        "weights_form": weights_form,
        "weights": weights,
        "weights_query": _weights_query(weights),
        "candidates": candidates,
        "names": names,
        "output_len": output_len,
        "serving": plan_task(plan) == "inference",
    }


# --- workloads -------------------------------------------------------------------------------


@require_GET
def workload_list(request: HttpRequest) -> HttpResponse:
    workloads = workload_visible_to(request.user).order_by("name")
    page = Paginator(workloads, LIST_PAGE_SIZE).get_page(request.GET.get("page"))
    models = dict(ModelArchitecture.objects.values_list("slug", "name"))
    return render(
        request,
        "planner/workload_list.html",
        {
            "page": page,
            "query": "",
            "rows": [_workload_summary(w, models) for w in page],
            "can_write": has_role(request.user, Role.PLANNER),
            "kinds": [(kind, form.KIND_LABEL) for kind, form in WORKLOAD_FORMS.items()],
        },
    )


def _save_workload(form, write) -> Workload | None:
    try:
        return write()
    except NameTaken:
        form.add_error("name", _("Your team already has a workload of this name."))
    return None


@require_http_methods(["GET", "POST"])
def workload_create_view(request: HttpRequest, kind: str) -> HttpResponse:
    form_class = WORKLOAD_FORMS.get(kind)
    if form_class is None:
        raise Http404
    team = _writer_team(request.user)
    form = form_class(request.POST if request.method == "POST" else None, team=team)
    if request.method == "POST" and form.is_valid():
        workload = _save_workload(
            form,
            lambda: workload_create(
                name=form.cleaned_data["name"], spec=form.spec(), user=request.user, team=team
            ),
        )
        if workload is not None:
            messages.success(request, _("The workload was saved."))
            return redirect(workload)
    return render(
        request, "planner/workload_form.html", {"form": form, "kind_label": form_class.KIND_LABEL}
    )


@require_http_methods(["GET", "POST"])
def workload_edit(request: HttpRequest, pk: int) -> HttpResponse:
    team = _writer_team(request.user)
    workload = get_object_or_404(workload_visible_to(request.user), pk=pk)
    form_class = workload_form_class(workload)
    form = form_class(
        request.POST if request.method == "POST" else None, team=team, instance=workload
    )
    if request.method == "POST" and form.is_valid():
        saved = _save_workload(
            form,
            lambda: workload_update(
                workload=workload, name=form.cleaned_data["name"], spec=form.spec()
            ),
        )
        if saved is not None:
            messages.success(request, _("The workload was saved."))
            return redirect(saved)
    return render(
        request,
        "planner/workload_form.html",
        {"form": form, "workload": workload, "kind_label": form_class.KIND_LABEL},
    )


@require_POST
def workload_copy_view(request: HttpRequest, pk: int) -> HttpResponse:
    _writer_team(request.user)
    workload = get_object_or_404(workload_visible_to(request.user), pk=pk)
    copy = workload_copy(workload=workload, user=request.user)
    messages.success(request, _("This is a copy: change what differs and save."))
    return redirect("planner:workload_edit", pk=copy.pk)


# --- plans -----------------------------------------------------------------------------------


@require_GET
def plan_list(request: HttpRequest) -> HttpResponse:
    plans = plan_visible_to(request.user).select_related("site", "workload", "created_by")
    page = Paginator(plans, LIST_PAGE_SIZE).get_page(request.GET.get("page"))
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
    return render(
        request,
        "planner/plan_list.html",
        {
            "page": page,
            "query": "",
            "rows": rows,
            "can_create": has_role(request.user, Role.PLANNER),
        },
    )


def _apply_engine_error(form: PlanForm, exc: RequestError) -> None:
    field = form.error_field(exc.field)
    form.add_error(field, exc.message if field else f"{exc.field}: {exc.message}")


@require_http_methods(["GET", "POST"])
def plan_create_view(request: HttpRequest) -> HttpResponse:
    team = _writer_team(request.user)
    if request.method == "POST":
        form = PlanForm(request.POST, user=request.user, team=team)
    else:
        form = PlanForm(
            user=request.user, team=team, initial={"workload": request.GET.get("workload")}
        )
    if request.method == "POST" and form.is_valid():
        try:
            with transaction.atomic():
                plan = plan_create(
                    data=form.question(),
                    user=request.user,
                    team=team,
                    site=form.cleaned_data["site"],
                )
                plan.workload = form.cleaned_data["workload"]
                plan.save(update_fields=["workload", "updated_at"])
        except RequestError as exc:
            _apply_engine_error(form, exc)
        else:
            messages.success(request, _("The plan was ranked."))
            return redirect(plan)
    return render(
        request,
        "planner/plan_form.html",
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
    context = _ranking_context(request, plan)
    candidates, names = context["candidates"], context["names"]
    page = Paginator(candidates, PAGE_SIZE).get_page(request.GET.get("page"))
    charts = _chart_data(plan, candidates, names=names, output_len=context["output_len"])
    context.update(
        {
            "page": page,
            "query": context["weights_query"],
            "rows": [_row(c, names=names, output_len=context["output_len"]) for c in page],
            "rejected": _rejected_rows(plan, names),
            "why_none": (plan.ranking or {}).get("why_none"),
            "charts": charts,
            "chart_labels": _chart_labels(plan, charts["metric"], charts["serving"]),
            "compare_range": (COMPARE_MIN, COMPARE_MAX),
        }
    )
    return context


@require_GET
@vary_on_headers("HX-Request")
def plan_detail(request: HttpRequest, pk: int) -> HttpResponse:
    plan = _visible_plan(request, pk)
    ranking = plan.ranking or {}
    weights_form = WeightsForm(request.GET, plan=plan)
    viable = len(ranking.get("candidates", []))
    page_number = Paginator(range(viable), PAGE_SIZE).get_page(request.GET.get("page")).number
    results_key = _fragment_key(
        "results",
        plan,
        _weights_query(weights_form.weights()),
        str(page_number),
        "invalid" if weights_form.errors else "",
    )
    rejected_key = _fragment_key("rejected", plan)
    template = "planner/plan_detail.html"
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
        "viable_count": viable,
        "rejected_count": len(ranking.get("rejected", [])),
        "evaluated": ranking.get("evaluated", 0),
        "question_rows": question_rows(plan),
        "question_json": json.dumps(plan.question, indent=2, sort_keys=True),
        "results_html": mark_safe(results_html),
        "rejected_html": mark_safe(rejected_html),
    }
    return render(request, template, context)


@require_GET
def plan_compare(request: HttpRequest, pk: int) -> HttpResponse:
    plan = _visible_plan(request, pk)
    context = _ranking_context(request, plan)
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
    rows = [_row(c, names=context["names"], output_len=context["output_len"]) for c in chosen]
    context.update(
        {
            "rows": rows,
            "lines": _compare_rows(rows, plan, context["serving"]) if rows else [],
            "error": error,
        }
    )
    return render(request, "planner/plan_compare.html", context, status=400 if error else 200)


def _export_name(plan: Plan, extension: str) -> str:
    return f"{slugify(plan.name) or 'plan'}-{plan.pk}-ranking.{extension}"


@require_GET
def plan_export_csv(request: HttpRequest, pk: int) -> HttpResponse:
    """Every viable build under the current weights, one per line, for a spreadsheet."""
    plan = _visible_plan(request, pk)
    context = _ranking_context(request, plan)
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = content_disposition_header(
        as_attachment=True, filename=_export_name(plan, "csv")
    )
    writer = csv.writer(response)
    writer.writerow(CSV_COLUMNS)
    for c in context["candidates"]:
        cost, fit = c["cost"], c["fit"]
        writer.writerow(
            [
                c["rank"],
                c["id"],
                c["accelerator"],
                c["server"],
                c["count"],
                c["nodes"],
                c["overall"],
                *(c["scores"][d] for d in DIMENSIONS),
                c["estimate"]["time"]["days"],
                capacity_rps(c, context["output_len"]) if context["serving"] else "",
                c["estimate"]["throughput"]["tokens_per_s"],
                *(
                    "" if cost.get(k) is None else cost[k]
                    for k in ("capex", "energy_per_year", "tco", "rent_per_year")
                ),
                "" if cost.get("breakeven_months") is None else cost["breakeven_months"],
                plan.currency,
                "" if fit.get("racks_needed") is None else fit["racks_needed"],
                fit.get("binding") or "",
                *(c["reasons"][d] for d in DIMENSIONS),
            ]
        )
    return response


@require_GET
def plan_export_json(request: HttpRequest, pk: int) -> HttpResponse:
    """The plan's question and every viable build under the current weights, whole."""
    plan = _visible_plan(request, pk)
    context = _ranking_context(request, plan)
    response = JsonResponse(
        {
            "plan": {
                "id": plan.pk,
                "name": plan.name,
                "currency": plan.currency,
                "model_version": plan.model_version,
                "created_at": plan.created_at.isoformat(),
                "question": plan.question,
            },
            "weights": context["weights"],
            "candidates": context["candidates"],
        },
        json_dumps_params={"indent": 2},
    )
    response["Content-Disposition"] = content_disposition_header(
        as_attachment=True, filename=_export_name(plan, "json")
    )
    return response


@require_GET
def plan_report(request: HttpRequest, pk: int) -> HttpResponse:
    """A page to print (or save as PDF) for procurement: the question, the top builds and why."""
    plan = _visible_plan(request, pk)
    context = _ranking_context(request, plan)
    names, output_len = context["names"], context["output_len"]
    rejected = _rejected_rows(plan, names)
    reasons: dict[str, int] = {}
    for r in rejected:
        for reason in r["reason"].split("; "):
            key = reason.split(" (")[0]
            reasons[key] = reasons.get(key, 0) + 1
    context.update(
        {
            "rows": [
                _row(c, names=names, output_len=output_len)
                for c in context["candidates"][:REPORT_TOP]
            ],
            "question_rows": question_rows(plan),
            "weight_rows": [(DIMENSION_LABELS[k], context["weights"][k]) for k in DIMENSIONS],
            "rejected_count": len(rejected),
            "rejected_reasons": sorted(reasons.items(), key=lambda kv: -kv[1]),
            "why_none": (plan.ranking or {}).get("why_none"),
            "evaluated": (plan.ranking or {}).get("evaluated", 0),
        }
    )
    return render(request, "planner/plan_report.html", context)
