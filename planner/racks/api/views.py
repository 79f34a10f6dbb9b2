"""Racks over the API. Reads go through the visibility selectors (another team's private site
is a 404); writes through planner.racks.services, as the pages do."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _
from rest_framework.permissions import SAFE_METHODS, BasePermission

from accounts.permissions import FacilityWrites
from planner.api.record_docs import record_docs
from planner.api.responses import detail_response
from planner.api.versioned import SavedRows, ServiceRecordViewSet
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

FORBIDDEN = detail_response(
    "Your role may not write (writes need facility), or the rack is on another team's shared "
    "site, which you may read but not change."
)
NOT_FOUND = detail_response("No such object, or it is on another team's private site.")


class RackEditable(BasePermission):
    """Writes need the rack's site among the sites the user may edit."""

    message = _("This rack belongs to another team: you may read it but not change it.")

    def has_object_permission(self, request, view, obj) -> bool:
        if request.method in SAFE_METHODS:
            return True
        return rack_editable(request.user, obj.rack_group)


@record_docs("racks", forbidden=FORBIDDEN, not_found=NOT_FOUND, delete_conflicts=True)
class RackViewSet(ServiceRecordViewSet):
    """Racks, one by one, inside their rack groups: a limit left empty is the group's. Adding
    or deleting a rack moves its group's count."""

    serializer_class = SiteRackSerializer
    permission_classes = [FacilityWrites, RackEditable]
    filterset_class = RackFilterSet
    noun = "rack"
    rows = SavedRows(rack_visible_to, save=rack_save, delete=rack_delete, row_arg="rack")

    def conflict_message(self, row: Rack) -> str:
        return _("Rack group “%(group)s” already has a rack named “%(name)s”.") % {
            "group": row.rack_group.name,
            "name": row.name,
        }


class EquipmentEditable(BasePermission):
    message = _("This equipment is in another team's rack: you may read it but not change it.")

    def has_object_permission(self, request, view, obj) -> bool:
        return request.method in SAFE_METHODS or rack_editable(request.user, obj.rack.rack_group)


# Equipment and feeds live in a rack (as their serializers' InRackMixin says): writes need the
# facility role and a rack of the user's own team. (No docstring: the OpenAPI document would
# show it for a subclass without its own.)
class InRackViewSet(ServiceRecordViewSet):
    permission_classes = [FacilityWrites, EquipmentEditable]


@record_docs("equipment", forbidden=FORBIDDEN, not_found=NOT_FOUND)
class EquipmentViewSet(InRackViewSet):
    """What is installed in racks: catalog servers or free-form devices with their U, power and
    weight. DELETE removes equipment from its rack; the row stays with `removed_at` set, and its
    history with it. Filter with `?rack=`, `?site=` and `?installed=true`."""

    serializer_class = EquipmentSerializer
    filterset_class = EquipmentFilterSet
    noun = "equipment"
    # Saved by equipment_update once installed (save_row).
    rows = SavedRows(
        equipment_visible_to, save=equipment_update, delete=equipment_remove, row_arg="equipment"
    )
    conflict_field = "position_u"

    def save_row(self, row: Equipment, *, created: bool) -> Equipment:
        if created:
            return equipment_install(equipment=row, user=self.request.user)
        return super().save_row(row, created=created)

    def conflict_message(self, row: Equipment) -> str:
        return _("That place is taken.")


@record_docs("power-feeds", forbidden=FORBIDDEN, not_found=NOT_FOUND)
class PowerFeedViewSet(InRackViewSet):
    """Power feeds per rack: voltage, amperage, phases, AC/DC, primary or redundant, maximum
    utilisation. A rack with primary feeds takes its usable power from them."""

    serializer_class = PowerFeedSerializer
    filterset_class = PowerFeedFilterSet
    noun = "power feed"
    rows = SavedRows(
        power_feed_visible_to, save=power_feed_save, delete=power_feed_delete, row_arg="feed"
    )

    def conflict_message(self, row: PowerFeed) -> str:
        return _("Rack “%(rack)s” already has a feed named “%(name)s”.") % {
            "rack": row.rack.name,
            "name": row.name,
        }
