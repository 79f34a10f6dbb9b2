"""What the NetBox import endpoint takes and answers."""

from rest_framework import serializers

from catalog.choices import Currency
from planner.choices import RackCooling
from planner.models.sites import MAX_RACK_KG, MAX_RACK_KW


class NetboxImportRequestSerializer(serializers.Serializer):
    files = serializers.ListField(
        child=serializers.FileField(),
        allow_empty=False,
        help_text="NetBox's CSV exports, device-type YAML and REST API JSON pages",
    )
    dry_run = serializers.BooleanField(
        default=False, help_text="Say what would change; write nothing"
    )
    expected = serializers.CharField(
        required=False,
        help_text="A dry run's fingerprint: import only if the import would write just that (409 otherwise)",
    )
    site = serializers.CharField(required=False, default="", help_text="Only this NetBox site")
    pue = serializers.FloatField(
        required=False, min_value=1.0, max_value=3.0, help_text="PUE of new sites"
    )
    electricity_price_per_kwh = serializers.DecimalField(
        required=False, max_digits=8, decimal_places=4, min_value=0, max_value=100
    )
    currency = serializers.ChoiceField(choices=Currency.choices, required=False, default="")
    cooling_kw = serializers.FloatField(
        required=False,
        min_value=0.1,
        max_value=MAX_RACK_KW,
        help_text="Cooling per rack of new rack groups (kW)",
    )
    cooling = serializers.ChoiceField(choices=RackCooling.choices, default=RackCooling.ROOM_AIR)
    max_kg = serializers.FloatField(
        required=False,
        min_value=1,
        max_value=MAX_RACK_KG,
        help_text="Load per rack where NetBox states no max_weight (kg)",
    )
    power_kw = serializers.FloatField(
        required=False,
        min_value=0.1,
        max_value=MAX_RACK_KW,
        help_text="Power per rack where racks have no feeds (kW)",
    )


class FieldChangeSerializer(serializers.Serializer):
    field = serializers.CharField()
    old = serializers.JSONField()
    new = serializers.JSONField()


class ChangeSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(
        choices=["site", "rack_group", "rack", "power_feed", "equipment"]
    )
    name = serializers.CharField()
    action = serializers.ChoiceField(choices=["created", "updated", "unchanged", "skipped"])
    changes = FieldChangeSerializer(many=True)
    source = serializers.CharField(help_text="File, line and column of the NetBox record")
    note = serializers.CharField()


class RackPowerSerializer(serializers.Serializer):
    site = serializers.CharField()
    rack_group = serializers.CharField()
    rack = serializers.CharField()
    usable_power_kw = serializers.FloatField()
    power_from = serializers.ChoiceField(choices=["feeds", "rack", "group"])


class ImportCountsSerializer(serializers.Serializer):
    created = serializers.IntegerField()
    updated = serializers.IntegerField()
    unchanged = serializers.IntegerField()
    skipped = serializers.IntegerField()


class NetboxImportResultSerializer(serializers.Serializer):
    dry_run = serializers.BooleanField()
    fingerprint = serializers.CharField(
        help_text="Pass as `expected` to import what this run showed"
    )
    counts = ImportCountsSerializer()
    changes = ChangeSerializer(many=True)
    racks = RackPowerSerializer(many=True)
    notes = serializers.ListField(child=serializers.CharField())


class ProblemSerializer(serializers.Serializer):
    file = serializers.CharField()
    line = serializers.IntegerField()
    column = serializers.IntegerField(allow_null=True)
    field = serializers.CharField()
    message = serializers.CharField()


class NetboxImportRefusedSerializer(serializers.Serializer):
    """A file's problems (`detail` and `problems`, each with its file, line and column), or a
    field of the request that is wrong (`{"<field>": ["message"]}`, e.g. no `files`)."""

    detail = serializers.CharField(required=False)
    problems = ProblemSerializer(many=True, required=False)
