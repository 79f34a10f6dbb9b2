"""The NetBox import page: upload NetBox's files, see what would change (a dry run, nothing
saved), then import, all or nothing. Works without JavaScript."""

from __future__ import annotations

import base64
import dataclasses
import json
from decimal import Decimal
from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_http_methods

from planner.netbox.formats import ImportRefused
from planner.netbox.forms import NetboxImportForm
from planner.netbox.readers import NetboxFile
from planner.netbox.results import ImportOptions, ImportResult
from planner.netbox.selectors import netbox_link_summary
from planner.netbox.services import netbox_import, netbox_import_team
from planner.versioning import StaleVersionError
from planner.web.imports import PendingUploads

# Uploads waiting for "Import" live in the session (planner.web.imports), one at a time.
PENDING = PendingUploads("netbox_imports", keep=1)
TEMPLATE = "planner/netbox/import.html"


def _owner(request: HttpRequest) -> str:
    return f"netbox:{netbox_import_team(request.user).pk}:{request.user.pk}"


def _pack(files: list[NetboxFile]) -> bytes:
    return json.dumps([[f.name, base64.b64encode(f.data).decode("ascii")] for f in files]).encode()


def _unpack(data: bytes) -> list[NetboxFile]:
    return [NetboxFile(name, base64.b64decode(text)) for name, text in json.loads(data)]


def _options_json(options: ImportOptions) -> dict[str, Any]:
    return {
        k: str(v) if isinstance(v, Decimal) else v for k, v in dataclasses.asdict(options).items()
    }


def _page(request, *, form=None, result=None, problems=None, token=None, error=None, status=200):
    return render(
        request,
        TEMPLATE,
        {
            "form": form or NetboxImportForm(),
            "result": result,
            "writes": [c for c in result.changes if c.action in ("created", "updated")]
            if result
            else [],
            "left": [c for c in result.changes if c.action not in ("created", "updated")]
            if result
            else [],
            "problems": problems or [],
            "token": token,
            "error": error,
            "linked": netbox_link_summary(user=request.user),
        },
        status=status,
    )


@require_http_methods(["GET", "POST"])
def netbox_import_view(request: HttpRequest) -> HttpResponse:
    """GET: the form. POST files: the dry run's preview. POST token: the import it previewed."""
    owner = _owner(request)  # facility people of a team only
    if request.method == "GET":
        return _page(request)
    if "token" in request.POST:
        return _commit(request, owner)
    form = NetboxImportForm(request.POST, request.FILES)
    if not form.is_valid():
        return _page(request, form=form, status=400)
    files = [NetboxFile(f.name, f.read()) for f in form.cleaned_data["files"]]
    options = form.options()
    try:
        result = netbox_import(user=request.user, files=files, options=options, dry_run=True)
    except ImportRefused as refused:
        return _page(request, form=form, problems=refused.problems, status=400)
    token = None
    if result.writes:
        versions = {"fingerprint": result.fingerprint(), "options": _options_json(options)}
        token = PENDING.store(request, owner=owner, data=_pack(files), versions=versions)
    return _page(request, form=form, result=result, token=token)


def _commit(request: HttpRequest, owner: str) -> HttpResponse:
    pending = PENDING.take(request, owner=owner, token=request.POST["token"])
    if pending is None:
        error = _("This upload has expired or was already imported; upload the files again.")
        return _page(request, error=error, status=400)
    data, versions = pending
    try:
        result = netbox_import(
            user=request.user,
            files=_unpack(data),
            options=ImportOptions.of(versions["options"]),
            expected=versions["fingerprint"],
        )
    except ImportRefused as refused:
        return _page(request, problems=refused.problems, status=400)
    except StaleVersionError:
        error = _("Your racks changed since the preview; nothing was imported. Upload again.")
        return _page(request, error=error, status=409)
    return _imported(request, result)


def _imported(request: HttpRequest, result: ImportResult) -> HttpResponse:
    counts = result.counts
    messages.success(
        request,
        ngettext(
            "NetBox import: %(count)d row created, %(updated)d updated, %(unchanged)d unchanged.",
            "NetBox import: %(count)d rows created, %(updated)d updated, %(unchanged)d unchanged.",
            counts["created"],
        )
        % {
            "count": counts["created"],
            "updated": counts["updated"],
            "unchanged": counts["unchanged"],
        },
    )
    for note in result.notes:
        messages.info(request, note)
    return redirect("planner:site_list")
