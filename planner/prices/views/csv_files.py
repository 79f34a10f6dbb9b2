"""CSV import and export of a team's prices, with the same preview-then-commit flow as rack
groups: upload -> every row checked, nothing saved -> "Import N rows", which checks the file
again and saves all of it or none."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.urls import reverse
from django.utils.translation import gettext_lazy, ngettext_lazy
from django.views.decorators.http import require_GET, require_http_methods

from accounts.services import user_team
from planner.models import Price
from planner.prices import services as price_services
from planner.prices.csv_rows import PriceCsvPreview
from planner.prices.forms import PriceImportForm
from planner.web.downloads import csv_download
from planner.web.imports import CsvImportFlow, PendingUploads
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
    name = "reference-prices" if which == "reference" else f"{team.slug if team else 'no'}-prices"
    return csv_download(price_services.price_export_csv(prices=prices), f"{name}.csv")


PRICE_IMPORT = CsvImportFlow(
    template="planner/prices/price_import.html",
    form_class=PriceImportForm,
    uploads=PENDING_IMPORTS,
    changed_error=gettext_lazy(
        "Your team's prices changed since the preview; nothing was imported. Upload again."
    ),
    imported_message=ngettext_lazy(
        "Imported %(count)d price: %(added)d added, %(changed)d changed.",
        "Imported %(count)d prices: %(added)d added, %(changed)d changed.",
        "count",
    ),
)


def _import_context(preview: PriceCsvPreview | None) -> dict:
    return {"actions": preview.actions if preview and preview.ok else None}


@require_http_methods(["GET", "POST"])
def price_import(request: HttpRequest) -> HttpResponse:
    team = writer_team(request.user)
    return PRICE_IMPORT.respond(
        request,
        owner=_import_owner(team),
        context=_import_context,
        check=lambda data: price_services.price_csv_preview(team=team, data=data),
        save=lambda data, versions: price_services.price_import_csv(
            team=team, user=request.user, data=data, expected_versions=versions
        ),
        back=reverse("planner:price_list") + "?owner=team",
        said=lambda result: {"added": result.actions["add"], "changed": result.actions["change"]},
    )
