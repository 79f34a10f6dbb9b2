"""Racks over the API. Reads go through the visibility selectors (another team's private site
is a 404); writes through planner.racks.services, as the pages do."""

from __future__ import annotations

from django.core.exceptions import ValidationError as DjangoValidationError
from django.db.models import QuerySet
from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import OpenApiResponse
from rest_framework.permissions import SAFE_METHODS, BasePermission

from accounts.permissions import FacilityWrites
from planner.api.responses import DetailSerializer, documented
from planner.api.versioned import RecordViewSet, conflict, crud_docs, service_errors
from planner.models import Rack
from planner.racks.api.serializers import SiteRackSerializer
from planner.racks.filtersets import RackFilterSet
from planner.racks.selectors import rack_editable, rack_visible_to
from planner.racks.services import rack_delete, rack_save

FORBIDDEN = OpenApiResponse(
    DetailSerializer,
    description="Your role may not write (writes need facility), or the rack is on another "
    "team's shared site, which you may read but not change.",
)
NOT_FOUND = OpenApiResponse(
    DetailSerializer, description="No such object, or it is on another team's private site."
)


class RackEditable(BasePermission):
    """Writes need the rack's site among the sites the user may edit."""

    message = _("This rack belongs to another team: you may read it but not change it.")

    def has_object_permission(self, request, view, obj) -> bool:
        if request.method in SAFE_METHODS:
            return True
        return rack_editable(request.user, obj.rack_group)


def _rack_conflict(rack: Rack) -> dict:
    return {
        "conflict_field": "name",
        "conflict_message": _("Rack group “%(group)s” already has a rack named “%(name)s”.")
        % {"group": rack.rack_group.name, "name": rack.name},
    }


@documented(
    "racks",
    **crud_docs(
        SiteRackSerializer,
        noun="rack",
        etag_example='"rack-31-v2-5c1d0e9f8a7b"',
        forbidden=FORBIDDEN,
        not_found=NOT_FOUND,
        delete_conflicts=True,
    ),
)
class RackViewSet(RecordViewSet):
    """Racks, one by one, inside their rack groups: a limit left empty is the group's. Adding
    or deleting a rack moves its group's count."""

    queryset = Rack.objects.none()  # per request: get_queryset
    serializer_class = SiteRackSerializer
    permission_classes = [FacilityWrites, RackEditable]
    filterset_class = RackFilterSet
    noun = "rack"

    def get_queryset(self) -> QuerySet[Rack]:
        return rack_visible_to(self.request.user)

    def perform_create(self, serializer) -> None:
        rack = Rack(**serializer.validated_data)
        with service_errors(**_rack_conflict(rack)):
            serializer.instance = rack_save(rack=rack)

    def perform_update(self, serializer) -> None:
        rack = serializer.instance
        for name, value in serializer.validated_data.items():
            setattr(rack, name, value)
        with service_errors(**_rack_conflict(rack)):
            serializer.instance = rack_save(rack=rack)

    def perform_destroy(self, instance: Rack) -> None:
        try:
            rack_delete(rack=instance)
        except DjangoValidationError as exc:
            raise conflict(field=None, message=" ".join(exc.messages)) from None
