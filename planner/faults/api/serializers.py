"""The fault guide, a team's entries and incidents, and the diagnosis over the API. Validation
beyond the field types is the model's (the services run full_clean), so the API and the pages
answer the same errors."""

from rest_framework import serializers

from catalog.models import Accelerator
from planner.api.serializers import JsonTypesMixin, catalog_slug_field
from planner.choices import FaultCategory, FaultLink
from planner.faults.selectors import MAX_TEXT_CHARS
from planner.models import FaultEntry, FaultIncident


class FaultEntrySerializer(JsonTypesMixin, serializers.ModelSerializer):
    whose = serializers.SerializerMethodField(
        help_text="guide: the shipped guide, which every team reads; team: your team's own"
    )
    key = serializers.CharField(
        source="reference_key", read_only=True, help_text="The guide's slug; empty for a team's"
    )
    from_seed = serializers.BooleanField(read_only=True)

    class Meta:
        model = FaultEntry
        fields = [
            "id",
            "key",
            "whose",
            *FaultEntry.STATED_FIELDS,
            "from_seed",
            "version",
            "updated_at",
        ]
        read_only_fields = ["version", "updated_at"]

    def get_whose(self, entry: FaultEntry) -> str:
        return "guide" if entry.is_reference else "team"


class FaultIncidentSerializer(JsonTypesMixin, serializers.ModelSerializer):
    accelerator = catalog_slug_field(
        Accelerator.objects.all(), "Catalog slug of the accelerator it happened on"
    )

    class Meta:
        model = FaultIncident
        fields = ["id", *FaultIncident.STATED_FIELDS, "version", "updated_at"]
        read_only_fields = ["version", "updated_at"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        request = self.context.get("request")
        view = self.context.get("view")
        if request is not None and view is not None and hasattr(view, "choosable"):
            entries, sites = view.choosable()
            self.fields["entry"].queryset = entries
            self.fields["site"].queryset = sites


class DiagnoseRequestSerializer(JsonTypesMixin, serializers.Serializer):
    text = serializers.CharField(
        max_length=MAX_TEXT_CHARS,
        trim_whitespace=False,
        help_text="A kernel log, nvidia-smi -q output, a Python traceback or NCCL output",
    )
    task = serializers.ChoiceField(
        choices=["train", "finetune", "inference"],
        required=False,
        help_text="The job, for the Estimate link of an out-of-memory match",
    )
    model = serializers.SlugField(required=False, help_text="Catalog slug of the job's model")
    accelerator = serializers.SlugField(
        required=False, help_text="Catalog slug of the job's accelerator"
    )
    count = serializers.IntegerField(min_value=1, required=False, help_text="Devices")


class EvidenceSerializer(serializers.Serializer):
    line_number = serializers.IntegerField(help_text="From 1, in the text as sent")
    line = serializers.CharField(help_text="The line, trimmed to 300 characters")


class ComputeLinkSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=[c for c in FaultLink.values if c])
    url = serializers.URLField(help_text="Where flopfit computes something about this fault")


class IncidentSummarySerializer(serializers.Serializer):
    id = serializers.IntegerField()
    happened_on = serializers.DateField()
    what_happened = serializers.CharField()
    fix = serializers.CharField()
    resolved = serializers.BooleanField()
    site = serializers.CharField(allow_null=True)
    hardware = serializers.CharField()


class FaultMatchSerializer(serializers.Serializer):
    entry = serializers.IntegerField(help_text="The entry's id (/api/v1/fault-entries/<id>/)")
    key = serializers.CharField(allow_null=True, help_text="The guide's slug; null for a team's")
    title = serializers.CharField()
    category = serializers.ChoiceField(choices=FaultCategory.values)
    whose = serializers.ChoiceField(choices=["guide", "team"])
    score = serializers.IntegerField(help_text="Higher ranks first")
    xid_code = serializers.IntegerField(
        allow_null=True, help_text="The Xid code the evidence line names, if it is the entry's"
    )
    evidence = EvidenceSerializer()
    lines_matched = serializers.IntegerField()
    symptoms = serializers.CharField()
    causes = serializers.ListField(child=serializers.CharField())
    checks = serializers.ListField(child=serializers.CharField(), help_text="Commands to run")
    fixes = serializers.ListField(child=serializers.CharField())
    source = serializers.CharField(allow_null=True)
    read_on = serializers.DateField(allow_null=True)
    compute = ComputeLinkSerializer(allow_null=True)
    incidents = IncidentSummarySerializer(many=True, help_text="Your team's, newest first")
    url = serializers.URLField()


class DiagnosisSerializer(serializers.Serializer):
    matches = FaultMatchSerializer(many=True, help_text="Best first; empty when nothing matches")
    unlisted_xid_codes = serializers.ListField(
        child=serializers.IntegerField(),
        help_text="Xid codes in the text that no entry lists: look them up in NVIDIA's catalog",
    )
    lines_read = serializers.IntegerField()
