"""A plan's ranking as CSV and JSON, and its printable report."""

from __future__ import annotations

import csv

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils.text import slugify
from django.views.decorators.http import require_GET

from planner.engine.scoring import DIMENSIONS
from planner.messages.answers import failure_counts, localise_candidate, plan_why_none
from planner.models import Plan
from planner.plans.figures import (
    CSV_COLUMNS,
    DIMENSION_LABELS,
    candidate_row,
    capacity_rps,
    question_rows,
)
from planner.plans.serving import export_cells as serving_export_cells
from planner.plans.views.plans import ranking_context, visible_plan
from planner.web.downloads import CSV_CONTENT_TYPE, as_download

REPORT_TOP = 10  # builds in the printable report


def _export_name(plan: Plan, extension: str) -> str:
    return f"{slugify(plan.name) or 'plan'}-{plan.pk}-ranking.{extension}"


@require_GET
def plan_export_csv(request: HttpRequest, pk: int) -> HttpResponse:
    """Every viable build under the current weights, one per line, for a spreadsheet; its
    columns are described in docs/plan-exports.md."""
    plan = visible_plan(request, pk)
    context = ranking_context(request, plan)
    response = as_download(HttpResponse(content_type=CSV_CONTENT_TYPE), _export_name(plan, "csv"))
    writer = csv.writer(response)
    writer.writerow(CSV_COLUMNS)
    for c in map(localise_candidate, context["candidates"]):
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
                "" if context["serving"] else c["estimate"]["time"]["days"],
                capacity_rps(c, context["output_len"]) if context["serving"] else "",
                *serving_export_cells(c["estimate"]),
                c["estimate"]["throughput"]["tokens_per_s"],
                cost.get("basis") or "",
                *("" if cost.get(k) is None else cost[k] for k in ("amount", "rent_job")),
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
    plan = visible_plan(request, pk)
    context = ranking_context(request, plan)
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
            "objective": context["objective"],
            "why_first": context["why_first_text"],
            "candidates": [localise_candidate(c) for c in context["candidates"]],
        },
        json_dumps_params={"indent": 2},
    )
    return as_download(response, _export_name(plan, "json"))


@require_GET
def plan_report(request: HttpRequest, pk: int) -> HttpResponse:
    """A page to print (or save as PDF) for procurement: the question, the top builds and why."""
    plan = visible_plan(request, pk)
    context = ranking_context(request, plan)
    names, output_len = context["names"], context["output_len"]
    rejected = (plan.ranking or {}).get("rejected", [])
    context.update(
        {
            "rows": [
                candidate_row(c, names=names, output_len=output_len)
                for c in context["candidates"][:REPORT_TOP]
            ],
            "question_rows": question_rows(plan),
            "weight_rows": [(DIMENSION_LABELS[k], context["weights"][k]) for k in DIMENSIONS],
            "rejected_count": len(rejected),
            "rejected_reasons": failure_counts(rejected),
            "why_none": plan_why_none(plan.ranking),
            "evaluated": (plan.ranking or {}).get("evaluated", 0),
        }
    )
    return render(request, "planner/plans/plan_report.html", context)
