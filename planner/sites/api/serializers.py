"""Sites and rack groups over the API. Validation beyond the field types is the model's
(planner.sites runs full_clean), so the API and the HTML forms answer the same errors."""

from dataclasses import asdict

from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from catalog.models import Fabric
from planner.api.serializers import JsonTypesMixin, ParentRowMixin, catalog_slug_field
from planner.api.versioned import VersionedRowMeta
from planner.models import RackGroup, Site
from planner.sites.selectors import site_capacity, site_editable_by, site_visible_to


class SiteCapacitySerializer(serializers.Serializer):
    racks = serializers.IntegerField(help_text="Racks in all of the site's rack groups")
    power_kw = serializers.FloatField(help_text="Usable power of all racks together (kW)")
    cooling_kw = serializers.FloatField(help_text="Cooling of all racks together (kW)")
    units = serializers.IntegerField(help_text="Usable rack units of all racks together (U)")


class SiteSerializer(JsonTypesMixin, serializers.ModelSerializer):
    team = serializers.CharField(
        source="team.name",
        read_only=True,
        help_text="The owning team: always the creator's team, never taken from the request",
    )
    capacity = serializers.SerializerMethodField()

    class Meta(VersionedRowMeta):
        model = Site
        fields = [
            "id",
            "name",
            "location",
            "currency",
            "electricity_price_per_kwh",
            "pue",
            "visibility",
            "notes",
            "team",
            "capacity",
            "created_at",
            "updated_at",
            "version",
        ]

    @extend_schema_field(SiteCapacitySerializer)
    def get_capacity(self, site: Site) -> dict:
        return asdict(site_capacity(site=site))


class RackGroupSerializer(ParentRowMixin, JsonTypesMixin, serializers.ModelSerializer):
    site = serializers.PrimaryKeyRelatedField(
        queryset=Site.objects.none(),  # narrowed to the sites the user can see, in get_fields
        help_text="Id of a site of your team",
    )
    fabrics = catalog_slug_field(
        Fabric.objects.all(), "Slugs of the catalog fabrics the racks are cabled for", many=True
    )

    class Meta(VersionedRowMeta):
        model = RackGroup
        fields = ["id", "site", *RackGroup.STATED_FIELDS, "updated_at", "version"]

    parent_field = "site"

    def parent_choices(self, user):
        return site_visible_to(user)

    def parent_editable(self, user, parent: Site) -> bool:
        return site_editable_by(user).filter(pk=parent.pk).exists()

    def parent_read_only(self, parent: Site) -> str:
        return _("You may read site “%(site)s” but not change its racks.") % {"site": parent}

    validate_site = ParentRowMixin.check_parent
