"""A feature's conventional pages, routed and named by one rule, so its urls.py lists only
what differs: the page `edit` of the noun `site` lives at `sites/<int:pk>/edit/`, is named
`site_edit` and is served by the view `site_edit`."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any

from django.urls import URLPattern, path

# Each conventional page's route after the feature's prefix.
PAGE_ROUTES = {
    "list": "",
    "create": "new/",
    "import": "import/",
    "export": "export/",
    "detail": "<int:pk>/",
    "edit": "<int:pk>/edit/",
    "copy": "<int:pk>/copy/",
    "compare": "<int:pk>/compare/",
    "delete": "<int:pk>/delete/",
    "remove": "<int:pk>/remove/",
    "retire": "<int:pk>/retire/",
    "cancel": "<int:pk>/cancel/",
    "report": "<int:pk>/report/",
    "sweep": "<int:pk>/sweep/",
}


def pages(
    prefix: str, noun: str, views: ModuleType, *names: str, **named_views: Callable[..., Any]
) -> list[URLPattern]:
    """The pages `names` of `noun` under `prefix`, each served by the view `<noun>_<page>` in
    `views`; a page given by keyword is served by that view instead (where a service already
    holds the conventional name)."""
    served = {page: getattr(views, f"{noun}_{page}") for page in names} | named_views
    return [
        path(prefix + PAGE_ROUTES[page], view, name=f"{noun}_{page}")
        for page, view in served.items()
    ]


def under(prefix: str, noun: str, **routes: tuple[str, Callable[..., Any]]) -> list[URLPattern]:
    """Pages below one record's own URL (`prefix<int:pk>/`) beyond the conventional ones: the
    keyword `page=(route, view)` is served at `prefix<int:pk>/route` and named `<noun>_<page>`."""
    return [
        path(f"{prefix}<int:pk>/{route}", view, name=f"{noun}_{page}")
        for page, (route, view) in routes.items()
    ]
