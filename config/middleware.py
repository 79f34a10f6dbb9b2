"""The API's edges: request bodies capped before anything reads them, and errors answered as
JSON even where no API view ran.

DRF parses JSON straight from the stream, so Django's DATA_UPLOAD_MAX_MEMORY_SIZE (which only
`request.body` and form parsing check) would not stop a 1 GB JSON document: this middleware
answers 413 first. A body sent without a Content-Length (chunked) is one Django would read as
empty; where the server has already ended the stream for us (`wsgi.input_terminated`, as
gunicorn does for chunked requests) it is read here up to the cap and handed on with its
length, and refused with 413 past the cap."""

from __future__ import annotations

import io

from django.conf import settings
from django.core.handlers.wsgi import LimitedStream
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils.translation import gettext as _

API_PREFIX = "/api/"


def _too_large(limit_bytes: int) -> JsonResponse:
    return JsonResponse(
        {"detail": _("The request body is larger than %(limit)d bytes.") % {"limit": limit_bytes}},
        status=413,
    )


class BodySizeLimitMiddleware:
    """413 with a JSON `detail` for an /api/ request whose body exceeds
    FLOPFIT_MAX_BODY_BYTES, whether it says so in Content-Length or reads longer."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.path.startswith(API_PREFIX):
            refused = self._refuse(request, settings.FLOPFIT_MAX_BODY_BYTES)
            if refused is not None:
                return refused
        return self.get_response(request)

    def _refuse(self, request: HttpRequest, limit_bytes: int) -> HttpResponse | None:
        declared = request.META.get("CONTENT_LENGTH")
        if declared:
            try:
                length_bytes = int(declared)
            except ValueError:
                length_bytes = -1
            if length_bytes < 0:
                return JsonResponse(
                    {"detail": _("Content-Length is not a number of bytes.")}, status=400
                )
            return _too_large(limit_bytes) if length_bytes > limit_bytes else None
        if not request.META.get("wsgi.input_terminated"):
            return None  # no length and no end: Django reads no body, so there is none to cap
        raw = request.META["wsgi.input"]
        body = raw.read(limit_bytes + 1)
        if len(body) > limit_bytes:
            return _too_large(limit_bytes)
        # Hand the body on as if its length had been sent, so the parsers read it.
        request.META["CONTENT_LENGTH"] = str(len(body))
        request._stream = LimitedStream(io.BytesIO(body), len(body))
        return None


class ApiErrorsAsJsonMiddleware:
    """An /api/ error that no API view answered (no URL matched, a request Django refused
    before any view ran) comes back as JSON `{"detail": ...}` like every other API error, not
    as the HTML page a browser would get."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if (
            request.path.startswith(API_PREFIX)
            and response.status_code >= 400
            and response.get("Content-Type", "").startswith("text/html")
        ):
            return JsonResponse({"detail": response.reason_phrase}, status=response.status_code)
        return response
