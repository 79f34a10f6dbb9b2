"""Calibration profiles over the API: POST a flopfit-probe report to store it and derive its
factors (201 with a Location), GET the list or one. The report is checked by
`planner.calibrations` and every write goes through `calibration_create`, as for the HTML pages
and `manage.py calibrate`; the serializers here describe the contract for the OpenAPI
document."""

from __future__ import annotations

from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_view,
)
from rest_framework import generics, serializers, status
from rest_framework.exceptions import PermissionDenied
from rest_framework.parsers import JSONParser
from rest_framework.response import Response

from accounts.permissions import PlannerWrites
from accounts.services import user_team
from planner.api.responses import UNAUTHENTICATED
from planner.api.serializers import FieldErrorsSerializer
from planner.api.site_serializers import DetailSerializer
from planner.calibrations import MAX_TRAINING_STEPS, SCHEMA, calibration_create
from planner.engine import RequestError
from planner.models import CalibrationProfile
from planner.selectors import calibration_visible_to

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


# --- documentation ---------------------------------------------------------------------------


class CalibrationQuerySerializer(serializers.Serializer):
    name = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=200,
        default="",
        help_text="The profile's name; default the device name and the probe's date",
    )


LOCATION = OpenApiParameter(
    "Location",
    OpenApiTypes.STR,
    location=OpenApiParameter.HEADER,
    response=[201],
    description="The new profile, /api/v1/calibrations/{id}/",
)
FORBIDDEN = OpenApiResponse(
    DetailSerializer, description="Your role may not upload probe reports (planner)."
)
NOT_FOUND = OpenApiResponse(
    DetailSerializer, description="No such profile in your team or among the shared ones."
)
EXAMPLES = [
    OpenApiExample(
        "Bad report",
        value={"schema": ["must be 'flopfit-probe/1', not None"]},
        response_only=True,
        status_codes=["400"],
    ),
]


# --- views -----------------------------------------------------------------------------------


@extend_schema(tags=["calibrations"])
@extend_schema_view(
    get=extend_schema(
        summary="Calibration profiles of your team and the shared ones, newest first",
        responses={200: CalibrationSerializer(many=True), 401: UNAUTHENTICATED},
    ),
    post=extend_schema(
        summary="Store a flopfit-probe report and derive its calibration",
        description="The body is the report as flopfit-probe wrote it. When its device matches "
        'a catalog card the factors are derived; use them with `"calibration": <id>` in an '
        "estimate question.",
        request=ProbeReportSerializer,
        parameters=[CalibrationQuerySerializer, LOCATION],
        responses={
            201: OpenApiResponse(CalibrationSerializer, description="Stored."),
            400: OpenApiResponse(
                FieldErrorsSerializer,
                description='The report is not one; the key names the field, e.g. {"matmul": '
                '["is required"]}. Nothing is stored.',
            ),
            401: UNAUTHENTICATED,
            403: FORBIDDEN,
        },
        examples=EXAMPLES,
    ),
)
class CalibrationListView(generics.ListCreateAPIView):
    """Any signed-in role reads; planners and admins upload."""

    serializer_class = CalibrationSerializer
    permission_classes = [PlannerWrites]
    parser_classes = [JSONParser]

    def get_queryset(self):
        return calibration_visible_to(self.request.user)

    def create(self, request, *args, **kwargs) -> Response:
        if user_team(request.user) is None:
            raise PermissionDenied(
                "An account outside every team cannot own a calibration profile."
            )
        query = CalibrationQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        try:
            profile = calibration_create(
                probe=request.data,
                name=query.validated_data["name"],
                user=request.user,
                team=user_team(request.user),
            )
        except RequestError as exc:
            return Response({exc.field: [exc.message]}, status=status.HTTP_400_BAD_REQUEST)
        return Response(
            CalibrationSerializer(profile).data,
            status=status.HTTP_201_CREATED,
            headers={"Location": reverse("calibration-detail", kwargs={"pk": profile.pk})},
        )


@extend_schema(tags=["calibrations"])
@extend_schema_view(
    get=extend_schema(
        summary="One calibration profile with its derived factors and rows",
        responses={200: CalibrationSerializer, 401: UNAUTHENTICATED, 404: NOT_FOUND},
    ),
)
class CalibrationDetailView(generics.RetrieveAPIView):
    serializer_class = CalibrationSerializer
    permission_classes = [PlannerWrites]

    def get_queryset(self):
        return calibration_visible_to(self.request.user)
