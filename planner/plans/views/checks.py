"""A serving plan's answers checked by simulation, from its page: start the check (POST), and
its progress, then its figures, as a fragment the page polls over htmx (GET)."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods
from django.views.decorators.vary import vary_on_headers

from accounts.roles import Role, has_role
from planner.engine import RequestError
from planner.messages.render import error_line
from planner.plans.figures import build_names
from planner.plans.services import plan_serving_check_start
from planner.plans.serving_check import serving_check_context
from planner.plans.views.plans import visible_plan
from planner.simulations.services import QueueUnavailable
from planner.web.htmx import partial_wanted
from planner.web.roles import require_role

TEMPLATE = "planner/plans/plan_detail.html#serving_check"


def _fragment(request: HttpRequest, plan) -> HttpResponse:
    context = serving_check_context(plan, build_names(plan))
    context["can_check"] = has_role(request.user, Role.PLANNER)
    return render(request, TEMPLATE, context)


@require_http_methods(["GET", "POST"])
@vary_on_headers("HX-Request")
def plan_serving_check_view(request: HttpRequest, pk: int) -> HttpResponse:
    """GET: the check's section (the fragment over htmx, else the plan page at it). POST: start
    the check, or show the one already asked for these builds."""
    if request.method == "POST":
        # The role first, as every write does: one who may not start a check learns no more.
        require_role(request.user)
    plan = visible_plan(request, pk)
    back = plan.get_absolute_url() + "#serving-check"
    if request.method == "GET":
        if not partial_wanted(request):
            return redirect(back)
        return _fragment(request, plan)
    try:
        _simulation, queued = plan_serving_check_start(plan=plan, user=request.user)
    except RequestError as exc:
        messages.error(request, error_line(exc))
        return redirect(back)
    except QueueUnavailable:
        messages.error(request, QueueUnavailable.reason)
        return redirect(back)
    if partial_wanted(request):
        return _fragment(request, plan)
    if queued:
        messages.success(request, _("The serving check was queued."))
    else:
        messages.info(request, _("These builds were already checked: here is that run."))
    return redirect(back)
