"""Rows that API clients change over HTTP without overwriting each other: ETags on every read
and write, If-Match on every change (428 without it, 412 when stale), If-None-Match on reads
(304), each row's history, and a service's refusals as 400 or 409 instead of a 500.

A versioned feature's ModelViewSet takes `VersionedMixin` and `HistoryMixin` (or is a
`RecordViewSet`), is documented with planner.api.record_docs, and wraps its service calls in
`service_errors`."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from django.core.exceptions import NON_FIELD_ERRORS
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db.models import QuerySet
from django.utils.http import parse_etags, quote_etag
from django.utils.translation import gettext_lazy as _
from rest_framework import status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import APIException, ValidationError
from rest_framework.permissions import SAFE_METHODS, BasePermission
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response
from rest_framework.serializers import as_serializer_error
from rest_framework.settings import api_settings

from planner.api.serializers import HistoryEntrySerializer
from planner.api.views import writer_team
from planner.history import history_of
from planner.versioning import ConflictError, StaleVersionError

# Django's codes for a value another row already holds (Model.unique_error_message).
UNIQUE_CODES = {"unique", "unique_together"}
# Hex digits of the representation's SHA-256 kept in an ETag: 48 bits, ample to tell apart
# the versions one row goes through.
ETAG_DIGEST_HEX = 12


class VersionedRowMeta:
    """What the Meta of a versioned row's serializer says alike: the version is the server's
    to raise (an edit names it in If-Match), and uniqueness is left to the save service's
    full_clean, which the view answers with a 409 (service_errors, below); DRF's own
    validators would answer a duplicate name with a 400."""

    read_only_fields = ["version"]
    validators: list = []


class Conflict(APIException):
    status_code = status.HTTP_409_CONFLICT
    default_detail = _("Another row already holds this value.")
    default_code = "conflict"


def conflict(*, field: str | None, message: str) -> Conflict:
    return Conflict({"field": field, "detail": message})


def _only_uniqueness(exc: DjangoValidationError) -> bool:
    if not hasattr(exc, "error_dict"):
        return False
    return all(e.code in UNIQUE_CODES for errors in exc.error_dict.values() for e in errors)


@contextmanager
def service_errors(*, conflict_field: str, conflict_message: str) -> Iterator[None]:
    """A service's model validation as 400 with field errors; a value another row already holds
    (caught by full_clean, or by the database in a race) as 409 naming the field."""
    try:
        yield
    except ConflictError:
        raise conflict(field=conflict_field, message=conflict_message) from None
    except DjangoValidationError as exc:
        if _only_uniqueness(exc):
            raise conflict(field=conflict_field, message=conflict_message) from None
        errors = as_serializer_error(exc)
        if NON_FIELD_ERRORS in errors:
            errors[api_settings.NON_FIELD_ERRORS_KEY] = errors.pop(NON_FIELD_ERRORS)
        raise ValidationError(errors) from None


@contextmanager
def refused_deletion() -> Iterator[None]:
    """A delete the service refuses (other rows still use this one) as 409 with its reason,
    naming no field."""
    try:
        yield
    except ConflictError as exc:
        raise conflict(field=None, message=str(exc)) from None
    except DjangoValidationError as exc:
        raise conflict(field=None, message=" ".join(exc.messages)) from None


def etag_kind(noun: str) -> str:
    """How an ETag names a row's kind: its noun, hyphenated ("rack-group")."""
    return noun.replace(" ", "-")


def representation_etag(kind: str, data: Mapping) -> str:
    """A strong ETag for one version of a row as the API shows it: kind, id and version for
    people to read, and a digest of the body, because a body can change without the row's
    version (a site's capacity is its rack groups')."""
    digest = hashlib.sha256(JSONRenderer().render(data)).hexdigest()[:ETAG_DIGEST_HEX]
    return quote_etag(f"{kind}-{data['id']}-v{data['version']}-{digest}")


def _if_match_passes(header: str, current: str) -> bool:
    """If-Match compares strongly (RFC 9110, 13.1.1): a weak tag W/"..." never matches."""
    tags = parse_etags(header)
    return tags == ["*"] or current in tags


def _if_none_match_passes(header: str, current: str) -> bool:
    """If-None-Match compares weakly (RFC 9110, 13.1.2): W/ is ignored."""
    tags = parse_etags(header)
    return tags != ["*"] and current not in [tag.removeprefix("W/") for tag in tags]


