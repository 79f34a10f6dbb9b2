"""The fit page: will N more of this server (or of a plan's build) fit in this site or rack
group? Each rack's free capacity, the servers placed where power, cooling, space and weight
allow, the limit that refuses the rest, and each rack's drawing. A GET question: it writes
nothing, and works without JavaScript."""

from __future__ import annotations

import dataclasses
from typing import Any

from django.http import HttpRequest, HttpResponse, QueryDict
from django.shortcuts import render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET

from accounts.roles import Role, has_role
from planner.engine import RequestError
from planner.estimates.services import server_facility
from planner.messages.render import error_message
from planner.models import Plan
from planner.plans.selectors import plan_candidate, plan_visible_to
from planner.racks.fitting import racks_fit
from planner.racks.forms import FitForm
from planner.racks.selectors import fit_racks
from planner.sites.selectors import rack_group_visible_to, site_visible_to
from planner.web.roles import require_any_role

FIT_ROLES = (Role.FACILITY, Role.PLANNER)


def _from_build(request: HttpRequest) -> tuple[QueryDict, Plan | None, int | None]:
    """A plan's build (`?plan=&build=`) as the question: its site, server, cards and servers."""
    query = request.GET.copy()
    plan_id, build_id = query.get("plan", ""), query.get("build", "")
    if not (plan_id.isdigit() and build_id.isdigit()):
        return query, None, None
    plan = plan_visible_to(request.user).filter(pk=int(plan_id)).first()
    build = (
        None if plan is None else plan_candidate(plan=plan, candidate_id=int(build_id), weights={})
    )
    if build is None:
        return query, None, None
    if not query.get("server"):
        if plan.site_id and not query.get("site"):
            query["site"] = str(plan.site_id)
        query["server"], query["accelerator"] = build["server"], build["accelerator"]
        query["quantity"] = str(build["nodes"])
    return query, plan, build["id"]


@require_GET
def fit_page(request: HttpRequest) -> HttpResponse:
    require_any_role(request.user, FIT_ROLES)
    query, plan, build_id = _from_build(request)
    form = FitForm(
        query if query.get("site") or query.get("server") else None,
        sites=site_visible_to(request.user),
        rack_groups=rack_group_visible_to(request.user),
    )
    context: dict[str, Any] = {"form": form, "plan": plan, "build_id": build_id, "fit": None}
    if form.is_bound and form.is_valid():
        data = form.cleaned_data
        card = data["accelerator"]
        try:
            server = server_facility(
                server=data["server"].slug, accelerator=card.slug if card else None
            )
        except RequestError as exc:
            form.add_error("server", error_message(exc))
        else:
            server = dataclasses.replace(server, name=data["server"].name)
            racks = fit_racks(site=data["site"], rack_group=data["rack_group"])
            context["fit"] = racks_fit(racks=racks, server=server, quantity=data["quantity"])
            context["scope"] = data["rack_group"] or data["site"]
            # A build is committed to its plan's own site, so only a fit of that site offers it.
            context["on_plan_site"] = plan is not None and data["site"].pk == plan.site_id
    context["can_commit"] = (
        plan is not None and plan.site_id is not None and has_role(request.user, Role.PLANNER)
    )
    context["title"] = _("Will it fit in our racks?")
    return render(request, "planner/racks/fit.html", context, status=400 if form.errors else 200)
