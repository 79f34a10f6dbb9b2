"""Sites and rack groups over the API. Reads go through the visibility selectors, so another
team's private site is a 404; every write goes through planner.sites, so the API and the HTML
pages share one set of rules."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from django.core.exceptions import NON_FIELD_ERRORS
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db.models import QuerySet
from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_view
from rest_framework import status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import APIException, ValidationError
from rest_framework.permissions import SAFE_METHODS, BasePermission
from rest_framework.response import Response
from rest_framework.serializers import as_serializer_error
from rest_framework.settings import api_settings

from accounts.permissions import FacilityWrites
from accounts.services import user_team
from planner.api.responses import UNAUTHENTICATED
from planner.api.serializers import FieldErrorsSerializer
from planner.api.site_serializers import (
    ConflictSerializer,
    DetailSerializer,
    HistoryEntrySerializer,
    RackGroupSerializer,
    SiteSerializer,
)
from planner.filtersets import RackGroupFilterSet, SiteFilterSet
from planner.models import RackGroup, Site
from planner.selectors import history_of, rack_group_visible_to, site_editable_by, site_visible_to
from planner.sites import (
    ConflictError,
    rack_group_delete,
    rack_group_save,
    site_create,
    site_delete,
    site_update,
)

# Django's codes for a value another row already holds (Model.unique_error_message).
UNIQUE_CODES = {"unique", "unique_together"}


class Conflict(APIException):
    status_code = status.HTTP_409_CONFLICT
    default_detail = _("Another row already holds this value.")
    default_code = "conflict"


def _conflict(*, field: str | None, message: str) -> Conflict:
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
        raise _conflict(field=conflict_field, message=conflict_message) from None
    except DjangoValidationError as exc:
        if _only_uniqueness(exc):
            raise _conflict(field=conflict_field, message=conflict_message) from None
        errors = as_serializer_error(exc)
        if NON_FIELD_ERRORS in errors:
            errors[api_settings.NON_FIELD_ERRORS_KEY] = errors.pop(NON_FIELD_ERRORS)
        raise ValidationError(errors) from None


class SiteEditable(BasePermission):
    """Writes need the object's site among the sites the user may edit (own team, or admin).
    Sites the user cannot see never get here: the queryset answers 404 first."""

    message = _("This site belongs to another team: you may read it but not change it.")

    def has_object_permission(self, request, view, obj) -> bool:
        if request.method in SAFE_METHODS:
            return True
        site_id = obj.pk if isinstance(obj, Site) else obj.site_id
        return site_editable_by(request.user).filter(pk=site_id).exists()


FORBIDDEN = OpenApiResponse(
    DetailSerializer,
    description="Your role may not write (writes need facility), or the site is another "
    "team's shared site, which you may read but not change.",
)
NOT_FOUND = OpenApiResponse(
    DetailSerializer, description="No such object, or it belongs to another team's private site."
)
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


def _crud_docs(serializer, *, noun: str, delete_conflicts: bool = False) -> dict:
    """extend_schema for each action of a ModelViewSet with the history action."""
    history = extend_schema(
        summary=f"Versions of one {noun}, newest first",
        responses={200: HistoryEntrySerializer(many=True), 401: UNAUTHENTICATED, 404: NOT_FOUND},
    )
    write = {400: INVALID, 401: UNAUTHENTICATED, 403: FORBIDDEN, 409: CONFLICT}
    destroy = {204: None, 401: UNAUTHENTICATED, 403: FORBIDDEN, 404: NOT_FOUND}
    if delete_conflicts:
        destroy[409] = CONFLICT
    return {
        "list": extend_schema(
            summary=f"{noun.capitalize()}s you can see",
            responses={200: serializer(many=True), 400: INVALID, 401: UNAUTHENTICATED},
        ),
        "retrieve": extend_schema(
            responses={200: serializer, 401: UNAUTHENTICATED, 404: NOT_FOUND}
        ),
        "create": extend_schema(responses={201: serializer, **write}),
        "update": extend_schema(responses={200: serializer, **write, 404: NOT_FOUND}),
        "partial_update": extend_schema(responses={200: serializer, **write, 404: NOT_FOUND}),
        "destroy": extend_schema(responses=destroy),
        "history": history,
    }


class _HistoryMixin:
    @action(detail=True, methods=["get"], pagination_class=None, filter_backends=[])
    def history(self, request, pk=None) -> Response:
        """Who changed what and when: each version with its changed fields, old and new."""
        entries = history_of(self.get_object())
        return Response(HistoryEntrySerializer(entries, many=True).data)


@extend_schema(tags=["sites"])
@extend_schema_view(**_crud_docs(SiteSerializer, noun="site", delete_conflicts=True))
class SiteViewSet(_HistoryMixin, viewsets.ModelViewSet):
    """Sites: where the racks are and what power costs there. Everyone reads their team's
    sites and the ones other teams share; facility people write their own team's."""

    queryset = Site.objects.none()  # per request: get_queryset
    serializer_class = SiteSerializer
    permission_classes = [FacilityWrites, SiteEditable]
    filterset_class = SiteFilterSet
    lookup_value_regex = r"\d+"

    def get_queryset(self) -> QuerySet[Site]:
        return site_visible_to(self.request.user).select_related("team")

    def perform_create(self, serializer) -> None:
        team = user_team(self.request.user)
        if team is None:
            raise ValidationError({"team": [_("Your account belongs to no team; ask an admin.")]})
        data = serializer.validated_data
        with service_errors(**self._conflict(data["name"])):
            serializer.instance = site_create(team=team, user=self.request.user, **data)

    def perform_update(self, serializer) -> None:
        data = serializer.validated_data
        with service_errors(**self._conflict(data.get("name", serializer.instance.name))):
            serializer.instance = site_update(site=serializer.instance, **data)

    def perform_destroy(self, instance: Site) -> None:
        try:
            site_delete(site=instance)
        except ConflictError as exc:
            raise _conflict(field=None, message=str(exc)) from None

    @staticmethod
    def _conflict(name: str) -> dict:
        return {
            "conflict_field": "name",
            "conflict_message": _("Your team already has a site named “%(name)s”.")
            % {"name": name},
        }


