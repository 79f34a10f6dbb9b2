"""Answers the browser saves as a file instead of showing."""

from __future__ import annotations

from typing import TypeVar

from django.http import HttpResponse
from django.utils.http import content_disposition_header

CSV_CONTENT_TYPE = "text/csv; charset=utf-8"

R = TypeVar("R", bound=HttpResponse)


def as_download(response: R, filename: str) -> R:
    """`response`, saved by the browser as `filename`."""
    response["Content-Disposition"] = content_disposition_header(
        as_attachment=True, filename=filename
    )
    return response


def csv_download(text: str, filename: str) -> HttpResponse:
    """CSV text, saved by the browser as `filename`."""
    return as_download(HttpResponse(text, content_type=CSV_CONTENT_TYPE), filename)
