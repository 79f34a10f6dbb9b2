"""Sites and rack groups over the API. Validation beyond the field types is the model's
(planner.sites runs full_clean), so the API and the HTML forms answer the same errors."""

from collections.abc import Mapping
from dataclasses import asdict

from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from rest_framework.exceptions import PermissionDenied

from catalog.models import Fabric
from planner.api.responses import AnyJsonField
from planner.models import RackGroup, Site
from planner.sites.selectors import site_capacity, site_editable_by, site_visible_to


class SiteCapacitySerializer(serializers.Serializer):
    racks = serializers.IntegerField(help_text="Racks in all of the site's rack groups")
    power_kw = serializers.FloatField(help_text="Usable power of all racks together (kW)")
    cooling_kw = serializers.FloatField(help_text="Cooling of all racks together (kW)")
    units = serializers.IntegerField(help_text="Usable rack units of all racks together (U)")


def _json_types(field: serializers.Field) -> tuple[type, ...] | None:
    """The JSON types the schema gives `field`'s values (decimals are strings there)."""
    if isinstance(field, serializers.BooleanField):
        return (bool,)
    if isinstance(field, serializers.IntegerField | serializers.PrimaryKeyRelatedField):
        return (int,)
    if isinstance(field, serializers.FloatField):
        return (int, float)
    if isinstance(
        field, serializers.DecimalField | serializers.CharField | serializers.ChoiceField
    ):
        return (str,)
    if isinstance(field, serializers.ManyRelatedField):
        return (list,)
    return None


class JsonTypesMixin:
    """A JSON body must give each value the type the schema states. DRF alone would read 0 as
    the text "0" and "4" as the number 4; a client with that bug hears it as a 400 naming the
    field instead. Form bodies carry only text, so they are left to the fields."""

    def to_internal_value(self, data):
        request = self.context.get("request")
        if (
            request is not None
            and isinstance(data, Mapping)
            and request.content_type.startswith("application/json")
        ):
            errors = {}
            for name, field in self.fields.items():
                value = data.get(name)
                types = _json_types(field)
                if field.read_only or value is None or types is None:
                    continue
                # bool is an int in Python, never a number in JSON.
                if not isinstance(value, types) or (isinstance(value, bool) and bool not in types):
                    errors[name] = [_("Expected a JSON %(type)s.") % {"type": _json_name(types)}]
            if errors:
                raise serializers.ValidationError(errors)
        return super().to_internal_value(data)


def _json_name(types: tuple[type, ...]) -> str:
    return {bool: "boolean", int: "integer", float: "number", str: "string", list: "array"}[
        types[-1]
    ]


class SiteSerializer(JsonTypesMixin, serializers.ModelSerializer):
    team = serializers.CharField(
        source="team.name",
        read_only=True,
        help_text="The owning team: always the creator's team, never taken from the request",
    )
    capacity = serializers.SerializerMethodField()

    class Meta:
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
        read_only_fields = ["version"]
        # Uniqueness is checked by the service (full_clean), which the view maps to 409.
        validators = []

    @extend_schema_field(SiteCapacitySerializer)
    def get_capacity(self, site: Site) -> dict:
        return asdict(site_capacity(site=site))


class RackGroupSerializer(JsonTypesMixin, serializers.ModelSerializer):
    site = serializers.PrimaryKeyRelatedField(
        queryset=Site.objects.none(),  # narrowed to the sites the user can see, in get_fields
        help_text="Id of a site of your team",
    )
    fabrics = serializers.SlugRelatedField(
        many=True,
        slug_field="slug",
        queryset=Fabric.objects.all(),
        required=False,
        help_text="Slugs of the catalog fabrics the racks are cabled for",
    )

    class Meta:
        model = RackGroup
        fields = ["id", "site", *RackGroup.STATED_FIELDS, "updated_at", "version"]
        read_only_fields = ["version"]
        # Without this DRF answers a duplicate name with its own 400; the view answers 409.
        validators = []

    def get_fields(self):
        fields = super().get_fields()
        request = self.context.get("request")
        if request is not None:
            # A site the user cannot see is "does not exist" (400 on `site`), never a hint
            # that another team has it.
            fields["site"].queryset = site_visible_to(request.user)
        return fields

    def validate_site(self, site: Site) -> Site:
        if not site_editable_by(self.context["request"].user).filter(pk=site.pk).exists():
            raise PermissionDenied(
                _("You may read site “%(site)s” but not change its racks.") % {"site": site}
            )
        return site


class HistoryChangeSerializer(serializers.Serializer):
    field = serializers.CharField()
    old = AnyJsonField(help_text="Value before the change")
    new = AnyJsonField(help_text="Value after the change")


class HistoryEntrySerializer(serializers.Serializer):
    who = serializers.CharField(
        allow_null=True, help_text="Username; null for changes made outside a request"
    )
    when = serializers.DateTimeField()
    kind = serializers.ChoiceField(["created", "changed", "deleted"])
    changes = HistoryChangeSerializer(many=True, help_text="Empty for the first version")


class ConflictSerializer(serializers.Serializer):
    """`{"field": "name", "detail": "..."}`: another row already holds this value."""

    field = serializers.CharField(
        allow_null=True,
        help_text="The field whose value is already taken; null when other rows still use this one",
    )
    detail = serializers.CharField()


class PreconditionFailedSerializer(serializers.Serializer):
    """412: the row changed (or went) since the client read it; nothing was written."""

    detail = serializers.CharField()
    current_version = serializers.IntegerField(
        allow_null=True, help_text="The row's version now; null when it was deleted"
    )
    current_etag = serializers.CharField(
        allow_null=True,
        help_text="The ETag to send in If-Match after reading the row again; null when deleted",
    )
