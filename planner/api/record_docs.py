"""How a versioned record's viewset is documented in the OpenAPI document: the answers every
record shares (400, 409, 412, 428, 304), its ETag and If-Match headers, and the docs of each
action (`crud_docs`), put on the viewset by `record_docs`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
)

from planner.api.responses import (
    UNAUTHENTICATED,
    DetailSerializer,
    FieldErrorsSerializer,
    documented,
)
from planner.api.serializers import (
    ConflictSerializer,
    HistoryEntrySerializer,
    PreconditionFailedSerializer,
)
from planner.api.versioned import etag_kind

INVALID = OpenApiResponse(
    FieldErrorsSerializer,
    description='A field is missing or wrong; the key names it, e.g. {"pue": ["Ensure this '
    'value is less than or equal to 3.0."]}. Rules across fields come under non_field_errors.',
)
CONFLICT = OpenApiResponse(
    ConflictSerializer,
    description='Another row already holds the value, e.g. {"field": "name", "detail": "Your '
    'team already has a site named “Hall A”."}.',
)


PRECONDITION_FAILED = OpenApiResponse(
    PreconditionFailedSerializer,
    description="If-Match names a version that is no longer current: someone else changed or "
    "deleted the row after you read it. Nothing was written; the ETag header and "
    "current_etag name the version now. Read it again, re-apply your change, and retry.",
)
PRECONDITION_REQUIRED = OpenApiResponse(
    DetailSerializer,
    description="The write had no If-Match header. Every change names the version it was made "
    "from, so it can never overwrite a change you have not seen.",
)
NOT_MODIFIED = OpenApiResponse(
    description="If-None-Match names the current ETag: your copy is still current. No body."
)


def etag_header(noun: str, codes: list[int]) -> OpenApiParameter:
    return OpenApiParameter(
        "ETag",
        str,
        OpenApiParameter.HEADER,
        response=codes,
        description=f"A strong tag for this version of the {noun}; send it in If-Match to change "
        "or delete it. It changes on every write, and whenever anything in the body changes.",
    )


def etag_example(noun: str) -> str:
    """An ETag of the shape a `noun`'s answers carry (representation_etag), for examples."""
    return f'"{etag_kind(noun)}-7-v2-5c1d8e0a9b3f"'


def if_match_header(noun: str) -> OpenApiParameter:
    return OpenApiParameter(
        "If-Match",
        str,
        OpenApiParameter.HEADER,
        required=True,
        examples=[OpenApiExample("ETag from a GET", value=etag_example(noun))],
        description=f"The ETag of the {noun} as you last read it (from GET or from your previous "
        "write). Without it the answer is 428, with a stale one 412; in both cases nothing "
        "is written.",
    )


def crud_docs(
    serializer,
    *,
    noun: str,
    forbidden: OpenApiResponse,
    not_found: OpenApiResponse,
    delete_conflicts: bool = False,
) -> dict:
    """extend_schema for each action of a ModelViewSet with the history action; `forbidden`
    and `not_found` say who may write and what is hidden from whom."""
    history = extend_schema(
        summary=f"Versions of one {noun}, newest first",
        parameters=[
            OpenApiParameter("page", int, description="A page number within the versions."),
            OpenApiParameter("page_size", int, description="Versions per page, at most 200."),
        ],
        responses={200: HistoryEntrySerializer(many=True), 401: UNAUTHENTICATED, 404: not_found},
    )
    write = {400: INVALID, 401: UNAUTHENTICATED, 403: forbidden, 409: CONFLICT}
    guarded = {404: not_found, 412: PRECONDITION_FAILED, 428: PRECONDITION_REQUIRED}
    destroy = {204: None, 401: UNAUTHENTICATED, 403: forbidden, **guarded}
    if delete_conflicts:
        destroy[409] = CONFLICT
    if_match = if_match_header(noun)
    guarded_write = {
        "parameters": [if_match, etag_header(noun, [200, 412])],
        "responses": {200: serializer, **write, **guarded},
    }
    return {
        "list": extend_schema(
            summary=f"{noun.capitalize()}s you can see",
            responses={200: serializer(many=True), 400: INVALID, 401: UNAUTHENTICATED},
        ),
        "retrieve": extend_schema(
            parameters=[
                OpenApiParameter(
                    "If-None-Match",
                    str,
                    OpenApiParameter.HEADER,
                    description="An ETag you hold: 304 with no body while it is current.",
                ),
                etag_header(noun, [200, 304]),
            ],
            responses={200: serializer, 304: NOT_MODIFIED, 401: UNAUTHENTICATED, 404: not_found},
        ),
        "create": extend_schema(
            parameters=[etag_header(noun, [201])], responses={201: serializer, **write}
        ),
        "update": extend_schema(**guarded_write),
        "partial_update": extend_schema(**guarded_write),
        "destroy": extend_schema(
            parameters=[if_match, etag_header(noun, [412])], responses=destroy
        ),
        "history": history,
    }


def record_docs(
    tag: str,
    *,
    forbidden: OpenApiResponse,
    not_found: OpenApiResponse,
    delete_conflicts: bool = False,
    **actions: Any,
) -> Callable[[type], type]:
    """A record viewset's tag and the docs of its actions, from `crud_docs` for the viewset's
    own `serializer_class` and `noun`; `actions` replace or add an action's docs (a price's
    DELETE retires it, its `copy` action)."""

    def decorate(view: type) -> type:
        docs = crud_docs(
            view.serializer_class,  # type: ignore[attr-defined]
            noun=view.noun,  # type: ignore[attr-defined]
            forbidden=forbidden,
            not_found=not_found,
            delete_conflicts=delete_conflicts,
        )
        return documented(tag, **{**docs, **actions})(view)

    return decorate
