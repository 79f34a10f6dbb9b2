"""Workloads: a team's saved jobs, listed, created, edited and copied. Planners and admins
write (403 for the others); another team's workload is a 404."""

from __future__ import annotations

from collections.abc import Callable

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django.views.decorators.vary import vary_on_headers

from accounts.roles import Role, has_role
from catalog.models import ModelArchitecture
from planner.models import Workload
from planner.plans.figures import (
    workload_summary,
)
from planner.plans.forms.workloads import WORKLOAD_FORMS, WorkloadForm, workload_form_class
from planner.plans.selectors import (
    workload_visible_to,
)
from planner.plans.services import (
    workload_copy,
    workload_create,
    workload_update,
)
from planner.web.editing import write_and_redirect
from planner.web.lists import list_page, render_list
from planner.web.roles import writer_team

# --- workloads -------------------------------------------------------------------------------


@require_GET
@vary_on_headers("HX-Request")
def workload_list(request: HttpRequest) -> HttpResponse:
    workloads = workload_visible_to(request.user).order_by("name")
    page, query = list_page(request, workloads)
    models = dict(ModelArchitecture.objects.values_list("slug", "name"))
    return render_list(
        request,
        "planner/plans/workload_list.html",
        {
            "page": page,
            "query": query,
            "rows": [workload_summary(w, models) for w in page],
            "can_write": has_role(request.user, Role.PLANNER),
            "kinds": [(kind, form.KIND_LABEL) for kind, form in WORKLOAD_FORMS.items()],
        },
    )


def _workload_form_page(
    request: HttpRequest,
    *,
    form_class: type[WorkloadForm],
    team,
    workload: Workload | None,
    write: Callable[[WorkloadForm], Workload],
) -> HttpResponse:
    """The workload form, new or editing `workload`; a valid POST calls `write` with the form
    and goes to the saved workload, and a name the team already holds goes beside the field."""
    posted = request.method == "POST"
    form = form_class(
        request.POST if posted else None,
        request.FILES if posted else None,
        team=team,
        instance=workload,
    )
    written = write_and_redirect(
        request,
        form,
        lambda: write(form),
        conflict_message=_("Your team already has a workload of this name."),
        saved_message=_("The workload was saved."),
    )
    return written or render(
        request,
        "planner/plans/workload_form.html",
        {"form": form, "workload": workload, "kind_label": form_class.KIND_LABEL},
    )


@require_http_methods(["GET", "POST"])
def workload_create_view(request: HttpRequest, kind: str) -> HttpResponse:
    form_class = WORKLOAD_FORMS.get(kind)
    if form_class is None:
        raise Http404
    team = writer_team(request.user)
    return _workload_form_page(
        request,
        form_class=form_class,
        team=team,
        workload=None,
        write=lambda form: workload_create(
            name=form.cleaned_data["name"], spec=form.spec(), user=request.user, team=team
        ),
    )


@require_http_methods(["GET", "POST"])
def workload_edit(request: HttpRequest, pk: int) -> HttpResponse:
    team = writer_team(request.user)
    workload = get_object_or_404(workload_visible_to(request.user), pk=pk)
    return _workload_form_page(
        request,
        form_class=workload_form_class(workload),
        team=team,
        workload=workload,
        write=lambda form: workload_update(
            workload=workload, name=form.cleaned_data["name"], spec=form.spec()
        ),
    )


@require_POST
def workload_copy_view(request: HttpRequest, pk: int) -> HttpResponse:
    writer_team(request.user)
    workload = get_object_or_404(workload_visible_to(request.user), pk=pk)
    copy = workload_copy(workload=workload, user=request.user)
    messages.success(request, _("This is a copy: change what differs and save."))
    return redirect("planner:workload_edit", pk=copy.pk)
