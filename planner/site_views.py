"""The facility pages: sites, their rack groups and history, and CSV import and export of racks.

Reads go through `planner.selectors` (so a user only ever reaches what they may see: another
team's private site is a 404), writes through the services in `planner.sites`. Anyone signed in
may read; facility people and admins may write (403 for the others)."""

from __future__ import annotations

import base64
import copy
import secrets
from typing import Any

from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.paginator import Paginator
from django.db.models import Model
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.http import content_disposition_header
from django.utils.text import capfirst, slugify
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django.views.decorators.vary import vary_on_headers

from accounts.roles import Role, has_role
from accounts.services import user_team
from planner import sites as site_services
from planner.filtersets import SiteFilterSet
from planner.models import RackGroup, Site
from planner.selectors import (
    history_of,
    rack_group_visible_to,
    site_capacity,
    site_editable_by,
    site_visible_to,
)
from planner.site_forms import (
    VERSION_FIELD,
    RackGroupForm,
    RackImportForm,
    SiteForm,
    apply_service_errors,
)
from planner.sites import CSV_COLUMNS, ConflictError, CsvPreview, StaleVersionError
from planner.web import partial_wanted

PAGE_SIZE = 50
# The inline validation posts the form with this flag: check and re-render, never save.
VALIDATE_FLAG = "_validate"
# Uploads waiting for "Import" live in the session, keyed by a random token. Each is at most
# CSV_MAX_BYTES; only the newest few are kept so the session stays small.
PENDING_IMPORTS_KEY = "rack_imports"
MAX_PENDING_IMPORTS = 3

HISTORY_KINDS = {
    "created": gettext_lazy("created"),
    "changed": gettext_lazy("changed"),
    "deleted": gettext_lazy("deleted"),
}


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


# --- helpers ---------------------------------------------------------------------------------


def _validating(request: HttpRequest) -> bool:
    return request.method == "POST" and request.POST.get(VALIDATE_FLAG) == "1"


def _quiet_required_errors(form) -> None:
    """While someone is still filling the form in, the fields they have not reached yet are
    not errors: the inline check leaves out "required" on empty fields (Save still says it)."""
    for name in list(form.errors):
        if name in form.fields and all(e.code == "required" for e in form.errors[name].as_data()):
            del form.errors[name]


def _render_form(request: HttpRequest, template: str, context: dict[str, Any]) -> HttpResponse:
    if _validating(request):
        _quiet_required_errors(context["form"])
        # An inline validation request gets the form partial alone; it replaces the form.
        if partial_wanted(request):
            template += "#form"
    return render(request, template, context)


def _save(form, write, *, conflict_message: str) -> Model | None:
    """Run a service write; its refusals land on the form instead of becoming a 500."""
    try:
        return write()
    except ConflictError:
        form.add_error("name", conflict_message)
    except ValidationError as exc:
        apply_service_errors(form, exc)
    except StaleVersionError as exc:
        _show_newer_version(form, exc.current)
    return None


def _show_newer_version(form, current: Model | None) -> None:
    """Someone saved the record after this form was opened. Nothing was written: the form keeps
    what the person typed, lists where the saved record now differs from it, and carries the
    newer version, so pressing Save again means "mine over theirs", knowingly."""
    noun = form.instance._meta.verbose_name
    if current is None:
        form.add_error(
            None,
            _(
                "Someone else deleted this %(noun)s while you were editing it, so it was not "
                "saved. Your input is still below."
            )
            % {"noun": noun},
        )
        return
    form.add_error(
        None,
        _(
            "Someone else saved this %(noun)s while you were editing it, so your changes were "
            "not saved yet. Their values are listed below beside yours, and your input is still "
            "in the form: check it and save again to keep yours."
        )
        % {"noun": noun},
    )
    form.changed_meanwhile = _differences(form, current)
    form.data = form.data.copy()
    form.data[form.add_prefix(VERSION_FIELD)] = str(current.version)


