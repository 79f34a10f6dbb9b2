"""The equipment pages: install in a rack, change or move, remove (kept in history), and the
site's equipment as CSV."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET

from planner.models import Equipment, Rack
from planner.racks import equipment as services
from planner.racks.forms import EquipmentForm
from planner.racks.selectors import equipment_visible_to, site_racks
from planner.racks.views.access import editable_in_rack, editable_rack, rack_context, visible_site
from planner.web.downloads import csv_download, file_name
from planner.web.editing import bound_form, record_form_page
from planner.web.records import REMOVED, KeptRecord


def _form_page(request: HttpRequest, rack: Rack, equipment: Equipment | None) -> HttpResponse:
    # A removed piece keeps its row (and history); its edit page sends the writer back.
    if equipment is not None and equipment.removed_at is not None:
        messages.error(request, _("This equipment was removed; install it again as new."))
        return redirect(equipment.rack)
    form = bound_form(
        request,
        EquipmentForm,
        equipment,
        rack=rack,
        racks=site_racks(site=rack.rack_group.site),
    )
    if equipment is None:
        write = lambda: services.equipment_install(equipment=form.instance, user=request.user)  # noqa: E731
    else:
        write = lambda: services.equipment_update(equipment=form.instance)  # noqa: E731
    return record_form_page(
        request,
        form,
        write,
        template="planner/racks/equipment_form.html",
        record=equipment,
        context={**rack_context(rack), "equipment": equipment},
        saved_message=_("The equipment was saved."),
        conflict_field="position_u",
    )


def _editable_equipment(request: HttpRequest, pk: int) -> Equipment:
    return editable_in_rack(request, equipment_visible_to(request.user), pk)


EQUIPMENT = KeptRecord(editable_rack, _editable_equipment, "rack", gettext_lazy("equipment"))
equipment_create, equipment_edit = EQUIPMENT.form_views(_form_page)
equipment_remove = EQUIPMENT.delete_view(
    lambda equipment: services.equipment_remove(equipment=equipment), wording=REMOVED
)


@require_GET
def equipment_export(request: HttpRequest, pk: int) -> HttpResponse:
    site = visible_site(request, pk)
    return csv_download(
        services.equipment_export_csv(racks=site_racks(site=site)),
        file_name("site", site, "equipment"),
    )
