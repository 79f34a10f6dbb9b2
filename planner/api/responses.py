"""Bodies and responses every planner endpoint documents the same way, and the answers of the
endpoints that create a row."""

from collections.abc import Callable
from typing import Any

from django.db.models import Model
from django.urls import reverse
from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_field,
    extend_schema_view,
)
from rest_framework import serializers, status
from rest_framework.response import Response

from planner.engine import RequestError
from planner.messages.render import error_message
from planner.simulations.services import QueueUnavailable

# How long a client should wait before asking again when the task queue is down (seconds).
RETRY_AFTER_S = 30


@extend_schema_field({"type": ["object", "null"]})
class ObjectOrNullField(serializers.JSONField):
    """A stored JSON object, or null. OpenAPI 3.1 says so as one type list; drf-spectacular's
    own rendering of a nullable JSON field (oneOf any-or-null) matches null twice."""

    def __init__(self, **kwargs):
        super().__init__(read_only=True, **kwargs)


@extend_schema_field({})
class AnyJsonField(serializers.JSONField):
    """Any JSON value, null included."""


class DetailSerializer(serializers.Serializer):
    detail = serializers.CharField()


class FieldErrorsSerializer(serializers.Serializer):
    """`{"<field path>": ["message"]}`, e.g. `{"parallelism.tp": ["must divide the model's 32 attention heads"]}`."""

    field = serializers.ListField(child=serializers.CharField(), required=False)


UNAUTHENTICATED = OpenApiResponse(
    DetailSerializer, description="No credentials, or a wrong or revoked token."
)


def detail_response(description: str) -> OpenApiResponse:
    """A `{"detail": "..."}` answer (403, 404, 503...), documented with what it means here."""
    return OpenApiResponse(DetailSerializer, description=description)


def field_errors_response(description: str) -> OpenApiResponse:
    """The 400 of a question the engine finds wrong, documented with an example key."""
    return OpenApiResponse(FieldErrorsSerializer, description=description)


def field_errors_example(value: dict[str, list[str]], name: str = "Bad field") -> OpenApiExample:
    return OpenApiExample(name, value=value, response_only=True, status_codes=["400"])


def list_docs(*, summary: str, serializer: type[serializers.Serializer]) -> Any:
    """extend_schema for GET of a list of rows, as `serializer` writes each."""
    return extend_schema(
        summary=summary, responses={200: serializer(many=True), 401: UNAUTHENTICATED}
    )


def create_docs(
    *,
    summary: str,
    description: str,
    request: Any,
    responses: dict[int, Any],
    invalid: str,
    forbidden: OpenApiResponse,
    location: str | None = None,
    parameters: list | None = None,
    **options: Any,
) -> Any:
    """extend_schema for a POST that makes (or queues) a row: `responses` with the 400 of a
    question the engine finds wrong (`invalid` says what it names) and the 401 and 403 every
    planner write answers, in status order; `location` describes the Location header of its
    successful answers."""
    every = {
        **responses,
        400: field_errors_response(invalid),
        401: UNAUTHENTICATED,
        403: forbidden,
    }
    successes = [code for code in sorted(responses) if 200 <= code < 300]
    headers = [location_header(location, statuses=successes)] if location else []
    return extend_schema(
        summary=summary,
        description=description,
        request=request,
        parameters=[*headers, *(parameters or [])] or None,
        responses=dict(sorted(every.items())),
        **options,
    )


def location_header(description: str, *, statuses: list[int]) -> OpenApiParameter:
    """The Location header a POST answers with: the row to read or poll next."""
    return OpenApiParameter(
        "Location",
        OpenApiTypes.STR,
        location=OpenApiParameter.HEADER,
        response=statuses,
        description=description,
    )


# An action on a row that takes no fields (rank, release, commit, cancel); a body, if sent, is
# an empty JSON object (so a body that is too large is a 413 and one that is not JSON a 415, as
# everywhere in the API).
NO_BODY = {
    "application/json": {
        "type": "object",
        "maxProperties": 0,
        "description": "Nothing, or an empty object",
    }
}


