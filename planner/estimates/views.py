"""The estimate page: one GET form, answered by the engine through
`planner.estimates.services`; a small POST form beside it uploads a config.json (a GET form
cannot carry a file)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_not_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_http_methods
from django.views.decorators.vary import vary_on_headers

from planner.engine import RequestError
from planner.engine.batch import MI
from planner.engine.specs import ETA_KEYS
from planner.estimates.forms import INFERENCE_FIELDS, EstimateForm
from planner.estimates.services import estimate_run
from planner.messages.render import error_line, error_message
from planner.web.hf_config import add_config_error
from planner.web.htmx import partial_wanted
from planner.web.memory_bar import memory_bar

ETA_LABELS = {
    "eta_mem": _("Memory bandwidth (η_mem)"),
    "eta_interconnect": _("Interconnect (η_interconnect)"),
    "eta_sched": _("Scheduling (η_sched)"),
    "eta_thermal": _("Thermal (η_thermal)"),
    "eta_fault": _("Faults (η_fault)"),
}
RECOMPUTE_LABELS = {
    "none": _("none"),
    "selective": _("selective"),
    "full": _("full"),
}
# Engine error paths that name a form field under another name.
FORM_FIELD_FOR_ERROR = {f"inference.{name}": name for name in INFERENCE_FIELDS}


def eta_rows(answer: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        {
            "key": key,
            "label": ETA_LABELS[key],
            "value": answer["efficiency"][key],
            "explanation": answer["explanations"].get(key, ""),
        }
        for key in ETA_KEYS
    ]


def _results_context(answer: dict[str, Any], task: str) -> dict[str, Any]:
    days = answer["time"]["days"]
    return {
        "answer": answer,
        "inference": task == "inference",
        "bar": memory_bar(answer["memory"]),
        "etas": eta_rows(answer),
        "mfu_percent": 100 * answer["throughput"]["mfu"],
        # Short runs keep their first significant digits instead of showing 0 days.
        "days_digits": 1 if days >= 1 else 3,
        "bottleneck": answer["bottleneck"],
        "recompute": RECOMPUTE_LABELS.get(
            answer["parallelism"]["recompute"], answer["parallelism"]["recompute"]
        ),
        # Training: the global batch in M tokens a step, as the papers count them (2^20).
        "batch_tokens_m": answer["batch"]["tokens_per_step"] / MI if "batch" in answer else None,
    }


def _place_error(form: EstimateForm, exc: RequestError) -> str | None:
    """Put the engine's error beside the field it names; the line to show above the results
    when no field of the form is at fault."""
    field = FORM_FIELD_FOR_ERROR.get(exc.field, exc.field)
    if add_config_error(form, exc.field, error_message(exc)):
        return None
    if field in form.fields:
        form.add_error(field, error_message(exc))
        return None
    return error_line(exc)


# What the upload form does not carry over from the question on the page.
NOT_CARRIED = ("hf_config", "hf_config_file", "csrfmiddlewaretoken")


def _carried(form: EstimateForm) -> list[tuple[str, str]]:
    """The question on the page as hidden fields of the upload form, so an upload answers the
    same question with the uploaded model."""
    if not form.is_bound:
        return []
    return [
        (key, value)
        for key, values in form.data.lists()
        if key not in NOT_CARRIED
        for value in values
    ]


@login_not_required  # the public estimate
@require_http_methods(["GET", "POST"])
@vary_on_headers("HX-Request")
def estimate(request: HttpRequest) -> HttpResponse:
    context: dict[str, Any] = {"answer": None, "error": None}
    query = request.POST if request.method == "POST" else request.GET
    if request.method == "POST" or EstimateForm.is_submitted(query):
        form = EstimateForm.from_query(query, request.FILES)
        if form.is_valid():
            try:
                answer = estimate_run(data=form.contract(), user=request.user)
            except RequestError as exc:
                context["error"] = _place_error(form, exc)
            else:
                context.update(_results_context(answer, form.cleaned_data["task"]))
    else:
        form = EstimateForm()
    context["form"] = form
    context["carried"] = _carried(form)

    template = "planner/estimates/estimate.html"
    if partial_wanted(request):
        template += "#results"
        # The form stays on the page, so its field errors travel as out-of-band swaps.
        context["swap_field_errors"] = True
    return render(request, template, context)