@extend_schema(tags=["rack-groups"])
@extend_schema_view(**_crud_docs(RackGroupSerializer, noun="rack group"))
class RackGroupViewSet(_HistoryMixin, viewsets.ModelViewSet):
    """Rows of identical racks: what each rack can power, cool, hold and carry. Writes need
    the facility role and a site of your own team."""

    queryset = RackGroup.objects.none()  # per request: get_queryset
    serializer_class = RackGroupSerializer
    permission_classes = [FacilityWrites, SiteEditable]
    filterset_class = RackGroupFilterSet
    lookup_value_regex = r"\d+"

    def get_queryset(self) -> QuerySet[RackGroup]:
        return rack_group_visible_to(self.request.user).prefetch_related("fabrics")

    def perform_create(self, serializer) -> None:
        data = dict(serializer.validated_data)
        fabrics = data.pop("fabrics", None)
        with service_errors(**self._conflict(data["site"], data["name"])):
            serializer.instance = rack_group_save(rack_group=RackGroup(**data), fabrics=fabrics)

    def perform_update(self, serializer) -> None:
        group = serializer.instance
        data = dict(serializer.validated_data)
        fabrics = data.pop("fabrics", None)
        for name, value in data.items():
            setattr(group, name, value)
        with service_errors(**self._conflict(group.site, group.name)):
            serializer.instance = rack_group_save(rack_group=group, fabrics=fabrics)

    def perform_destroy(self, instance: RackGroup) -> None:
        rack_group_delete(rack_group=instance)

    @staticmethod
    def _conflict(site: Site, name: str) -> dict:
        return {
            "conflict_field": "name",
            "conflict_message": _("Site “%(site)s” already has a rack group named “%(name)s”.")
            % {"site": site, "name": name},
        }
