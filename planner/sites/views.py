"""The facility pages: sites, their rack groups and history, and CSV import and export of racks.

Reads go through `planner.sites.selectors` (so a user only ever reaches what they may see: another
team's private site is a 404), writes through `planner.sites.services`. Anyone signed in
may read; facility people and admins may write (403 for the others)."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext_lazy
from django.views.decorators.http import require_GET, require_http_methods
from django.views.decorators.vary import vary_on_headers

from accounts.roles import Role, has_role
from accounts.services import user_team
from catalog.context_processors import display_currency
from planner.models import RackGroup, Site
from planner.racks.occupancy import site_occupancy
from planner.racks.selectors import site_plans_holding
from planner.sites import services as site_services
from planner.sites.filtersets import SiteFilterSet
from planner.sites.forms import (
    RackGroupForm,
    RackImportForm,
    SiteForm,
)
from planner.sites.selectors import (
    rack_group_visible_to,
    site_capacity,
    site_editable_by,
    site_visible_to,
)
from planner.web.downloads import csv_download, file_name
from planner.web.editing import (
    bound_form,
    record_form_page,
    render_form,
    save_form_write,
    validating,
)
from planner.web.history import history_rows
from planner.web.imports import MAX_PENDING_IMPORTS, CsvImportFlow, PendingUploads
from planner.web.lists import render_filtered_list
from planner.web.records import KeptRecord

# Uploads waiting for "Import" live in the session (planner.web.imports).
PENDING_IMPORTS_KEY = "rack_imports"
PENDING_IMPORTS = PendingUploads(PENDING_IMPORTS_KEY, keep=MAX_PENDING_IMPORTS)


# --- access ---------------------------------------------------------------------------------


def _require_writer(user) -> None:
    if not has_role(user, Role.FACILITY):  # admins hold every role
        raise PermissionDenied


def _visible_site(request: HttpRequest, pk: int) -> Site:
    return get_object_or_404(site_visible_to(request.user).select_related("team"), pk=pk)


def _can_edit(user, site: Site) -> bool:
    return site_editable_by(user).filter(pk=site.pk).exists()


def _editable_site(request: HttpRequest, pk: int) -> Site:
    """404 when the user may not see the site at all, 403 when they may see but not change it."""
    _require_writer(request.user)
    site = _visible_site(request, pk)
    if not _can_edit(request.user, site):
        raise PermissionDenied
    return site


def _editable_rack_group(request: HttpRequest, pk: int) -> RackGroup:
    _require_writer(request.user)
    rack_group = get_object_or_404(rack_group_visible_to(request.user), pk=pk)
    if not _can_edit(request.user, rack_group.site):
        raise PermissionDenied
    return rack_group


def _import_owner(site: Site) -> str:
    return f"site:{site.pk}"


def _deleted_rack_group_histories(site: Site, kept: set[int]) -> list[tuple[str, list]]:
    """Rack groups deleted from the site keep their history; the last record stands in."""
    out = []
    gone = (
        RackGroup.history.filter(site_id=site.pk)
        .exclude(id__in=kept)
        .order_by()
        .values_list("id", flat=True)
        .distinct()
    )
    for rack_group_id in gone:
        last = RackGroup.history.filter(id=rack_group_id).latest("history_date")
        out.append((last.name, history_rows(last.instance)))
    return out


# --- sites -----------------------------------------------------------------------------------


@require_GET
@vary_on_headers("HX-Request")
def site_list(request: HttpRequest) -> HttpResponse:
    sites = site_visible_to(request.user).select_related("team")
    return render_filtered_list(
        request,
        "planner/sites/site_list.html",
        SiteFilterSet(request.GET or None, queryset=sites),
        row=lambda site: (site, site_capacity(site=site)),
        can_create=has_role(request.user, Role.FACILITY),
    )


@require_GET
def site_detail(request: HttpRequest, pk: int) -> HttpResponse:
    site = _visible_site(request, pk)
    rack_groups = list(site.rack_groups.prefetch_related("fabrics").order_by("name"))
    histories = [(group.name, history_rows(group)) for group in rack_groups]
    histories += _deleted_rack_group_histories(site, {group.pk for group in rack_groups})
    return render(
        request,
        "planner/sites/site_detail.html",
        {
            "site": site,
            "capacity": site_capacity(site=site),
            "occupancy": site_occupancy(site=site),
            "plans_holding": site_plans_holding(site=site),
            "can_release": has_role(request.user, Role.PLANNER),
            "rack_groups": rack_groups,
            "can_edit": _can_edit(request.user, site),
            "site_history": history_rows(site),
            "rack_group_histories": histories,
        },
    )


@require_http_methods(["GET", "POST"])
def site_create(request: HttpRequest) -> HttpResponse:
    _require_writer(request.user)
    team = user_team(request.user)
    # A new site's amounts start in the currency its author reads prices in.
    form = bound_form(
        request,
        SiteForm,
        team=team,
        initial={"currency": display_currency(request)},
    )
    if request.method == "POST" and form.is_valid() and not validating(request):
        if team is None:
            form.add_error(None, _("Your account belongs to no team; ask an admin to add you."))
        else:
            site = save_form_write(
                form,
                lambda: site_services.site_create(
                    team=team, user=request.user, **form.cleaned_data
                ),
                conflict_message=_("Your team already has a site with this name."),
            )
            if site is not None:
                messages.success(request, _("The site was created."))
                return redirect(site)
    return render_form(request, "planner/sites/site_form.html", {"form": form, "site": None})


@require_http_methods(["GET", "POST"])
def site_edit(request: HttpRequest, pk: int) -> HttpResponse:
    site = _editable_site(request, pk)
    form = bound_form(request, SiteForm, site)
    return record_form_page(
        request,
        form,
        lambda: site_services.site_update(site=form.instance, **form.model_values()),
        template="planner/sites/site_form.html",
        record=site,
        context={"site": site},
        saved_message=_("The site was saved."),
        conflict_message=_("Your team already has a site with this name."),
    )


# --- rack groups -----------------------------------------------------------------------------


def _rack_group_form_page(
    request: HttpRequest, site: Site, rack_group: RackGroup | None
) -> HttpResponse:
    form = bound_form(request, RackGroupForm, rack_group, site=site)
    return record_form_page(
        request,
        form,
        lambda: site_services.rack_group_save(
            rack_group=form.instance, fabrics=form.cleaned_data["fabrics"]
        ),
        template="planner/sites/rackgroup_form.html",
        record=rack_group,
        context={"site": site, "rack_group": rack_group},
        saved_message=_("The rack group was saved."),
        conflict_message=RackGroupForm.NAME_TAKEN,
    )


RACK_GROUPS = KeptRecord(_editable_site, _editable_rack_group, "site", gettext_lazy("rack group"))
rackgroup_create, rackgroup_edit = RACK_GROUPS.form_views(_rack_group_form_page)
rackgroup_delete = RACK_GROUPS.delete_view(
    lambda rack_group: site_services.rack_group_delete(rack_group=rack_group)
)


# --- CSV -------------------------------------------------------------------------------------


@require_GET
def rack_export(request: HttpRequest, pk: int) -> HttpResponse:
    site = _visible_site(request, pk)
    return csv_download(site_services.rack_export_csv(site=site), file_name("site", site, "racks"))


RACK_IMPORT = CsvImportFlow(
    template="planner/sites/rack_import.html",
    form_class=RackImportForm,
    uploads=PENDING_IMPORTS,
    changed_error=gettext_lazy(
        "The site changed since the preview; nothing was imported. Upload again."
    ),
    imported_message=ngettext_lazy(
        "Imported %(count)d rack group.", "Imported %(count)d rack groups.", "count"
    ),
)


@require_http_methods(["GET", "POST"])
def rack_import(request: HttpRequest, pk: int) -> HttpResponse:
    """Upload -> preview (nothing saved) -> "Import N rows", which re-checks and saves all."""
    site = _editable_site(request, pk)
    return RACK_IMPORT.respond(
        request,
        owner=_import_owner(site),
        context=lambda preview: {"site": site},
        check=lambda data: site_services.rack_csv_preview(site=site, data=data),
        save=lambda data, versions: site_services.rack_import_csv(
            site=site, data=data, expected_versions=versions
        ),
        back=site,
    )