def _differences(form, current: Model) -> list[dict[str, str]]:
    """The fields where the saved record and the person's input disagree, as people read them."""
    rows = []
    for name, field in form.fields.items():
        if name == VERSION_FIELD or name not in form.cleaned_data:
            continue
        model_field = current._meta.get_field(name)
        if model_field.many_to_many:
            saved = sorted(str(obj) for obj in getattr(current, name).all())
            yours = sorted(str(obj) for obj in form.cleaned_data[name])
            if saved != yours:
                rows.append(
                    {
                        "label": field.label,
                        "saved": ", ".join(saved) or "—",
                        "yours": ", ".join(yours) or "—",
                    }
                )
            continue
        saved, yours = getattr(current, name), form.cleaned_data[name]
        if saved != yours:
            rows.append(
                {
                    "label": field.label,
                    "saved": _shown(model_field, saved),
                    "yours": _shown(model_field, yours),
                }
            )
    return rows


def _opened_on_older_version(form, saved: Model | None) -> bool:
    """True when the form was opened on a version older than the one saved now: the page warns
    while the person is still typing (the inline validation re-renders it), before any Save."""
    if saved is None or not form.is_bound or VERSION_FIELD not in form.fields:
        return False
    posted = form.data.get(form.add_prefix(VERSION_FIELD), "")
    return posted.isdigit() and int(posted) < saved.version


def _shown(field, value) -> str:
    """A history value as people read it: choice labels, fabric names, an em dash for empty."""
    if value is None or value == "" or value == []:
        return "—"
    if field is not None and field.many_to_many:
        ids = [v.get(field.m2m_reverse_field_name()) for v in value if isinstance(v, dict)]
        names = field.related_model.objects.filter(pk__in=ids).values_list("name", flat=True)
        return ", ".join(sorted(names)) or "—"
    if field is not None and field.choices:
        return str(dict(field.flatchoices).get(value, value))
    if isinstance(value, bool):
        return _("yes") if value else _("no")
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _history(obj: Model) -> list[dict[str, Any]]:
    meta = type(obj)._meta
    fields = {f.name: f for f in meta.get_fields() if hasattr(f, "verbose_name")}
    entries = history_of(obj)
    for entry in entries:
        entry["kind_label"] = HISTORY_KINDS.get(entry["kind"], entry["kind"])
        entry["changes"] = [
            {
                "label": capfirst(fields[c["field"]].verbose_name)
                if c["field"] in fields
                else c["field"],
                "old": _shown(fields.get(c["field"]), c["old"]),
                "new": _shown(fields.get(c["field"]), c["new"]),
            }
            for c in entry["changes"]
        ]
    return entries


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
        out.append((last.name, _history(last.instance)))
    return out


# --- sites -----------------------------------------------------------------------------------


@require_GET
@vary_on_headers("HX-Request")
def site_list(request: HttpRequest) -> HttpResponse:
    filterset = SiteFilterSet(
        request.GET or None, queryset=site_visible_to(request.user).select_related("team")
    )
    page = Paginator(filterset.qs, PAGE_SIZE).get_page(request.GET.get("page"))
    query = request.GET.copy()
    query.pop("page", None)
    context = {
        "filter": filterset,
        "page": page,
        "rows": [(site, site_capacity(site=site)) for site in page],
        "query": query.urlencode(),
        "can_create": has_role(request.user, Role.FACILITY),
    }
    template = "planner/site_list.html"
    if partial_wanted(request):
        template += "#results"
    return render(request, template, context)


@require_GET
def site_detail(request: HttpRequest, pk: int) -> HttpResponse:
    site = _visible_site(request, pk)
    rack_groups = list(site.rack_groups.prefetch_related("fabrics").order_by("name"))
    histories = [(group.name, _history(group)) for group in rack_groups]
    histories += _deleted_rack_group_histories(site, {group.pk for group in rack_groups})
    return render(
        request,
        "planner/site_detail.html",
        {
            "site": site,
            "capacity": site_capacity(site=site),
            "rack_groups": rack_groups,
            "can_edit": _can_edit(request.user, site),
            "site_history": _history(site),
            "rack_group_histories": histories,
        },
    )


@require_http_methods(["GET", "POST"])
def site_create(request: HttpRequest) -> HttpResponse:
    _require_writer(request.user)
    team = user_team(request.user)
    form = SiteForm(request.POST if request.method == "POST" else None, team=team)
    if request.method == "POST" and form.is_valid() and not _validating(request):
        if team is None:
            form.add_error(None, _("Your account belongs to no team; ask an admin to add you."))
        else:
            site = _save(
                form,
                lambda: site_services.site_create(
                    team=team, user=request.user, **form.cleaned_data
                ),
                conflict_message=_("Your team already has a site with this name."),
            )
            if site is not None:
                messages.success(request, _("The site was created."))
                return redirect(site)
    return _render_form(request, "planner/site_form.html", {"form": form, "site": None})


