"""The simulations API's serializers: what its endpoints take and answer, for the views and
the OpenAPI document."""

from __future__ import annotations

from drf_spectacular.utils import (
    PolymorphicProxySerializer,
)
from rest_framework import serializers

from planner.engine.simulate.request import MAX_REQUESTS, MAX_TRIALS
from planner.estimates.api.serializers import EngineRequestSerializer, EstimateRequestSerializer
from planner.models import Simulation

# How long a client should wait before asking again when the broker is down (seconds).

RETRY_AFTER_S = 30

# --- the question ----------------------------------------------------------------------------


class TrainingSimulationRequestSerializer(EngineRequestSerializer):
    """A training campaign: the estimate's throughput for the whole run, then failures,
    checkpoints, restarts and throttling drawn over many trials."""

    kind = serializers.CharField(help_text='"training"')
    estimate = EstimateRequestSerializer(help_text="The workload: a train or finetune estimate")
    seed = serializers.IntegerField(min_value=0, required=False, default=0)
    trials = serializers.IntegerField(
        min_value=10, max_value=MAX_TRIALS, required=False, default=10_000
    )
    failures_per_gpu_hour = serializers.FloatField(
        min_value=0, max_value=1, required=False, help_text="Default: the estimate's reliability"
    )
    checkpoint_gb_s = serializers.FloatField(
        min_value=0.001, required=False, help_text="Aggregate checkpoint write bandwidth, GB/s"
    )
    checkpoint_interval_s = serializers.FloatField(
        min_value=1, required=False, help_text="Seconds between checkpoints; default Young/Daly"
    )
    detect_s = serializers.FloatField(
        min_value=0, required=False, default=60, help_text="Seconds to notice a failure"
    )
    restart_s = serializers.FloatField(
        min_value=0, required=False, help_text="Seconds to restart after a failure"
    )
    throttle_episodes_per_hour = serializers.FloatField(
        min_value=0, max_value=100, required=False, default=0
    )
    throttle_slowdown = serializers.FloatField(
        min_value=0, max_value=0.99, required=False, default=0, help_text="Fraction slower"
    )
    throttle_mean_s = serializers.FloatField(
        min_value=0, required=False, default=0, help_text="Mean episode length, s"
    )
    straggler_slowdown = serializers.FloatField(
        min_value=0, max_value=0.99, required=False, default=0, help_text="Fraction slower"
    )


class LengthSerializer(EngineRequestSerializer):
    """A token-length distribution; a bare integer means a fixed length."""

    kind = serializers.CharField(help_text="fixed, uniform or lognormal", required=False)
    value = serializers.IntegerField(min_value=1, required=False, help_text="fixed: tokens")
    lo = serializers.IntegerField(min_value=1, required=False, help_text="uniform: lowest")
    hi = serializers.IntegerField(
        min_value=1, required=False, help_text="uniform: highest; lognormal: cap"
    )
    mean = serializers.FloatField(min_value=1, required=False, help_text="lognormal: mean")
    sigma = serializers.FloatField(
        min_value=0.01, max_value=5, required=False, help_text="lognormal: sigma of the log"
    )


class ReplicaSearchSerializer(EngineRequestSerializer):
    target_rate = serializers.FloatField(
        min_value=0.001, required=False, help_text="Requests/s to serve; default rate_per_s"
    )
    max_replicas = serializers.IntegerField(min_value=1, max_value=4096, required=False, default=64)
    attainment = serializers.FloatField(
        min_value=0.5,
        max_value=1,
        required=False,
        default=0.99,
        help_text="Share of requests that must meet the SLOs",
    )


class ServingSimulationRequestSerializer(EngineRequestSerializer):
    """Serving under load: arrivals, continuous batching within the KV-cache budget, step
    times from the estimate. Give `requests` or `duration_s`, not both."""

    kind = serializers.CharField(help_text='"serving"')
    estimate = EstimateRequestSerializer(help_text="The workload: an inference estimate")
    seed = serializers.IntegerField(min_value=0, required=False, default=0)
    rate_per_s = serializers.FloatField(min_value=0.001, max_value=1e6, help_text="Requests/s")
    arrival = serializers.CharField(
        required=False, default="poisson", help_text="poisson or bursty"
    )
    prompt = LengthSerializer(required=False, help_text="Default: the estimate's prompt_len")
    output = LengthSerializer(required=False, help_text="Default: the estimate's output_len")
    replicas = serializers.IntegerField(
        min_value=1, max_value=10_000, required=False, help_text="Default: devices / TP"
    )
    requests = serializers.IntegerField(
        min_value=10, max_value=MAX_REQUESTS, required=False, help_text="Default 20,000"
    )
    duration_s = serializers.FloatField(min_value=1, max_value=86_400, required=False)
    ttft_slo_ms = serializers.FloatField(min_value=0.001, required=False)
    tpot_slo_ms = serializers.FloatField(min_value=0.001, required=False)
    max_batch = serializers.IntegerField(min_value=1, max_value=4096, required=False, default=256)
    search = ReplicaSearchSerializer(
        required=False, help_text="Find the fewest replicas meeting the SLOs at target_rate"
    )


SIMULATION_REQUEST = PolymorphicProxySerializer(
    component_name="SimulationQuestion",
    serializers={
        "training": TrainingSimulationRequestSerializer,
        "serving": ServingSimulationRequestSerializer,
    },
    resource_type_field_name="kind",
)

# --- the row ---------------------------------------------------------------------------------


class SimulationSerializer(serializers.ModelSerializer):
    progress = serializers.FloatField(read_only=True, help_text="Share done, 0 to 1")
    inputs = serializers.JSONField(read_only=True, help_text="The question as it was asked")
    result = serializers.JSONField(
        read_only=True,
        allow_null=True,
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
