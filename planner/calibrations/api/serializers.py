"""The calibrations API's serializers: what its endpoints take and answer, for the views and
the OpenAPI document."""

from __future__ import annotations

from rest_framework import serializers

from planner.calibrations.services import MAX_TRAINING_STEPS, SCHEMA
from planner.models import CalibrationProfile

# --- the report ------------------------------------------------------------------------------


class ProbeDeviceSerializer(serializers.Serializer):
    """The device as the probe read it; nvidia-smi's dotted keys ("power.limit", W;
    "clocks.max.sm", MHz) are read as they are and help pick the catalog card."""

    name = serializers.CharField(help_text='As the driver reports it, e.g. "NVIDIA H200"')
    memory_gib = serializers.FloatField(required=False, help_text="Device memory, GiB")
    driver_version = serializers.CharField(required=False)


class ProbeMatmulSerializer(serializers.Serializer):
    tflops = serializers.FloatField(help_text="Measured dense rate, TFLOP/s (TOPS for int8)")
    shape = serializers.ListField(child=serializers.IntegerField(), required=False)
    samples = serializers.IntegerField(required=False)


class ProbeTrainingStepSerializer(serializers.Serializer):
    name = serializers.CharField()
    layers = serializers.IntegerField(min_value=1)
    hidden = serializers.IntegerField(min_value=1)
    heads = serializers.IntegerField(min_value=1)
    kv_heads = serializers.IntegerField(min_value=1)
    ffn = serializers.IntegerField(min_value=1)
    vocab = serializers.IntegerField(min_value=1)
    seq_len = serializers.IntegerField(min_value=1)
    micro_batch = serializers.IntegerField(min_value=1)
    params = serializers.IntegerField(min_value=1)
    tokens_per_s = serializers.FloatField(help_text="Measured training throughput, tokens/s")
    precision = serializers.CharField(required=False, default="bf16")


class ProbeReportSerializer(serializers.Serializer):
    """The JSON object flopfit-probe writes (only the fields the calibration reads are
    described; others are stored as they are)."""

    schema = serializers.CharField(help_text=f'"{SCHEMA}"')
    created = serializers.DateTimeField(required=False)
    device = ProbeDeviceSerializer()
    software = serializers.DictField(
        child=serializers.CharField(), required=False, help_text="torch, cuda, python versions"
    )
    matmul = serializers.DictField(
        child=ProbeMatmulSerializer(), help_text="By precision: fp32, tf32, bf16, fp16, fp8, int8"
    )
    memory = serializers.DictField(
        child=serializers.FloatField(), help_text="d2d_gb_s (device copy, GB/s), h2d_gb_s"
    )
    allreduce = serializers.ListField(
        child=serializers.DictField(), required=False, help_text="Each with busbw_gb_s"
    )
    training = serializers.ListField(
        child=ProbeTrainingStepSerializer(),
        required=False,
        max_length=MAX_TRAINING_STEPS,
        help_text="Measured steps; the first is the reference for the end-to-end factor",
    )


# --- the profile -----------------------------------------------------------------------------


class CalibrationSerializer(serializers.ModelSerializer):
    accelerator = serializers.SlugRelatedField(
        slug_field="slug",
        read_only=True,
        allow_null=True,
        help_text="The catalog card the device matched; null when none did",
    )
    derived = serializers.JSONField(
        read_only=True,
        allow_null=True,
        help_text='Null without a catalog match. {"calibration": {gemm_efficiency by precision, '
        'memory_bw_efficiency, scale_up_efficiency, step_efficiency}, "rows": [{figure, unit, '
        "measured, datasheet, engine, calibrated, reference, used}]}",
    )

    class Meta:
        model = CalibrationProfile
        fields = ["id", "name", "device_name", "accelerator", "derived", "created_at"]
        read_only_fields = fields
