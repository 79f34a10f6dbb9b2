from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from planner.api.serializers import (
    EXAMPLES,
    EstimateRequestSerializer,
    EstimateResponseSerializer,
    FieldErrorsSerializer,
)
from planner.engine import RequestError
from planner.services import estimate_run


class EstimateView(APIView):
    """Estimate memory, throughput, time and the efficiency factors of one job."""

    permission_classes = [AllowAny]  # the public estimate
    throttle_scope = "compute"

    @extend_schema(
        operation_id="estimate_create",
        request=EstimateRequestSerializer,
        responses={
            200: EstimateResponseSerializer,
            400: OpenApiResponse(
                FieldErrorsSerializer, description="A field is missing or wrong; the key names it."
            ),
        },
        examples=EXAMPLES,
        tags=["estimates"],
    )
    def post(self, request):
        try:
            answer = estimate_run(data=request.data, user=request.user)
        except RequestError as exc:
            return Response({exc.field: [exc.message]}, status=status.HTTP_400_BAD_REQUEST)
        return Response(answer)