class VersionedMixin:
    """Optimistic concurrency over HTTP. Every read and write answers the row's ETag; a change
    or a delete must send it back in If-Match (428 without, 412 when stale). The check here
    answers most conflicts early; the service's compare-and-set on the version settles the
    ones that race past it, so two writers that read the same version never both win."""

    noun: str  # "rack group": in messages, and hyphenated in the ETag

    @property
    def etag_kind(self) -> str:
        return etag_kind(self.noun)

    def shown(self, instance) -> tuple[Mapping, str]:
        data = self.get_serializer(instance).data
        return data, representation_etag(self.etag_kind, data)

    def stale_response(self, current) -> Response:
        if current is None:
            body = {
                "detail": _("This %(noun)s was deleted after you read it.") % {"noun": self.noun},
                "current_version": None,
                "current_etag": None,
            }
            return Response(body, status=status.HTTP_412_PRECONDITION_FAILED)
        etag = self.shown(current)[1]
        body = {
            "detail": _(
                "This %(noun)s changed after you read it: it is at version %(version)d now, "
                "ETag %(etag)s. Read it again, re-apply your change and send that ETag in "
                "If-Match."
            )
            % {"noun": self.noun, "version": current.version, "etag": etag},
            "current_version": current.version,
            "current_etag": etag,
        }
        return Response(body, status=status.HTTP_412_PRECONDITION_FAILED, headers={"ETag": etag})

    def _unconditional(self, request) -> Response | None:
        """428 when a write names no version; None when it does."""
        if "If-Match" in request.headers:
            return None
        detail = _(
            "Send If-Match with the ETag of the %(noun)s as you last read it (GET it "
            "first), so this write cannot overwrite a change you have not seen."
        ) % {"noun": self.noun}
        return Response({"detail": detail}, status=status.HTTP_428_PRECONDITION_REQUIRED)

    def _outdated(self, request, instance) -> Response | None:
        """412 when If-Match does not name the current version of `instance`."""
        etag = self.shown(instance)[1]
        return (
            None
            if _if_match_passes(request.headers["If-Match"], etag)
            else self.stale_response(instance)
        )

    def precondition_refusal(self, request, instance) -> Response | None:
        """428 or 412 for a write to `instance` that names no version or an old one; None when
        it names the current one. For a feature's own write actions (retiring, say)."""
        return self._unconditional(request) or self._outdated(request, instance)

    def retrieve(self, request, *args, **kwargs) -> Response:
        data, etag = self.shown(self.get_object())
        header = request.headers.get("If-None-Match")
        if header is not None and not _if_none_match_passes(header, etag):
            return Response(status=status.HTTP_304_NOT_MODIFIED, headers={"ETag": etag})
        return Response(data, headers={"ETag": etag})

    def create(self, request, *args, **kwargs) -> Response:
        response = super().create(request, *args, **kwargs)
        response["ETag"] = representation_etag(self.etag_kind, response.data)
        return response

    def update(self, request, *args, **kwargs) -> Response:
        instance = self.get_object()
        refusal = self._unconditional(request)
        if refusal is not None:
            return refusal
        serializer = self.get_serializer(
            instance, data=request.data, partial=kwargs.get("partial", False)
        )
        # A body that could never be saved is a 400 whatever version it names; the version is
        # compared after, so 412 always means "valid, but someone else wrote first".
        serializer.is_valid(raise_exception=True)
        refusal = self._outdated(request, instance) or self._written(
            self.perform_update, serializer
        )
        if refusal is not None:
            return refusal
        # Fabrics were prefetched before the write; read them again for the answer.
        instance._prefetched_objects_cache = {}
        data = serializer.data
        return Response(data, headers={"ETag": representation_etag(self.etag_kind, data)})

    def destroy(self, request, *args, **kwargs) -> Response:
        instance = self.get_object()
        refusal = self.precondition_refusal(request, instance)
        if refusal is None:
            refusal = self._written(self.perform_destroy, instance)
        if refusal is not None:
            return refusal
        return Response(status=status.HTTP_204_NO_CONTENT)

    def _written(self, perform, target) -> Response | None:
        """None once `perform(target)` wrote; the 412 when the row moved on meanwhile."""
        try:
            perform(target)
        except StaleVersionError as exc:
            return self.stale_response(exc.current)
        return None


class HistoryMixin:
    @action(detail=True, methods=["get"], filter_backends=[])
    def history(self, request, pk=None) -> Response:
        """Who changed what and when: each version with its changed fields, old and new,
        paged like every list."""
        page = self.paginate_queryset(history_of(self.get_object()))
        return self.get_paginated_response(HistoryEntrySerializer(page, many=True).data)


class EditableRowsOnly(BasePermission):
    """Writes need a row the user may change (the view's `editable()`); rows the user cannot
    see never get here, the queryset answers 404 first. Reads, and the `open_actions` that
    only need to see the row, pass."""

    open_actions: tuple[str, ...] = ()

    def has_object_permission(self, request, view, obj) -> bool:
        if request.method in SAFE_METHODS or view.action in self.open_actions:
            return True
        return view.editable().filter(pk=obj.pk).exists()


