"""POST /api/v1/fit/: the facility fit of `manage.py fit`, same JSON in and out."""

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from planner.api.serializers import (
    FIT_EXAMPLES,
    FieldErrorsSerializer,
    FitRequestSerializer,
    FitResponseSerializer,
)
from planner.engine import RequestError
from planner.services import fit_run


class FitView(APIView):
    """Servers per rack, the binding limit, racks needed, yearly energy and thermal derating."""

    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="fit_create",
        request=FitRequestSerializer,
        responses={
            200: FitResponseSerializer,
            400: OpenApiResponse(
                FieldErrorsSerializer,
                description='A field is missing or wrong; the key names it, e.g. {"rack.power_kw": ["must be greater than 0, not -5"]}.',
            ),
            403: OpenApiResponse(description="Not signed in."),
        },
        examples=FIT_EXAMPLES,
        tags=["fit"],
    )
    def post(self, request):
        try:
            answer = fit_run(data=request.data)
        except RequestError as exc:
            return Response({exc.field: [exc.message]}, status=status.HTTP_400_BAD_REQUEST)
        return Response(answer)
