"""POST /api/v1/estimates/ and /api/v1/fit/: the questions of `manage.py estimate` and
`manage.py fit`, same JSON in and out; an array of estimate questions answers an array."""

from drf_spectacular.utils import extend_schema
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from planner.api.responses import UNAUTHENTICATED, field_errors, field_errors_response
from planner.engine import RequestError
from planner.engine.contract import FitQuestion
from planner.engine.contract.answers import FitAnswer
from planner.engine.contract.batch import MAX_BATCH_QUESTIONS, EstimateAnswers, EstimateQuestions
from planner.estimates.api.examples import EXAMPLES, FIT_EXAMPLES
from planner.estimates.services import estimate_batch_run, estimate_run, fit_run


class EstimateView(APIView):
    """Estimate memory, throughput, time and the efficiency factors of one job, or of each job
    of an array (at most 500 a request): the answers come in the same order, and a question
    that cannot be answered gives its element `{"error": {"field": ..., "message": ...}}`
    instead, without spoiling the others."""

    permission_classes = [AllowAny]  # the public estimate
    throttle_scope = "compute"

    @extend_schema(
        operation_id="estimate_create",
        request=EstimateQuestions,
        responses={
            200: EstimateAnswers,
            400: field_errors_response(
                "A field is missing or wrong; the key names it. For an array, only an empty "
                f"one or one of more than {MAX_BATCH_QUESTIONS} questions is refused whole "
                '("request").'
            ),
        },
        examples=EXAMPLES,
        tags=["estimates"],
    )
    def post(self, request):
        try:
            if isinstance(request.data, list):
                return Response(
                    estimate_batch_run(
                        data=request.data, user=request.user, limit=MAX_BATCH_QUESTIONS
                    )
                )
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
            401: UNAUTHENTICATED,
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