@dataclass(frozen=True)
class RecordRows:
    """A versioned feature's reads and writes, found by the house's names (STYLE.md, habit 2):
    the selectors `<entity>_visible_to(user)` (the rows a user reads; others are a 404) and
    `<entity>_editable_by(user)`, and the services `<entity>_create(team=, user=, **fields)`,
    `<entity>_update(<row_arg>=row, **fields)` and `<entity>_<delete>(<row_arg>=row)`; with
    `names_writer`, update and delete take the writer too (`user=`). A missing one fails at
    import, not on the first request."""

    selectors: ModuleType
    services: ModuleType
    entity: str
    row_arg: str
    delete: str = "delete"
    names_writer: bool = False

    def __post_init__(self) -> None:
        for name in ("visible_to", "editable_by"):
            getattr(self.selectors, f"{self.entity}_{name}")
        for name in ("create", "update", self.delete):
            getattr(self.services, f"{self.entity}_{name}")

    def read(self, name: str, user) -> QuerySet:
        return getattr(self.selectors, f"{self.entity}_{name}")(user)

    def write(self, service: str, /, **arguments: Any) -> Any:
        # Positional-only: a row's own fields (a site's `name`) come in `arguments`.
        return getattr(self.services, f"{self.entity}_{service}")(**arguments)

    def row_args(self, row, user) -> dict[str, Any]:
        return {self.row_arg: row, **({"user": user} if self.names_writer else {})}


class RecordViewSet(VersionedMixin, HistoryMixin, viewsets.ModelViewSet):
    """A versioned record over the API, by its numeric id: read, write with If-Match, history;
    reads and writes go through the feature's selectors and services (`rows`)."""

    lookup_value_regex = r"\d+"
    rows: RecordRows
    # A row with no unique name: a conflict is a rule the database caught in a race.
    conflict_field = "non_field_errors"
    conflict_message = _("Another change got in first; read the row again and retry.")

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # DRF and the OpenAPI document take the model from `queryset`; the rows themselves
        # are read per request (get_queryset), so the class holds none of them.
        if "serializer_class" in cls.__dict__:
            cls.queryset = cls.serializer_class.Meta.model.objects.none()

    def get_queryset(self) -> QuerySet:
        return self.rows.read("visible_to", self.request.user)

    def editable(self) -> QuerySet:
        return self.rows.read("editable_by", self.request.user)

    def conflict_args(self, values: Mapping[str, Any], row=None) -> dict[str, str]:
        """Where a conflict is said, and in which words, for a write of `values` (to `row`,
        when it changes one); a feature whose message names the row overrides it."""
        return {"conflict_field": self.conflict_field, "conflict_message": self.conflict_message}

    def perform_create(self, serializer) -> None:
        team = writer_team(self.request)
        with service_errors(**self.conflict_args(serializer.validated_data)):
            serializer.instance = self.rows.write(
                "create", team=team, user=self.request.user, **serializer.validated_data
            )

    def perform_update(self, serializer) -> None:
        with service_errors(**self.conflict_args(serializer.validated_data, serializer.instance)):
            serializer.instance = self.rows.write(
                "update",
                **self.rows.row_args(serializer.instance, self.request.user),
                **serializer.validated_data,
            )

    def perform_destroy(self, instance) -> None:
        with service_errors(**self.conflict_args({}, instance)):
            self.rows.write(self.rows.delete, **self.rows.row_args(instance, self.request.user))


@dataclass(frozen=True)
class SavedRows:
    """A record saved whole by its feature's services: the selector of the rows a user reads,
    `save(<row_arg>=row, **m2m)` for a row built from the body, new or changed, and
    `delete(<row_arg>=row)`."""

    visible_to: Callable[[Any], QuerySet]
    save: Callable[..., Any]
    delete: Callable[..., Any]
    row_arg: str


class ServiceRecordViewSet(RecordViewSet):
    """A record whose creates and updates build the row from the validated body and hand it to
    the feature's save service (`rows`, or an own `save_row`); the many-to-many fields named in
    `m2m_fields` go to the service beside it. A value another row holds is a 409 with
    `conflict_message(row)` beside `conflict_field`; a delete the service refuses, a 409 with
    its reason."""

    rows: SavedRows  # type: ignore[assignment]
    m2m_fields: tuple[str, ...] = ()
    conflict_field = "name"

    def get_queryset(self) -> QuerySet:
        return self.rows.visible_to(self.request.user)

    def save_row(self, row, *, created: bool, **m2m):
        return self.rows.save(**{self.rows.row_arg: row}, **m2m)

    def conflict_message(self, row) -> str:
        raise NotImplementedError

    def conflict_args(self, values, row=None) -> dict[str, str]:
        return {
            "conflict_field": self.conflict_field,
            "conflict_message": self.conflict_message(row),
        }

    def _write(self, serializer, row, m2m: dict, *, created: bool) -> None:
        with service_errors(**self.conflict_args(serializer.validated_data, row)):
            serializer.instance = self.save_row(row, created=created, **m2m)

    def _split(self, serializer) -> tuple[dict, dict]:
        data = dict(serializer.validated_data)
        return data, {name: data.pop(name, None) for name in self.m2m_fields}

    def perform_create(self, serializer) -> None:
        data, m2m = self._split(serializer)
        self._write(serializer, self.get_queryset().model(**data), m2m, created=True)

    def perform_update(self, serializer) -> None:
        data, m2m = self._split(serializer)
        row = serializer.instance
        for name, value in data.items():
            setattr(row, name, value)
        self._write(serializer, row, m2m, created=False)

    def perform_destroy(self, instance) -> None:
        with refused_deletion():
            self.rows.delete(**{self.rows.row_arg: instance})
