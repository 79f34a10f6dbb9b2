"""Sites and rack groups over the API. Reads go through the visibility selectors, so another
team's private site is a 404; every write goes through planner.sites, so the API and the HTML
pages share one set of rules."""

from __future__ import annotations

from django.db.models import QuerySet
from django.utils.translation import gettext_lazy as _
from rest_framework.permissions import SAFE_METHODS, BasePermission

from accounts.permissions import FacilityWrites
from planner.api.record_docs import record_docs
from planner.api.responses import detail_response
from planner.api.versioned import (
    RecordRows,
    RecordViewSet,
    SavedRows,
    ServiceRecordViewSet,
    refused_deletion,
)
from planner.models import RackGroup, Site
from planner.sites import selectors, services
from planner.sites.api.serializers import RackGroupSerializer, SiteSerializer
from planner.sites.filtersets import RackGroupFilterSet, SiteFilterSet
from planner.sites.selectors import rack_group_visible_to, site_editable_by
from planner.sites.services import rack_group_delete, rack_group_save

FORBIDDEN = detail_response(
    "Your role may not write (writes need facility), or the site is another team's shared "
    "site, which you may read but not change."
)
NOT_FOUND = detail_response("No such object, or it belongs to another team's private site.")


class SiteEditable(BasePermission):
    """Writes need the object's site among the sites the user may edit (own team, or admin).
    Sites the user cannot see never get here: the queryset answers 404 first."""

    message = _("This site belongs to another team: you may read it but not change it.")

    def has_object_permission(self, request, view, obj) -> bool:
        if request.method in SAFE_METHODS:
            return True
        site_id = obj.pk if isinstance(obj, Site) else obj.site_id
        return site_editable_by(request.user).filter(pk=site_id).exists()


@record_docs("sites", forbidden=FORBIDDEN, not_found=NOT_FOUND, delete_conflicts=True)
class SiteViewSet(RecordViewSet):
    """Sites: where the racks are and what power costs there. Everyone reads their team's
    sites and the ones other teams share; facility people write their own team's."""

    serializer_class = SiteSerializer
    permission_classes = [FacilityWrites, SiteEditable]
    filterset_class = SiteFilterSet
    noun = "site"

    rows = RecordRows(selectors, services, "site", row_arg="site")

    def get_queryset(self) -> QuerySet[Site]:
        return super().get_queryset().select_related("team")

    def perform_destroy(self, instance: Site) -> None:
        with refused_deletion():
            services.site_delete(site=instance)

    def conflict_args(self, values, row=None) -> dict[str, str]:
        name = values.get("name", row.name if row is not None else "")
        return {
            "conflict_field": "name",
            "conflict_message": _("Your team already has a site named “%(name)s”.")
            % {"name": name},
        }


@record_docs("rack-groups", forbidden=FORBIDDEN, not_found=NOT_FOUND)
class RackGroupViewSet(ServiceRecordViewSet):
    """Rows of identical racks: what each rack can power, cool, hold and carry. Writes need
    the facility role and a site of your own team."""

    serializer_class = RackGroupSerializer
    permission_classes = [FacilityWrites, SiteEditable]
    filterset_class = RackGroupFilterSet
    noun = "rack group"
    rows = SavedRows(
        rack_group_visible_to, save=rack_group_save, delete=rack_group_delete, row_arg="rack_group"
    )
    m2m_fields = ("fabrics",)

    def get_queryset(self) -> QuerySet[RackGroup]:
        return super().get_queryset().prefetch_related("fabrics")

    def conflict_message(self, row: RackGroup) -> str:
        return _("Site “%(site)s” already has a rack group named “%(name)s”.") % {
            "site": row.site,
            "name": row.name,
        }
