"""Simulations over the API: POST a question to queue it (202 with a Location to poll), GET
one or the list, DELETE to cancel. Validation is the engine's (planner.engine.simulate.request)
and every write goes through planner.simulations, as for the HTML pages and
`manage.py simulate`; the serializers here describe the contract for the OpenAPI document."""

from __future__ import annotations

from django.urls import reverse
from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    OpenApiResponse,
    PolymorphicProxySerializer,
    extend_schema,
    extend_schema_view,
)
from rest_framework import generics, serializers, status
from rest_framework.parsers import JSONParser
from rest_framework.response import Response

from accounts.permissions import PlannerWrites
from planner.api.responses import UNAUTHENTICATED
from planner.api.serializers import (
    EngineRequestSerializer,
    EstimateRequestSerializer,
    FieldErrorsSerializer,
)
from planner.api.site_serializers import DetailSerializer
from planner.engine import RequestError
from planner.engine.simulate.request import MAX_REQUESTS, MAX_TRIALS
from planner.models import Simulation
from planner.simulation_forms import SimulationFilterSet
from planner.simulations import QueueUnavailable, simulation_cancel, simulation_start

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


# --- documentation ---------------------------------------------------------------------------

LOCATION = OpenApiParameter(
    "Location",
    OpenApiTypes.STR,
    location=OpenApiParameter.HEADER,
    response=[200, 202],
    description="The simulation to poll, /api/v1/simulations/{id}/",
)
RETRY_AFTER = OpenApiParameter(
    "Retry-After",
    OpenApiTypes.INT,
    location=OpenApiParameter.HEADER,
    response=[503],
    description="Seconds to wait before asking again",
)
FORBIDDEN = OpenApiResponse(
    DetailSerializer, description="Your role may not start or cancel simulations (planner)."
)
NOT_FOUND = OpenApiResponse(DetailSerializer, description="No such simulation.")
EXAMPLES = [
    OpenApiExample(
        "Pre-train Llama 3 8B on 64 H100 with failures",
        value={
            "kind": "training",
            "estimate": {
                "task": "train",
                "model": "meta-llama-3-8b",
                "accelerator": "nvidia-h100-sxm5-80gb",
                "count": 64,
                "tokens": 1e11,
            },
            "failures_per_gpu_hour": 2e-5,
            "checkpoint_gb_s": 20,
            "restart_s": 600,
            "trials": 10000,
        },
        request_only=True,
    ),
    OpenApiExample(
        "Serve Llama 3 8B at 5 requests/s and find replicas for 20",
        value={
            "kind": "serving",
            "estimate": {
                "task": "inference",
                "model": "meta-llama-3-8b",
                "accelerator": "nvidia-h100-sxm5-80gb",
                "count": 1,
            },
            "rate_per_s": 5,
            "arrival": "poisson",
            "prompt": {"kind": "lognormal", "mean": 512, "sigma": 0.8, "hi": 4096},
            "output": {"kind": "uniform", "lo": 64, "hi": 256},
            "ttft_slo_ms": 500,
            "tpot_slo_ms": 50,
            "requests": 20000,
            "search": {"target_rate": 20},
        },
        request_only=True,
    ),
    OpenApiExample(
        "Queued",
        value={
            "id": 7,
            "kind": "serving",
            "status": "queued",
            "progress": 0.0,
            "inputs": {"kind": "serving", "estimate": {"...": "..."}, "rate_per_s": 5},
            "result": None,
            "error": "",
            "attempts": 0,
            "model_version": "1.0.0",
            "created_at": "2025-01-01T10:00:00Z",
            "queued_at": "2025-01-01T10:00:00Z",
            "started_at": None,
            "finished_at": None,
        },
        response_only=True,
        status_codes=["202"],
    ),
    OpenApiExample(
        "Bad field",
        value={"estimate.model": ["unknown model 'no-such'"]},
        response_only=True,
        status_codes=["400"],
    ),
]


# --- views -----------------------------------------------------------------------------------


@extend_schema(tags=["simulations"])
@extend_schema_view(
    get=extend_schema(
        summary="Simulations, newest first",
        responses={200: SimulationSummarySerializer(many=True), 401: UNAUTHENTICATED},
    ),
    post=extend_schema(
        summary="Queue a simulation, or get the run that answers the same question",
        description="202 when queued now (new, or asked again after it failed, timed out or "
        "was cancelled); 200 with the existing row when the same question is queued, running "
        "or done. Either way `Location` names the row to poll.",
        request=SIMULATION_REQUEST,
        parameters=[LOCATION, RETRY_AFTER],
        responses={
            200: OpenApiResponse(SimulationSerializer, description="Already asked: that row."),
            202: OpenApiResponse(SimulationSerializer, description="Queued."),
            400: OpenApiResponse(
                FieldErrorsSerializer,
                description='A field is missing or wrong; the key names it, e.g. {"estimate.'
                'model": ["..."]} or {"rate_per_s": ["..."]}.',
            ),
            401: UNAUTHENTICATED,
            403: FORBIDDEN,
            503: OpenApiResponse(
                DetailSerializer,
                description="The task queue did not answer; nothing is queued. Try again.",
            ),
        },
        examples=EXAMPLES,
    ),
)
class SimulationListView(generics.ListCreateAPIView):
    """Any signed-in role reads; planners and admins queue."""

    queryset = Simulation.objects.all()
    serializer_class = SimulationSummarySerializer
    permission_classes = [PlannerWrites]
    parser_classes = [JSONParser]
    filterset_class = SimulationFilterSet
    throttle_scope = "compute"  # POST queues minutes of CPU

    def create(self, request, *args, **kwargs) -> Response:
        try:
            simulation, queued = simulation_start(data=request.data, user=request.user)
        except RequestError as exc:
            return Response({exc.field: [exc.message]}, status=status.HTTP_400_BAD_REQUEST)
        except QueueUnavailable:
            return Response(
                {"detail": _("The task queue did not answer, so nothing was queued. Try again.")},
                status=status.HTTP_503_SERVICE_UNAVAILABLE,
                headers={"Retry-After": str(RETRY_AFTER_S)},
            )
        return Response(
            SimulationSerializer(simulation).data,
            status=status.HTTP_202_ACCEPTED if queued else status.HTTP_200_OK,
            headers={"Location": reverse("simulation-detail", kwargs={"pk": simulation.pk})},
        )


@extend_schema(tags=["simulations"])
@extend_schema_view(
    get=extend_schema(
        summary="One simulation: status, progress and, once succeeded, the result",
        responses={200: SimulationSerializer, 401: UNAUTHENTICATED, 404: NOT_FOUND},
    ),
    delete=extend_schema(
        summary="Cancel a queued or running simulation",
        description="A running one stops at its next progress report.",
        responses={
            202: OpenApiResponse(SimulationSerializer, description="Cancelled."),
            401: UNAUTHENTICATED,
            403: FORBIDDEN,
            404: NOT_FOUND,
            409: OpenApiResponse(CancelConflictSerializer, description="It had already finished."),
        },
    ),
)
class SimulationDetailView(generics.RetrieveDestroyAPIView):
    queryset = Simulation.objects.all()
    serializer_class = SimulationSerializer
    permission_classes = [PlannerWrites]

    def destroy(self, request, *args, **kwargs) -> Response:
        simulation = self.get_object()
        if not simulation_cancel(simulation=simulation):
            return Response(
                {
                    "detail": _("The simulation had already finished."),
                    "status": simulation.status,
                },
                status=status.HTTP_409_CONFLICT,
            )
        return Response(self.get_serializer(simulation).data, status=status.HTTP_202_ACCEPTED)
