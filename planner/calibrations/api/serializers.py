"""The calibrations API's serializers: what its endpoints take and answer, for the views and
the OpenAPI document."""

from __future__ import annotations

from rest_framework import serializers

from planner.api.responses import ObjectOrNullField
from planner.models import CalibrationProfile

# --- the profile -----------------------------------------------------------------------------


class CalibrationSerializer(serializers.ModelSerializer):
    accelerator = serializers.SlugRelatedField(
        slug_field="slug",
        read_only=True,
        allow_null=True,
        help_text="The catalog card the device matched; null when none did",
    )
    derived = ObjectOrNullField(
        help_text='Null without a catalog match. {"calibration": {gemm_efficiency by precision, '
        'memory_bw_efficiency, scale_up_efficiency, step_efficiency}, "rows": [{figure, unit, '
        "measured, datasheet, engine, calibrated, reference, used}]}",
    )

    class Meta:
        model = CalibrationProfile
        fields = ["id", "name", "device_name", "accelerator", "derived", "created_at"]
        read_only_fields = fields
