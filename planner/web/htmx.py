"""When a request wants a piece of a page rather than the whole."""

from __future__ import annotations

from django.http import HttpRequest


def partial_wanted(request: HttpRequest) -> bool:
    """An htmx request for a piece of the page; a boosted link or a history restore wants it
    whole."""
    htmx = request.htmx
    return bool(htmx) and not htmx.boosted and not htmx.history_restore_request
