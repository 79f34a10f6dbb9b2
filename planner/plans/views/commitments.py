"""A plan's hold on its site's racks, and ranking it again: commit a build to the racks,
release what the plan holds, rank the plan again in the site's free capacity as it is now.
Plain POST forms; each answers with the plan page and a message."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from accounts.roles import Role
from planner.engine import RequestError
from planner.messages.render import error_message
from planner.plans.services import plan_build_commit, plan_rerank
from planner.plans.views.plans import visible_plan
from planner.racks.commitments import plan_release
from planner.web.roles import PLAN_MAKERS, require_any_role, require_role


@require_POST
def candidate_commit(request: HttpRequest, pk: int, cid: int) -> HttpResponse:
    require_role(request.user, Role.PLANNER)
    plan = visible_plan(request, pk)
    try:
        held = plan_build_commit(plan=plan, candidate_id=cid, user=request.user)
    except RequestError as exc:
        messages.error(request, error_message(exc))
    except ValidationError as exc:
        messages.error(request, " ".join(exc.messages))
    else:
        messages.success(
            request,
            _("The build holds %(servers)d servers in %(racks)d racks.")
            % {"servers": sum(c.servers for c in held), "racks": len(held)},
        )
    return redirect(reverse("planner:plan_detail", args=[plan.pk]) + "#racks-held")


@require_POST
def plan_release_view(request: HttpRequest, pk: int) -> HttpResponse:
    require_role(request.user, Role.PLANNER)
    plan = visible_plan(request, pk)
    released = plan_release(plan=plan)
    if released:
        messages.success(request, _("The plan's racks were released."))
    else:
        messages.info(request, _("The plan held no racks."))
    return redirect(reverse("planner:plan_detail", args=[plan.pk]) + "#racks-held")


@require_POST
def plan_rerank_view(request: HttpRequest, pk: int) -> HttpResponse:
    require_any_role(request.user, PLAN_MAKERS)
    plan = visible_plan(request, pk)
    try:
        plan_rerank(plan=plan, user=request.user)
    except RequestError as exc:
        messages.error(request, error_message(exc))
    else:
        messages.success(request, _("The plan was ranked again in the site as it is now."))
    return redirect(plan)
