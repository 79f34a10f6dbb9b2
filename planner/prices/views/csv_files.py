"""CSV import and export of a team's prices, with the same preview-then-commit flow as rack
groups: upload -> every row checked, nothing saved -> "Import N rows", which checks the file
again and saves all of it or none."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import content_disposition_header
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_GET, require_http_methods

from accounts.services import user_team
from planner.models import Price
from planner.prices import services as price_services
from planner.prices.csv_rows import CSV_COLUMNS, PriceCsvPreview
from planner.prices.forms import PriceImportForm
from planner.versioning import ConflictError, StaleVersionError
from planner.web.imports import PendingUploads, preview_rows
from planner.web.roles import writer_team

PENDING_IMPORTS = PendingUploads("price_imports")
EXPORTS = ("team", "reference")


def _import_owner(team) -> str:
    return f"team:{team.pk}"


@require_GET
def price_export(request: HttpRequest) -> HttpResponse:
    """The team's prices in use (`?which=team`, the default), or the reference list
    (`?which=reference`, without ids: imported, its rows become the team's own)."""
    which = request.GET.get("which", "team")
    if which not in EXPORTS:
        which = "team"
    team = user_team(request.user)
    prices = Price.objects.filter(retired_at__isnull=True).select_related(
        "accelerator", "server", "fabric"
    )
    if which == "reference":
        prices = prices.filter(team__isnull=True)
    else:
        prices = prices.filter(team=team) if team is not None else prices.none()
    prices = prices.order_by("item_kind", "kind", "price_date", "pk")
    response = HttpResponse(
        price_services.price_export_csv(prices=prices), content_type="text/csv; charset=utf-8"
    )
    name = "reference-prices" if which == "reference" else f"{team.slug if team else 'no'}-prices"
    response["Content-Disposition"] = content_disposition_header(
        as_attachment=True, filename=f"{name}.csv"
    )
    return response


def _import_page(
    request: HttpRequest,
    *,
    form: PriceImportForm,
    preview: PriceCsvPreview | None = None,
    token: str | None = None,
    error: str | None = None,
    status: int = 200,
) -> HttpResponse:
    return render(
        request,
        "planner/prices/price_import.html",
        {
            "form": form,
            "preview": preview,
            "rows": preview_rows(preview, CSV_COLUMNS) if preview else [],
            "bad_rows": preview.bad_rows if preview else 0,
            "actions": preview.actions if preview and preview.ok else None,
            "token": token,
            "error": error,
            "columns": CSV_COLUMNS,
        },
        status=status,
    )


@require_http_methods(["GET", "POST"])
def price_import(request: HttpRequest) -> HttpResponse:
    team = writer_team(request.user)
    if request.method == "GET":
        return _import_page(request, form=PriceImportForm())
    if "token" in request.POST:
        return _price_import_commit(request, team)
    form = PriceImportForm(request.POST, request.FILES)
    if not form.is_valid():
        return _import_page(request, form=form)
    data = form.cleaned_data["file"].read()
    preview = price_services.price_csv_preview(team=team, data=data)
    token = (
        PENDING_IMPORTS.store(
            request, owner=_import_owner(team), data=data, versions=preview.versions
        )
        if preview.ok
        else None
    )
    return _import_page(request, form=PriceImportForm(), preview=preview, token=token)


def _price_import_commit(request: HttpRequest, team) -> HttpResponse:
    pending = PENDING_IMPORTS.take(request, owner=_import_owner(team), token=request.POST["token"])
    if pending is None:
        return _import_page(
            request,
            form=PriceImportForm(),
            error=_("This upload has expired or was already imported; upload the file again."),
            status=400,
        )
    data, versions = pending
    try:
        result = price_services.price_import_csv(
            team=team, user=request.user, data=data, expected_versions=versions
        )
    except (ConflictError, StaleVersionError, ValidationError):
        # Someone changed the team's prices between the preview and the import: importing
        # now would overwrite what the preview did not show.
        return _import_page(
            request,
            form=PriceImportForm(),
            error=_(
                "Your team's prices changed since the preview; nothing was imported. Upload again."
            ),
            status=409,
        )
    if not result.ok:
        return _import_page(request, form=PriceImportForm(), preview=result)
    actions = result.actions
    messages.success(
        request,
        ngettext(
            "Imported %(count)d price: %(added)d added, %(changed)d changed.",
            "Imported %(count)d prices: %(added)d added, %(changed)d changed.",
            len(result.rows),
        )
        % {"count": len(result.rows), "added": actions["add"], "changed": actions["change"]},
    )
    return redirect(reverse("planner:price_list") + "?owner=team")
