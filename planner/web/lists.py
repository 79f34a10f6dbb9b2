"""What every planner list page does: one page of rows, the query string its pager links keep, and
the whole page or, for an htmx request, its results alone (templates/planner/list_page.html)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from django.core.paginator import Page, Paginator
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from planner.web.htmx import partial_wanted

LIST_PAGE_SIZE = 50
LIST_TEMPLATE = "planner/list_page.html"


def list_page(
    request: HttpRequest, items: QuerySet | Sequence, *, size: int = LIST_PAGE_SIZE
) -> tuple[Page, str]:
    """The page of `items` the query string asks for, and the query string without its page
    number, for the pager's links."""
    page = Paginator(items, size).get_page(request.GET.get("page"))
    query = request.GET.copy()
    query.pop("page", None)
    return page, query.urlencode()


def render_list(request: HttpRequest, template: str, context: dict[str, Any]) -> HttpResponse:
    """`template` (which extends the list page and defines its `table` partial) in full, or, for
    an htmx GET, the list page's `results` partial holding that table."""
    context = {**context, "table": f"{template}#table"}
    if request.method == "GET" and partial_wanted(request):
        template = f"{LIST_TEMPLATE}#results"
    return render(request, template, context)


def render_filtered_list(
    request: HttpRequest,
    template: str,
    filterset: Any,
    *,
    row: Callable[[Any], Any],
    size: int = LIST_PAGE_SIZE,
    **context: Any,
) -> HttpResponse:
    """A list page of what `filterset` lets through: its filter form, one page of rows, each
    as `row` presents it, and the pager's query string (`filtered` when there is one)."""
    page, query = list_page(request, filterset.qs, size=size)
    rows = [row(item) for item in page]
    return render_list(
        request,
        template,
        {"filter": filterset, "filtered": bool(query), "page": page, "rows": rows, "query": query}
        | context,
    )
