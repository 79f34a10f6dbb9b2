"""Answers the browser saves as a file instead of showing."""

from __future__ import annotations

from typing import Any, TypeVar

from django.http import HttpResponse
from django.utils.http import content_disposition_header
from django.utils.text import slugify

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


def file_name(kind: str, record: Any, what: str, extension: str = "csv") -> str:
    """A download's name that says where it came from: `site-3-hall-a-racks.csv` (a name with
    nothing ASCII in it leaves its part out)."""
    parts = [kind, str(record.pk), slugify(record.name), what]
    return "-".join(filter(None, parts)) + f".{extension}"
