"""The simulations API's serializers: what its endpoints take and answer, for the views and
the OpenAPI document."""

from __future__ import annotations

from rest_framework import serializers

from planner.api.responses import ObjectOrNullField
from planner.models import Simulation

# --- the row ---------------------------------------------------------------------------------


class SimulationSerializer(serializers.ModelSerializer):
    progress = serializers.FloatField(read_only=True, help_text="Share done, 0 to 1")
    inputs = serializers.JSONField(read_only=True, help_text="The question as it was asked")
    result = ObjectOrNullField(
        help_text="Null until succeeded. Training: completion_days and completion_s "
        "percentiles, goodput, lost_s by cause, interval_grid, histogram. Serving: ttft_ms, "
        "tpot_ms and e2e_ms percentiles, slo attainment, queue series, replica_search.",
    )
    error = serializers.CharField(read_only=True, help_text="Why it failed; empty otherwise")

    class Meta:
        model = Simulation
        fields = [
            "id",
            "kind",
            "status",
            "progress",
            "inputs",
            "result",
            "error",
            "attempts",
            "model_version",
            "created_at",
            "queued_at",
            "started_at",
            "finished_at",
        ]
        read_only_fields = fields


class SimulationSummarySerializer(SimulationSerializer):
    """A row of the list: everything but the result, which can be large; GET the row for it."""

    # A plain string here: a second component with the kind enum would make drf-spectacular
    # name it by hash (the history's "kind" enum already claims the plain name).
    kind = serializers.CharField(read_only=True, help_text="training or serving")

    class Meta(SimulationSerializer.Meta):
        fields = [name for name in SimulationSerializer.Meta.fields if name != "result"]
        read_only_fields = fields


class CancelConflictSerializer(serializers.Serializer):
    detail = serializers.CharField()
    status = serializers.CharField(help_text="The status the simulation finished with")
