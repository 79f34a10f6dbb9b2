"""Racks over the API. Validation beyond the field types is the model's (planner.racks runs
full_clean), so the API and the pages answer the same errors."""

from dataclasses import asdict

from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from catalog.models import ServerPlatform
from planner.api.serializers import JsonTypesMixin, ParentRowMixin, catalog_slug_field
from planner.api.versioned import VersionedRowMeta
from planner.models import Equipment, PowerFeed, Rack, RackGroup
from planner.racks.capacity import rack_limits
from planner.racks.selectors import rack_editable, rack_visible_to
from planner.sites.selectors import rack_group_visible_to


class SiteRackLimitsSerializer(serializers.Serializer):
    power_kw = serializers.FloatField(help_text="Usable power of the rack (kW)")
    cooling_kw = serializers.FloatField(help_text="Heat the rack's cooling removes (kW)")
    units = serializers.IntegerField(help_text="Usable rack units (U)")
    max_kg = serializers.FloatField(help_text="Weight limit of the rack's load (kg)")
    power_from = serializers.ChoiceField(
        choices=["rack", "group", "feeds"],
        help_text="Where the power figure comes from: the rack's own kW, its group's, or its "
        "power feeds",
    )


class SiteRackSerializer(ParentRowMixin, JsonTypesMixin, serializers.ModelSerializer):
    rack_group = serializers.PrimaryKeyRelatedField(
        queryset=RackGroup.objects.none(),  # narrowed to the groups the user can see
        help_text="Id of a rack group of your team",
    )
    limits = serializers.SerializerMethodField()

    class Meta(VersionedRowMeta):
        model = Rack
        fields = ["id", "rack_group", *Rack.STATED_FIELDS, "limits", "updated_at", "version"]

    parent_field = "rack_group"

    def parent_choices(self, user):
        return rack_group_visible_to(user)

    def parent_editable(self, user, parent: RackGroup) -> bool:
        return rack_editable(user, parent)

    def parent_read_only(self, parent: RackGroup) -> str:
        return _("You may read rack group “%(group)s” but not change its racks.") % {
            "group": parent
        }

    def validate_rack_group(self, group: RackGroup) -> RackGroup:
        self.check_parent(group)
        if self.instance is not None and group.pk != self.instance.rack_group_id:
            raise serializers.ValidationError(_("A rack stays in its rack group."))
        return group

    @extend_schema_field(SiteRackLimitsSerializer)
    def get_limits(self, rack: Rack) -> dict:
        return asdict(rack_limits(rack))


class InRackMixin(ParentRowMixin):
    """Equipment and feeds live in a rack of the user's team."""

    parent_field = "rack"

    def parent_choices(self, user):
        return rack_visible_to(user)

    def parent_editable(self, user, parent: Rack) -> bool:
        return rack_editable(user, parent.rack_group)

    def parent_read_only(self, parent: Rack) -> str:
        return _("You may read rack “%(rack)s” but not change what is in it.") % {"rack": parent}

    validate_rack = ParentRowMixin.check_parent


class EquipmentSerializer(InRackMixin, JsonTypesMixin, serializers.ModelSerializer):
    rack = serializers.PrimaryKeyRelatedField(
        queryset=Rack.objects.none(),  # narrowed to the racks the user can see
        help_text="Id of a rack of your team; changing it moves the equipment",
    )
    server = catalog_slug_field(
        ServerPlatform.objects.all(), "Slug of a catalog server; null for a free-form device"
    )

    class Meta:
        model = Equipment
        fields = [
            "id",
            "rack",
            *Equipment.STATED_FIELDS,
            "installed_at",
            "removed_at",
            "version",
        ]
        read_only_fields = ["installed_at", "removed_at", "version"]
        extra_kwargs = {
            # A catalog server's figures fill what is left out (planner.racks.equipment).
            "name": {"required": False},
            "units": {"required": False},
            "nameplate_kw": {"required": False},
            "weight_kg": {"required": False},
        }

    def validate(self, attrs):
        server = attrs.get("server", getattr(self.instance, "server", None))
        if server is None and self.instance is None:
            missing = {
                name: [_("Required for a device that is not a catalog server.")]
                for name in ("name", "units", "nameplate_kw", "weight_kg")
                if attrs.get(name) in (None, "")
            }
            if missing:
                raise serializers.ValidationError(missing)
        return attrs


class PowerFeedSerializer(InRackMixin, JsonTypesMixin, serializers.ModelSerializer):
    rack = serializers.PrimaryKeyRelatedField(
        queryset=Rack.objects.none(),  # narrowed to the racks the user can see
        help_text="Id of a rack of your team",
    )
    usable_kw = serializers.FloatField(
        read_only=True,
        help_text="V x A (x sqrt 3 for three-phase) x maximum utilisation, as NetBox computes "
        "a feed's available power; a redundant feed adds nothing to its rack's usable power",
    )

    class Meta(VersionedRowMeta):
        model = PowerFeed
        fields = ["id", "rack", *PowerFeed.STATED_FIELDS, "usable_kw", "version"]