def documented(tag: str, **operations: Any) -> Callable[[type], type]:
    """A view's tag in the OpenAPI document and its operations' docs, e.g.
    `@documented("plans", get=one_docs(...))`."""

    def decorate(view: type) -> type:
        return extend_schema(tags=[tag])(extend_schema_view(**operations)(view))

    return decorate


def one_docs(*, summary: str, serializer: Any, not_found: OpenApiResponse) -> Any:
    """extend_schema for GET of one row, 404 when the user may not see it."""
    return extend_schema(
        summary=summary, responses={200: serializer, 401: UNAUTHENTICATED, 404: not_found}
    )


def collection_docs(tag: str, *, summary: str, post: Any) -> Callable[[type], type]:
    """A list view's docs: GET of its rows, as its `serializer_class` writes each, and the
    `post` (create_docs) that adds one."""

    def decorate(view: type) -> type:
        get = list_docs(summary=summary, serializer=view.serializer_class)  # type: ignore[attr-defined]
        return documented(tag, get=get, post=post)(view)

    return decorate


def row_docs(
    tag: str, *, summary: str, not_found: OpenApiResponse, **operations: Any
) -> Callable[[type], type]:
    """A detail view's docs: GET of one row as its `serializer_class` writes it (404 when the
    user may not see it), and any other `operations` (`delete=extend_schema(...)`)."""

    def decorate(view: type) -> type:
        serializer = view.serializer_class  # type: ignore[attr-defined]
        get = one_docs(summary=summary, serializer=serializer, not_found=not_found)
        return documented(tag, get=get, **operations)(view)

    return decorate


def field_errors(exc: RequestError) -> Response:
    """400 `{"<field path>": ["message in the reader's language"]}` for what the engine found
    wrong in a question."""
    return Response(
        {exc.field or "request": [error_message(exc)]}, status=status.HTTP_400_BAD_REQUEST
    )


def engine_answer(answer: Callable[[], Any]) -> Response:
    """200 with the engine's answer to a question, or 400 naming the field it got wrong."""
    try:
        return Response(answer())
    except RequestError as exc:
        return field_errors(exc)


def question_docs(
    operation_id: str,
    *,
    question: Any,
    answer: Any,
    bad_field: str,
    examples: list,
    tag: str,
    **responses: Any,
) -> Any:
    """The schema of a view that answers one engine question (estimate, fit, compat): the
    contract's question and answer, 400 `bad_field` naming the field, and any other responses
    given by status (`r403=...`)."""
    extra = {int(code.removeprefix("r")): response for code, response in responses.items()}
    return extend_schema(
        operation_id=operation_id,
        request=question,
        responses={200: answer, 400: field_errors_response(bad_field), **extra},
        examples=examples,
        tags=[tag],
    )


def created(
    create: Callable[[], tuple[Model, int]],
    *,
    serialize: Callable[[Model], Any],
    detail_view: str,
) -> Response:
    """What a POST that makes a row answers. `create` calls the service and gives the row and
    the status to answer with (201, or 202/200 for a queued run); the answer is the row as
    `serialize` writes it, with its Location (the `detail_view` route). A question the engine
    finds wrong is a 400 naming the field; a task queue that does not answer is a 503 with
    Retry-After, nothing queued."""
    try:
        row, code = create()
    except RequestError as exc:
        return field_errors(exc)
    except QueueUnavailable:
        return Response(
            {"detail": _("The task queue did not answer, so nothing was queued. Try again.")},
            status=status.HTTP_503_SERVICE_UNAVAILABLE,
            headers={"Retry-After": str(RETRY_AFTER_S)},
        )
    return Response(
        serialize(row),
        status=code,
        headers={"Location": reverse(detail_view, kwargs={"pk": row.pk})},
    )