@require_http_methods(["GET", "POST"])
def site_edit(request: HttpRequest, pk: int) -> HttpResponse:
    site = _editable_site(request, pk)
    # The form edits a copy, so the page heading keeps the saved name while errors show.
    form = SiteForm(request.POST if request.method == "POST" else None, instance=copy.copy(site))
    if request.method == "POST" and form.is_valid() and not _validating(request):
        saved = _save(
            form,
            lambda: site_services.site_update(site=form.instance, **form.model_values()),
            conflict_message=_("Your team already has a site with this name."),
        )
        if saved is not None:
            messages.success(request, _("The site was saved."))
            return redirect(saved)
    return _render_form(
        request,
        "planner/site_form.html",
        {"form": form, "site": site, "opened_on_older": _opened_on_older_version(form, site)},
    )


# --- rack groups -----------------------------------------------------------------------------


def _rack_group_form_page(
    request: HttpRequest, *, site: Site, rack_group: RackGroup | None
) -> HttpResponse:
    form = RackGroupForm(
        request.POST if request.method == "POST" else None,
        instance=copy.copy(rack_group) if rack_group else None,
        site=site,
    )
    if request.method == "POST" and form.is_valid() and not _validating(request):
        saved = _save(
            form,
            lambda: site_services.rack_group_save(
                rack_group=form.instance, fabrics=form.cleaned_data["fabrics"]
            ),
            conflict_message=_("This site already has a rack group with this name."),
        )
        if saved is not None:
            messages.success(request, _("The rack group was saved."))
            return redirect(saved)
    return _render_form(
        request,
        "planner/rackgroup_form.html",
        {
            "form": form,
            "site": site,
            "rack_group": rack_group,
            "opened_on_older": _opened_on_older_version(form, rack_group),
        },
    )


@require_http_methods(["GET", "POST"])
def rackgroup_create(request: HttpRequest, pk: int) -> HttpResponse:
    return _rack_group_form_page(request, site=_editable_site(request, pk), rack_group=None)


@require_http_methods(["GET", "POST"])
def rackgroup_edit(request: HttpRequest, pk: int) -> HttpResponse:
    rack_group = _editable_rack_group(request, pk)
    return _rack_group_form_page(request, site=rack_group.site, rack_group=rack_group)


@require_POST
def rackgroup_delete(request: HttpRequest, pk: int) -> HttpResponse:
    rack_group = _editable_rack_group(request, pk)
    site, name = rack_group.site, rack_group.name
    # The delete button carries the version its page showed: deleting a row someone changed
    # after that would throw away a change the person never saw.
    posted = request.POST.get(VERSION_FIELD, "")
    if not posted.isdigit():
        messages.error(request, _("The page was out of date; check the rack group and try again."))
        return redirect(site)
    rack_group.version = int(posted)
    try:
        site_services.rack_group_delete(rack_group=rack_group)
    except StaleVersionError:
        messages.error(
            request,
            _(
                "Someone else changed the rack group “%(name)s” after this page was loaded, so "
                "it was not deleted. Check its new values and delete it again if you still "
                "mean to."
            )
            % {"name": name},
        )
        return redirect(site)
    messages.success(request, _("The rack group “%(name)s” was deleted.") % {"name": name})
    return redirect(site)


# --- CSV -------------------------------------------------------------------------------------


@require_GET
def rack_export(request: HttpRequest, pk: int) -> HttpResponse:
    site = _visible_site(request, pk)
    response = HttpResponse(
        site_services.rack_export_csv(site=site), content_type="text/csv; charset=utf-8"
    )
    filename = "-".join(filter(None, ["site", str(site.pk), slugify(site.name), "racks"]))
    response["Content-Disposition"] = content_disposition_header(
        as_attachment=True, filename=f"{filename}.csv"
    )
    return response


