"""The API's last net for database errors. Serializers and filters validate first; what still
reaches the database and is refused there answers 409 (a constraint: another row, or a rule
the row breaks) or 400 (a value the column cannot hold), never a 500, and the cause is logged
so the missing validation can be added where it belongs."""

from __future__ import annotations

import logging

from django.db import DataError, IntegrityError
from django.utils.translation import gettext_lazy as _
from rest_framework import status
from rest_framework.response import Response
from rest_framework.views import exception_handler

log = logging.getLogger(__name__)

# psycopg refuses a string with a NUL byte before it reaches PostgreSQL, as a plain ValueError
# (psycopg/types/string.py); only that message is a client's fault, every other ValueError
# stays a 500 that someone must look at.
NUL_MESSAGE = "cannot contain NUL (0x00) characters"


def _view_name(context: dict) -> str:
    view = context.get("view")
    return type(view).__name__ if view is not None else "?"


def api_exception_handler(exc: Exception, context: dict) -> Response | None:
    """DRF's handler, then database refusals mapped to a JSON `detail` with 409 or 400."""
    response = exception_handler(exc, context)
    if response is not None:
        return response
    if isinstance(exc, IntegrityError):
        log.warning("integrity error answered 409 in %s: %s", _view_name(context), exc)
        return Response(
            {"detail": _("The change conflicts with data already stored.")},
            status=status.HTTP_409_CONFLICT,
        )
    if isinstance(exc, DataError):
        log.warning("data error answered 400 in %s: %s", _view_name(context), exc)
        return Response(
            {"detail": _("A value is out of range or of the wrong kind for where it is stored.")},
            status=status.HTTP_400_BAD_REQUEST,
        )
    if isinstance(exc, ValueError) and NUL_MESSAGE in str(exc):
        log.warning("NUL character answered 400 in %s", _view_name(context))
        return Response(
            {"detail": _("Text may not contain NUL (0x00) characters.")},
            status=status.HTTP_400_BAD_REQUEST,
        )
    return None
