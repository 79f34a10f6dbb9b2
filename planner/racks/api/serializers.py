"""Racks over the API. Validation beyond the field types is the model's (planner.racks runs
full_clean), so the API and the pages answer the same errors."""

from dataclasses import asdict

from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from rest_framework.exceptions import PermissionDenied

from planner.api.serializers import JsonTypesMixin
from planner.models import Rack, RackGroup
from planner.racks.capacity import rack_limits
from planner.racks.selectors import rack_editable
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


class SiteRackSerializer(JsonTypesMixin, serializers.ModelSerializer):
    rack_group = serializers.PrimaryKeyRelatedField(
        queryset=RackGroup.objects.none(),  # narrowed to the groups the user can see
        help_text="Id of a rack group of your team",
    )
    limits = serializers.SerializerMethodField()

    class Meta:
        model = Rack
        fields = ["id", "rack_group", *Rack.STATED_FIELDS, "limits", "updated_at", "version"]
        read_only_fields = ["version"]
        # The service checks uniqueness (full_clean); the view answers 409.
        validators = []

    def get_fields(self):
        fields = super().get_fields()
        request = self.context.get("request")
        if request is not None:
            fields["rack_group"].queryset = rack_group_visible_to(request.user)
        return fields

    def validate_rack_group(self, group: RackGroup) -> RackGroup:
        if not rack_editable(self.context["request"].user, group):
            raise PermissionDenied(
                _("You may read rack group “%(group)s” but not change its racks.")
                % {"group": group}
            )
        if self.instance is not None and group.pk != self.instance.rack_group_id:
            raise serializers.ValidationError(_("A rack stays in its rack group."))
        return group

    @extend_schema_field(SiteRackLimitsSerializer)
    def get_limits(self, rack: Rack) -> dict:
        return asdict(rack_limits(rack))
