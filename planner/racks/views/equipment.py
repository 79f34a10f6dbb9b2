"""The equipment pages: install in a rack, change or move, remove (kept in history), and the
site's equipment as CSV."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.utils.http import content_disposition_header
from django.utils.text import slugify
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from planner.models import Equipment, Rack
from planner.racks import equipment as services
from planner.racks.forms import EquipmentForm
from planner.racks.selectors import equipment_visible_to, site_racks
from planner.racks.views.access import editable_in_rack, editable_rack, rack_context, visible_site
from planner.web.editing import (
    bound_form,
    delete_and_redirect,
    record_form_page,
)


def _form_page(request: HttpRequest, *, rack: Rack, equipment: Equipment | None) -> HttpResponse:
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


@require_http_methods(["GET", "POST"])
def equipment_create(request: HttpRequest, pk: int) -> HttpResponse:
    return _form_page(request, rack=editable_rack(request, pk), equipment=None)


@require_http_methods(["GET", "POST"])
def equipment_edit(request: HttpRequest, pk: int) -> HttpResponse:
    equipment = editable_in_rack(request, equipment_visible_to(request.user), pk)
    if equipment.removed_at is not None:
        messages.error(request, _("This equipment was removed; install it again as new."))
        return redirect(equipment.rack)
    return _form_page(request, rack=equipment.rack, equipment=equipment)


@require_POST
def equipment_remove(request: HttpRequest, pk: int) -> HttpResponse:
    equipment = editable_in_rack(request, equipment_visible_to(request.user), pk)
    return delete_and_redirect(
        request,
        equipment,
        lambda: services.equipment_remove(equipment=equipment),
        back=equipment.rack,
        out_of_date=_("The page was out of date; check the equipment and try again."),
        stale=_("Someone else changed “%(name)s” after this page was loaded; it was not removed.")
        % {"name": equipment.name},
        done=_("“%(name)s” was removed.") % {"name": equipment.name},
    )


@require_GET
def equipment_export(request: HttpRequest, pk: int) -> HttpResponse:
    site = visible_site(request, pk)
    response = HttpResponse(
        services.equipment_export_csv(racks=site_racks(site=site)),
        content_type="text/csv; charset=utf-8",
    )
    name = "-".join(filter(None, ["site", str(site.pk), slugify(site.name), "equipment"]))
    response["Content-Disposition"] = content_disposition_header(
        as_attachment=True, filename=f"{name}.csv"
    )
    return response
