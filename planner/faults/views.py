"""The fault pages: the searchable guide, one entry with the team's incidents and history, the
diagnosis of a pasted text, and the forms of a team's own entries and incidents.

The guide and the diagnosis are public, as the estimate page is: a person not signed in reads
the guide's entries; a signed-in one also their team's. Another team's entries and incidents
are a 404. Planners (and admins) write their team's entries and incidents; the guide is changed
in catalog/data/faults. Every page works without JavaScript."""

from __future__ import annotations

from django.contrib.auth.decorators import login_not_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET, require_http_methods
from django.views.decorators.vary import vary_on_headers

from accounts.roles import Role, has_role
from accounts.services import user_team
from planner.faults import services
from planner.faults.filtersets import FaultEntryFilterSet
from planner.faults.forms import DiagnoseForm, FaultEntryForm, FaultIncidentForm
from planner.faults.selectors import (
    fault_diagnosis,
    fault_entry_editable_by,
    fault_entry_visible_to,
    fault_incident_editable_by,
    fault_incident_visible_to,
)
from planner.models import FaultIncident
from planner.web.editing import FormPage, editable_row
from planner.web.history import history_rows
from planner.web.htmx import partial_wanted
from planner.web.lists import list_page, render_list


def _can_write(user) -> bool:
    return user.is_authenticated and has_role(user, Role.PLANNER) and user_team(user) is not None


CONFLICT = gettext_lazy("Another change got in first and this could not be saved; save it again.")


@login_not_required  # the guide is public, as the estimate page is
@require_GET
@vary_on_headers("HX-Request")
def fault_list(request: HttpRequest) -> HttpResponse:
    filterset = FaultEntryFilterSet(request.GET, queryset=fault_entry_visible_to(request.user))
    page, query = list_page(request, filterset.qs)
    context = {
        "filter": filterset,
        "filtered": bool(query),
        "page": page,
        "rows": list(page),
        "query": query,
        "can_write": _can_write(request.user),
    }
    return render_list(request, "planner/faults/fault_list.html", context)


@login_not_required
@require_GET
def fault_detail(request: HttpRequest, pk: int) -> HttpResponse:
    entry = get_object_or_404(fault_entry_visible_to(request.user), pk=pk)
    user = request.user
    incidents = fault_incident_visible_to(user).filter(entry=entry) if user.is_authenticated else []
    return render(
        request,
        "planner/faults/fault_detail.html",
        {
            "entry": entry,
            "incidents": incidents,
            "can_edit": user.is_authenticated
            and fault_entry_editable_by(user).filter(pk=pk).exists(),
            "can_record": _can_write(user),
            "history": history_rows(entry) if user.is_authenticated else [],
        },
    )


@login_not_required  # reading a log changes nothing; anyone may ask
@require_http_methods(["GET", "POST"])
def fault_diagnose(request: HttpRequest) -> HttpResponse:
    form = DiagnoseForm(request.POST if request.method == "POST" else None)
    diagnosis = None
    if form.is_valid():
        diagnosis = fault_diagnosis(
            text=form.cleaned_data["text"], user=request.user, job=form.job()
        )
    template = "planner/faults/diagnose.html"
    if request.method == "POST" and partial_wanted(request):
        template += "#results"
    return render(
        request,
        template,
        {"form": form, "diagnosis": diagnosis, "signed_in": request.user.is_authenticated},
    )


ENTRY_FORM = FormPage("planner/faults/fault_form.html", FaultEntryForm, "entry", CONFLICT)
INCIDENT_FORM = FormPage(
    "planner/faults/incident_form.html", FaultIncidentForm, "incident", CONFLICT, team_form=True
)


@require_http_methods(["GET", "POST"])
def fault_create(request: HttpRequest) -> HttpResponse:
    saved = _("The entry was added to your team's fault table.")
    return ENTRY_FORM.create(request, services.fault_entry_create, saved)


@require_http_methods(["GET", "POST"])
def fault_edit(request: HttpRequest, pk: int) -> HttpResponse:
    entry = editable_row(request.user, fault_entry_editable_by, pk)
    return ENTRY_FORM.edit(request, entry, services.fault_entry_update, _("The entry was saved."))


@require_GET
@vary_on_headers("HX-Request")
def fault_incident_list(request: HttpRequest) -> HttpResponse:
    incidents = fault_incident_visible_to(request.user)
    page, query = list_page(request, incidents)
    context = {
        "page": page,
        "rows": list(page),
        "query": query,
        "filtered": False,
        "can_write": _can_write(request.user),
    }
    return render_list(request, "planner/faults/incident_list.html", context)


@require_GET
def fault_incident_detail(request: HttpRequest, pk: int) -> HttpResponse:
    incident = get_object_or_404(fault_incident_visible_to(request.user), pk=pk)
    return render(
        request,
        "planner/faults/incident_detail.html",
        {
            "incident": incident,
            "can_edit": fault_incident_editable_by(request.user).filter(pk=pk).exists(),
            "history": history_rows(incident),
        },
    )


@require_http_methods(["GET", "POST"])
def fault_incident_create(request: HttpRequest) -> HttpResponse:
    """A new incident of the team's; `?entry=` names the fault it was, from that fault's page."""
    entry_pk = request.GET.get("entry", "")
    initial = {}
    if entry_pk.isdigit():
        initial["entry"] = fault_entry_visible_to(request.user).filter(pk=entry_pk).first()
    return INCIDENT_FORM.create(
        request,
        services.fault_incident_create,
        _("The incident was recorded."),
        initial=initial,
    )


@require_http_methods(["GET", "POST"])
def fault_incident_edit(request: HttpRequest, pk: int) -> HttpResponse:
    incident: FaultIncident = editable_row(request.user, fault_incident_editable_by, pk)
    saved = _("The incident was saved.")
    return INCIDENT_FORM.edit(request, incident, services.fault_incident_update, saved)
