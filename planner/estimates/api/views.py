"""POST /api/v1/estimates/ and /api/v1/fit/: the questions of `manage.py estimate` and
`manage.py fit`, same JSON in and out."""

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from planner.api.responses import field_errors, field_errors_response
from planner.engine import RequestError
from planner.engine.contract import EstimateQuestion, FitQuestion
from planner.engine.contract.answers import EstimateAnswer, FitAnswer
from planner.estimates.api.examples import EXAMPLES, FIT_EXAMPLES
from planner.estimates.services import estimate_run, fit_run


class EstimateView(APIView):
    """Estimate memory, throughput, time and the efficiency factors of one job."""

    permission_classes = [AllowAny]  # the public estimate
    throttle_scope = "compute"

    @extend_schema(
        operation_id="estimate_create",
        request=EstimateQuestion,
        responses={
            200: EstimateAnswer,
            400: field_errors_response("A field is missing or wrong; the key names it."),
        },
        examples=EXAMPLES,
        tags=["estimates"],
    )
    def post(self, request):
        try:
            answer = estimate_run(data=request.data, user=request.user)
        except RequestError as exc:
            return field_errors(exc)
        return Response(answer)


class FitView(APIView):
    """Servers per rack, the binding limit, racks needed, yearly energy and thermal derating."""

    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="fit_create",
        request=FitQuestion,
        responses={
            200: FitAnswer,
            400: field_errors_response(
                'A field is missing or wrong; the key names it, e.g. {"rack.power_kw": ["must be '
                'greater than 0, not -5"]}.'
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
            return field_errors(exc)
        return Response(answer)
