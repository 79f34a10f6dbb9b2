"""Prices over the API. Validation beyond the field types is the model's (planner.prices runs
full_clean), so the API and the HTML forms answer the same errors."""

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from catalog.models import Accelerator, Fabric, ServerPlatform
from planner.api.serializers import JsonTypesMixin, catalog_slug_field
from planner.models import Price
from planner.prices.selectors import price_age


class PriceSerializer(JsonTypesMixin, serializers.ModelSerializer):
    accelerator = catalog_slug_field(
        Accelerator.objects.all(),
        "Catalog slug of the accelerator priced (accelerator, rent), or of a system's cards",
    )
    server = catalog_slug_field(
        ServerPlatform.objects.all(), "Catalog slug of the server platform (server, system)"
    )
    fabric = catalog_slug_field(
        Fabric.objects.all(),
        "Catalog slug of the fabric of a NIC, switch port, cable or transceiver",
    )
    team = serializers.CharField(
        source="team.name",
        read_only=True,
        allow_null=True,
        help_text="The owning team: always the writer's team, never taken from the request; "
        "null for the shipped reference list, which every team reads",
    )
    is_reference = serializers.BooleanField(
        read_only=True, help_text="A row of the shipped reference list (no team)"
    )
    stale = serializers.SerializerMethodField(help_text="The price is more than a year old")
    expired = serializers.SerializerMethodField(help_text="Its valid-until day has passed")
    copied_from = serializers.PrimaryKeyRelatedField(
        read_only=True, allow_null=True, help_text="The price this one was copied from, if any"
    )

    class Meta:
        model = Price
        fields = [
            "id",
            "kind",
            "item_kind",
            *Price.ITEM_FIELDS,
            *Price.AMOUNT_FIELDS,
            *Price.SOURCE_FIELDS,
            "notes",
            *Price.PURCHASE_FIELDS,
            *Price.RENT_FIELDS,
            "team",
            "is_reference",
            "copied_from",
            "retired_at",
            "stale",
            "expired",
            "created_at",
            "updated_at",
            "version",
        ]
        read_only_fields = ["retired_at", "created_at", "updated_at", "version"]
        # Every rule across fields is the model's; the service runs them (400 naming the field).
        validators = []

    @extend_schema_field(bool)
    def get_stale(self, price: Price) -> bool:
        return price_age(price).stale

    @extend_schema_field(bool)
    def get_expired(self, price: Price) -> bool:
        return price_age(price).expired
