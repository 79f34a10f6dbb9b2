"""The racks pages: a rack group with its racks, one rack, and a rack's form.

Reads go through `planner.racks.selectors`, writes through `planner.racks.services`; anyone
signed in reads what their team may see, facility people and admins write."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from planner.models import Rack, RackGroup
from planner.racks import services
from planner.racks.capacity import rack_limits
from planner.racks.elevation import rack_elevation
from planner.racks.forms import RackForm
from planner.racks.occupancy import held, installed, occupancy_by_rack, rack_occupancy, total
from planner.racks.selectors import rack_editable
from planner.racks.views.access import (
    editable_rack,
    editable_rack_group,
    visible_rack,
    visible_rack_group,
)
from planner.web.editing import (
    bound_form,
    delete_and_redirect,
    record_form_page,
)
from planner.web.history import history_rows


@require_GET
def rackgroup_detail(request: HttpRequest, pk: int) -> HttpResponse:
    group = visible_rack_group(request, pk)
    racks = list(group.racks.select_related("rack_group").order_by("position", "name"))
    by_rack = occupancy_by_rack(racks)
    return render(
        request,
        "planner/racks/rackgroup_detail.html",
        {
            "group": group,
            "site": group.site,
            "rows": [(rack, by_rack[rack.pk]) for rack in racks],
            "occupancy": total(by_rack.values()),
            "can_edit": rack_editable(request.user, group),
            "group_history": history_rows(group),
        },
    )


@require_GET
def rack_detail(request: HttpRequest, pk: int) -> HttpResponse:
    rack = visible_rack(request, pk)
    return render(
        request,
        "planner/racks/rack_detail.html",
        {
            "rack": rack,
            "group": rack.rack_group,
            "site": rack.rack_group.site,
            "limits": rack_limits(rack),
            "feeds": list(rack.feeds.all()),
            "occupancy": rack_occupancy(rack),
            "installed": list(installed(rack.equipment.select_related("server"))),
            "removed": list(
                rack.equipment.filter(removed_at__isnull=False).order_by("-removed_at")
            ),
            "commitments": list(held(rack.commitments.select_related("plan", "server"))),
            "elevation": rack_elevation(rack),
            "can_edit": rack_editable(request.user, rack.rack_group),
            "rack_history": history_rows(rack),
            # Equipment and feeds alike: what is in the rack and what powers it.
            "part_histories": [
                *((e.name, history_rows(e)) for e in rack.equipment.order_by("name")),
                *((f.name, history_rows(f)) for f in rack.feeds.order_by("name")),
            ],
        },
    )


def _rack_form_page(request: HttpRequest, *, group: RackGroup, rack: Rack | None) -> HttpResponse:
    form = bound_form(
        request,
        RackForm,
        rack,
        rack_group=group,
        initial={} if rack else {"position": group.racks.count() + 1},
    )
    return record_form_page(
        request,
        form,
        lambda: services.rack_save(rack=form.instance),
        template="planner/racks/rack_form.html",
        record=rack,
        context={"group": group, "site": group.site, "rack": rack},
        saved_message=_("The rack was saved."),
        conflict_message=_("This rack group already has a rack with this name."),
    )


@require_http_methods(["GET", "POST"])
def rack_create(request: HttpRequest, pk: int) -> HttpResponse:
    return _rack_form_page(request, group=editable_rack_group(request, pk), rack=None)


@require_http_methods(["GET", "POST"])
def rack_edit(request: HttpRequest, pk: int) -> HttpResponse:
    rack = editable_rack(request, pk)
    return _rack_form_page(request, group=rack.rack_group, rack=rack)


@require_POST
def rack_delete(request: HttpRequest, pk: int) -> HttpResponse:
    rack = editable_rack(request, pk)
    name = rack.name
    return delete_and_redirect(
        request,
        rack,
        lambda: services.rack_delete(rack=rack),
        back=reverse("planner:rackgroup_detail", args=[rack.rack_group_id]),
        out_of_date=_("The page was out of date; check the rack and try again."),
        stale=_(
            "Someone else changed the rack “%(name)s” after this page was loaded; it was not "
            "deleted."
        )
        % {"name": name},
        done=_("The rack “%(name)s” was deleted.") % {"name": name},
    )
