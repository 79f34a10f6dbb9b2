"""Simulations over the API: POST a question to queue it (202 with a Location to poll), GET
one or the list, POST to its `cancel/` to cancel it (the run stays readable, as cancelled, so
it is an action on the row rather than a DELETE). Validation is the engine's (planner.engine.simulate.request)
and every write goes through planner.simulations, as for the HTML pages and
`manage.py simulate`; the serializers here describe the contract for the OpenAPI document."""

from __future__ import annotations

from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
)
from rest_framework import generics, status
from rest_framework.response import Response

from accounts.permissions import PlannerWrites
from planner.api.responses import (
    NO_BODY,
    UNAUTHENTICATED,
    collection_docs,
    create_docs,
    detail_response,
    documented,
    field_errors_example,
    row_docs,
)
from planner.api.views import VisibleListCreateView, VisibleRowsMixin
from planner.engine.contract.simulation import SimulationRequest
from planner.models import Simulation
from planner.simulations.api.serializers import (
    CancelConflictSerializer,
    SimulationSerializer,
    SimulationSummarySerializer,
)
from planner.simulations.filtersets import SimulationFilterSet
from planner.simulations.selectors import simulation_visible_to
from planner.simulations.services import simulation_cancel, simulation_start

# --- documentation ---------------------------------------------------------------------------

RETRY_AFTER = OpenApiParameter(
    "Retry-After",
    OpenApiTypes.INT,
    location=OpenApiParameter.HEADER,
    response=[503],
    description="Seconds to wait before asking again",
)
FORBIDDEN = detail_response("Your role may not start or cancel simulations (planner).")
NOT_FOUND = detail_response("No such simulation.")
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
            "model_version": "1.3.0",
            "created_at": "2025-01-01T10:00:00Z",
            "queued_at": "2025-01-01T10:00:00Z",
            "started_at": None,
            "finished_at": None,
        },
        response_only=True,
        status_codes=["202"],
    ),
    field_errors_example({"estimate.model": ["unknown model 'no-such'"]}),
]


# --- views -----------------------------------------------------------------------------------


@collection_docs(
    "simulations",
    summary="Simulations, newest first",
    post=create_docs(
        summary="Queue a simulation, or get the run that answers the same question",
        description="202 when queued now (new, or asked again after it failed, timed out or "
        "was cancelled); 200 with the existing row when the same question is queued, running "
        "or done. Either way `Location` names the row to poll.",
        request=SimulationRequest,
        location="The simulation to poll, /api/v1/simulations/{id}/",
        parameters=[RETRY_AFTER],
        responses={
            200: OpenApiResponse(SimulationSerializer, description="Already asked: that row."),
            202: OpenApiResponse(SimulationSerializer, description="Queued."),
            503: detail_response("The task queue did not answer; nothing is queued. Try again."),
        },
        invalid='A field is missing or wrong; the key names it, e.g. {"estimate.model": '
        '["..."]} or {"rate_per_s": ["..."]}.',
        forbidden=FORBIDDEN,
        examples=EXAMPLES,
    ),
)
class SimulationListView(VisibleListCreateView):
    """Any signed-in role reads its team's runs; planners and admins queue."""

    visible_to = staticmethod(simulation_visible_to)
    queryset = Simulation.objects.none()  # the schema's model; rows come from visible_to
    serializer_class = SimulationSummarySerializer
    filterset_class = SimulationFilterSet
    throttle_scope = "compute"  # POST queues minutes of CPU
    answer_serializer = SimulationSerializer
    detail_view = "simulation-detail"

    def make(self, request) -> tuple[Simulation, int]:
        simulation, queued = simulation_start(data=request.data, user=request.user)
        return simulation, status.HTTP_202_ACCEPTED if queued else status.HTTP_200_OK


@row_docs(
    "simulations",
    summary="One simulation: status, progress and, once succeeded, the result",
    not_found=NOT_FOUND,
)
class SimulationDetailView(VisibleRowsMixin, generics.RetrieveAPIView):
    """Another team's run is a 404."""

    visible_to = staticmethod(simulation_visible_to)
    queryset = Simulation.objects.none()  # the schema's model; rows come from visible_to
    serializer_class = SimulationSerializer
    permission_classes = [PlannerWrites]


@documented(
    "simulations",
    post=extend_schema(
        summary="Cancel a queued or running simulation",
        description="A running one stops at its next progress report; the run stays readable, "
        "as cancelled.",
        request=NO_BODY,
        responses={
            202: OpenApiResponse(SimulationSerializer, description="Cancelled."),
            401: UNAUTHENTICATED,
            403: FORBIDDEN,
            404: NOT_FOUND,
            409: OpenApiResponse(CancelConflictSerializer, description="It had already finished."),
        },
    ),
)
class SimulationCancelView(VisibleRowsMixin, generics.GenericAPIView):
    """Another team's run is a 404, as to read it."""

    visible_to = staticmethod(simulation_visible_to)
    queryset = Simulation.objects.none()
    serializer_class = SimulationSerializer
    permission_classes = [PlannerWrites]

    def post(self, request, *args, **kwargs) -> Response:
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