def _pending_import_store(
    request: HttpRequest, *, site: Site, preview: CsvPreview, data: bytes
) -> str:
    """Keep the upload, and the versions of the rack groups its preview showed, for Import."""
    pending = dict(request.session.get(PENDING_IMPORTS_KEY, {}))
    while len(pending) >= MAX_PENDING_IMPORTS:  # oldest first: dicts keep insertion order
        pending.pop(next(iter(pending)))
    token = secrets.token_urlsafe(24)
    pending[token] = {
        "site": site.pk,
        "data": base64.b64encode(data).decode("ascii"),
        "versions": preview.versions,
    }
    request.session[PENDING_IMPORTS_KEY] = pending
    return token


def _pending_import_take(
    request: HttpRequest, *, site: Site, token: str
) -> tuple[bytes, dict[str, int | None]] | None:
    """The upload saved under `token` for this site and the versions its preview showed,
    removed so it imports at most once."""
    pending = dict(request.session.get(PENDING_IMPORTS_KEY, {}))
    entry = pending.get(token)
    if entry is None or entry.get("site") != site.pk or "versions" not in entry:
        return None
    del pending[token]
    request.session[PENDING_IMPORTS_KEY] = pending
    return base64.b64decode(entry["data"]), entry["versions"]


def _preview_rows(preview: CsvPreview) -> list[dict[str, Any]]:
    """Each row's cells in column order, with the cells at fault marked, for the template."""
    return [
        {
            "line": row.line,
            "ok": row.ok,
            "cells": [
                {"value": row.values.get(column, ""), "bad": column in row.errors}
                for column in CSV_COLUMNS
            ],
            "problems": [
                {"field": field, "messages": messages_} for field, messages_ in row.errors.items()
            ],
        }
        for row in preview.rows
    ]


def _import_page(
    request: HttpRequest,
    site: Site,
    *,
    form: RackImportForm,
    preview: CsvPreview | None = None,
    token: str | None = None,
    error: str | None = None,
    status: int = 200,
) -> HttpResponse:
    return render(
        request,
        "planner/rack_import.html",
        {
            "site": site,
            "form": form,
            "preview": preview,
            "rows": _preview_rows(preview) if preview else [],
            "bad_rows": sum(1 for row in preview.rows if not row.ok) if preview else 0,
            "token": token,
            "error": error,
            "columns": CSV_COLUMNS,
        },
        status=status,
    )


@require_http_methods(["GET", "POST"])
def rack_import(request: HttpRequest, pk: int) -> HttpResponse:
    """Upload -> preview (nothing saved) -> "Import N rows", which re-checks and saves all."""
    site = _editable_site(request, pk)
    if request.method == "GET":
        return _import_page(request, site, form=RackImportForm())
    if "token" in request.POST:
        return _rack_import_commit(request, site)

    form = RackImportForm(request.POST, request.FILES)
    if not form.is_valid():
        return _import_page(request, site, form=form)
    data = form.cleaned_data["file"].read()
    preview = site_services.rack_csv_preview(site=site, data=data)
    token = (
        _pending_import_store(request, site=site, preview=preview, data=data)
        if preview.ok
        else None
    )
    return _import_page(request, site, form=RackImportForm(), preview=preview, token=token)


def _rack_import_commit(request: HttpRequest, site: Site) -> HttpResponse:
    pending = _pending_import_take(request, site=site, token=request.POST["token"])
    if pending is None:
        return _import_page(
            request,
            site,
            form=RackImportForm(),
            error=_("This upload has expired or was already imported; upload the file again."),
            status=400,
        )
    data, versions = pending
    try:
        result = site_services.rack_import_csv(site=site, data=data, expected_versions=versions)
    except (ConflictError, StaleVersionError, ValidationError):
        # Someone changed the site's rack groups between the preview and the import: importing
        # now would overwrite what the preview did not show.
        return _import_page(
            request,
            site,
            form=RackImportForm(),
            error=_("The site changed since the preview; nothing was imported. Upload again."),
            status=409,
        )
    if not result.ok:
        return _import_page(request, site, form=RackImportForm(), preview=result)
    count = len(result.rows)
    messages.success(
        request,
        ngettext("Imported %(count)d rack group.", "Imported %(count)d rack groups.", count)
        % {"count": count},
    )
    return redirect(site)
