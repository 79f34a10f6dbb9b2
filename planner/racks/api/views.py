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
from planner.api.versioned import ServiceRecordViewSet, conflict, crud_docs
from planner.models import Equipment, PowerFeed, Rack
from planner.racks.api.serializers import (
    EquipmentSerializer,
    PowerFeedSerializer,
    SiteRackSerializer,
)
from planner.racks.equipment import equipment_install, equipment_remove, equipment_update
from planner.racks.feeds import power_feed_delete, power_feed_save
from planner.racks.filtersets import EquipmentFilterSet, PowerFeedFilterSet, RackFilterSet
from planner.racks.selectors import (
    equipment_visible_to,
    power_feed_visible_to,
    rack_editable,
    rack_visible_to,
)
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
class RackViewSet(ServiceRecordViewSet):
    """Racks, one by one, inside their rack groups: a limit left empty is the group's. Adding
    or deleting a rack moves its group's count."""

    queryset = Rack.objects.none()  # per request: get_queryset
    serializer_class = SiteRackSerializer
    permission_classes = [FacilityWrites, RackEditable]
    filterset_class = RackFilterSet
    noun = "rack"

    def get_queryset(self) -> QuerySet[Rack]:
        return rack_visible_to(self.request.user)

    def save_row(self, row: Rack, *, created: bool) -> Rack:
        return rack_save(rack=row)

    def conflict_message(self, row: Rack) -> str:
        return _("Rack group “%(group)s” already has a rack named “%(name)s”.") % {
            "group": row.rack_group.name,
            "name": row.name,
        }

    def perform_destroy(self, instance: Rack) -> None:
        try:
            rack_delete(rack=instance)
        except DjangoValidationError as exc:
            raise conflict(field=None, message=" ".join(exc.messages)) from None


class EquipmentEditable(BasePermission):
    message = _("This equipment is in another team's rack: you may read it but not change it.")

    def has_object_permission(self, request, view, obj) -> bool:
        return request.method in SAFE_METHODS or rack_editable(request.user, obj.rack.rack_group)


@documented(
    "equipment",
    **crud_docs(
        EquipmentSerializer,
        noun="equipment",
        etag_example='"equipment-7-v1-0a1b2c3d4e5f"',
        forbidden=FORBIDDEN,
        not_found=NOT_FOUND,
    ),
)
class EquipmentViewSet(ServiceRecordViewSet):
    """What is installed in racks: catalog servers or free-form devices with their U, power and
    weight. DELETE removes equipment from its rack; the row stays with `removed_at` set, and its
    history with it. Filter with `?rack=`, `?site=` and `?installed=true`."""

    queryset = Equipment.objects.none()  # per request: get_queryset
    serializer_class = EquipmentSerializer
    permission_classes = [FacilityWrites, EquipmentEditable]
    filterset_class = EquipmentFilterSet
    noun = "equipment"

    def get_queryset(self) -> QuerySet[Equipment]:
        return equipment_visible_to(self.request.user)

    conflict_field = "position_u"

    def save_row(self, row: Equipment, *, created: bool) -> Equipment:
        if created:
            return equipment_install(equipment=row, user=self.request.user)
        return equipment_update(equipment=row)

    def conflict_message(self, row: Equipment) -> str:
        return _("That place is taken.")

    def perform_destroy(self, instance: Equipment) -> None:
        equipment_remove(equipment=instance)


@documented(
    "power-feeds",
    **crud_docs(
        PowerFeedSerializer,
        noun="power feed",
        etag_example='"power-feed-3-v1-77aa0b1c2d3e"',
        forbidden=FORBIDDEN,
        not_found=NOT_FOUND,
    ),
)
class PowerFeedViewSet(ServiceRecordViewSet):
    """Power feeds per rack: voltage, amperage, phases, AC/DC, primary or redundant, maximum
    utilisation. A rack with primary feeds takes its usable power from them."""

    queryset = PowerFeed.objects.none()  # per request: get_queryset
    serializer_class = PowerFeedSerializer
    permission_classes = [FacilityWrites, EquipmentEditable]
    filterset_class = PowerFeedFilterSet
    noun = "power feed"

    def get_queryset(self) -> QuerySet[PowerFeed]:
        return power_feed_visible_to(self.request.user)

    def save_row(self, row: PowerFeed, *, created: bool) -> PowerFeed:
        return power_feed_save(feed=row)

    def conflict_message(self, row: PowerFeed) -> str:
        return _("Rack “%(rack)s” already has a feed named “%(name)s”.") % {
            "rack": row.rack.name,
            "name": row.name,
        }

    def perform_destroy(self, instance: PowerFeed) -> None:
        power_feed_delete(feed=instance)
