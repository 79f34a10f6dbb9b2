"""The racks pages: a rack group with its racks, one rack, and a rack's form.

Reads go through `planner.racks.selectors`, writes through `planner.racks.services`; anyone
signed in reads what their team may see, facility people and admins write."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET

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
from planner.web.editing import bound_form, record_form_page
from planner.web.history import history_rows
from planner.web.records import KeptRecord


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


def _rack_form_page(request: HttpRequest, group: RackGroup, rack: Rack | None) -> HttpResponse:
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
        conflict_message=RackForm.NAME_TAKEN,
    )


RACKS = KeptRecord(editable_rack_group, editable_rack, "rack_group", gettext_lazy("rack"))
rack_create, rack_edit = RACKS.form_views(_rack_form_page)
# Its group's page, where the rack was listed (the group's own URL is a place on the site page).
rack_delete = RACKS.delete_view(
    lambda rack: services.rack_delete(rack=rack),
    back=lambda rack: reverse("planner:rackgroup_detail", args=[rack.rack_group_id]),
)
