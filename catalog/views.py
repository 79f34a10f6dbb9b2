"""Catalog pages. Every list is catalog/filter_list.html, whose `results` partial is what HTMX
swaps, with the `table` partial of the list's own template."""

from django.contrib.auth.decorators import login_not_required
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST
from django.views.decorators.vary import vary_on_headers

from catalog.choices import Currency
from catalog.context_processors import SESSION_KEY
from catalog.filtersets import (
    AcceleratorFilterSet,
    FabricFilterSet,
    ModelArchitectureFilterSet,
    ServerPlatformFilterSet,
)
from catalog.models import Accelerator, Fabric, ModelArchitecture, ServerPlatform
from catalog.selectors import (
    MAX_COMPARE,
    accelerator_comparison,
    accelerators_by_slugs,
    catalog_last_load,
    catalog_version,
)

PAGE_SIZE = 50
LIST_CACHE_S = 600


def _filtered_list(request: HttpRequest, filterset_class, template: str, **extra) -> HttpResponse:
    filterset = filterset_class(
        request.GET or None, queryset=filterset_class.Meta.model.objects.all()
    )
    page = Paginator(filterset.qs, PAGE_SIZE).get_page(request.GET.get("page"))
    query = request.GET.copy()
    query.pop("page", None)
    context = {
        "filter": filterset,
        "page": page,
        "query": query.urlencode(),
        # The rendered filters and results are cached per query, language, currency and
        # version of the catalog (nothing personal in them).
        "catalog_version": catalog_version(filterset_class.Meta.model),
        "fragment_cache_s": LIST_CACHE_S,
        "table": f"{template}#table",
        **extra,
    }
    if request.htmx and not request.htmx.boosted:
        template = "catalog/filter_list.html#results"
    return render(request, template, context)


@login_not_required
@require_GET
def home(request: HttpRequest) -> HttpResponse:
    return render(
        request,
        "catalog/home.html",
        {
            "counts": {
                "accelerators": Accelerator.objects.count(),
                "servers": ServerPlatform.objects.count(),
                "fabrics": Fabric.objects.count(),
                "models": ModelArchitecture.objects.count(),
            },
            "last_load": catalog_last_load(),
        },
    )


@login_not_required
@require_GET
@vary_on_headers("HX-Request")
def accelerator_list(request: HttpRequest) -> HttpResponse:
    return _filtered_list(
        request, AcceleratorFilterSet, "catalog/accelerator_list.html", max_compare=MAX_COMPARE
    )


@login_not_required
@require_GET
def accelerator_detail(request: HttpRequest, slug: str) -> HttpResponse:
    accelerator = get_object_or_404(Accelerator, slug=slug)
    return render(
        request,
        "catalog/accelerator_detail.html",
        {"item": accelerator, "servers": ServerPlatform.objects.order_by("name")},
    )


@login_not_required
@require_GET
def accelerator_compare(request: HttpRequest) -> HttpResponse:
    slugs = [s for s in request.GET.getlist("slugs") if s]
    error = None
    if len(slugs) > MAX_COMPARE:
        error = _("Compare at most %(n)d accelerators; the first %(n)d are shown.") % {
            "n": MAX_COMPARE
        }
        slugs = slugs[:MAX_COMPARE]
    accelerators = accelerators_by_slugs(slugs=slugs)
    if len(accelerators) < len(dict.fromkeys(slugs)):
        error = _("Some accelerators were not found and are left out.")
    status = 200
    if len(accelerators) < 2:
        error = error or _("Pick two to four accelerators to compare.")
        status = 400 if slugs else 200
    return render(
        request,
        "catalog/accelerator_compare.html",
        {
            "comparison": accelerator_comparison(accelerators=accelerators),
            "error": error,
            "all_accelerators": Accelerator.objects.order_by("vendor", "name"),
            "pickers": [a.slug for a in accelerators] + [""] * (MAX_COMPARE - len(accelerators)),
        },
        status=status,
    )


@login_not_required
@require_GET
@vary_on_headers("HX-Request")
def server_list(request: HttpRequest) -> HttpResponse:
    return _filtered_list(request, ServerPlatformFilterSet, "catalog/server_list.html")


@login_not_required
@require_GET
def server_detail(request: HttpRequest, slug: str) -> HttpResponse:
    server = get_object_or_404(
        ServerPlatform.objects.select_related("fixed_accelerator"), slug=slug
    )
    fits = Accelerator.objects.filter(slug__in=server.accepts).order_by("vendor", "name")
    return render(request, "catalog/server_detail.html", {"item": server, "fits": fits})


@login_not_required
@require_GET
@vary_on_headers("HX-Request")
def fabric_list(request: HttpRequest) -> HttpResponse:
    return _filtered_list(request, FabricFilterSet, "catalog/fabric_list.html")


@login_not_required
@require_GET
def fabric_detail(request: HttpRequest, slug: str) -> HttpResponse:
    return render(
        request, "catalog/fabric_detail.html", {"item": get_object_or_404(Fabric, slug=slug)}
    )


@login_not_required
@require_GET
@vary_on_headers("HX-Request")
def model_list(request: HttpRequest) -> HttpResponse:
    return _filtered_list(request, ModelArchitectureFilterSet, "catalog/model_list.html")


@login_not_required
@require_GET
def model_detail(request: HttpRequest, slug: str) -> HttpResponse:
    return render(
        request,
        "catalog/model_detail.html",
        {"item": get_object_or_404(ModelArchitecture, slug=slug)},
    )


@login_not_required
@require_POST
def set_currency(request: HttpRequest) -> HttpResponse:
    chosen = request.POST.get("currency")
    if chosen in Currency.values:
        request.session[SESSION_KEY] = chosen
    target = request.POST.get("next") or "/"
    if not url_has_allowed_host_and_scheme(target, {request.get_host()}, request.is_secure()):
        target = "/"
    return redirect(target)
