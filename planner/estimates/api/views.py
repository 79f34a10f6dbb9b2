"""POST /api/v1/estimates/ and /api/v1/fit/: the questions of `manage.py estimate` and
`manage.py fit`, same JSON in and out; an array of estimate questions answers an array."""

from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.views import APIView

from planner.api.responses import UNAUTHENTICATED, engine_answer, question_docs
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

    @question_docs(
        "estimate_create",
        question=EstimateQuestions,
        answer=EstimateAnswers,
        bad_field="A field is missing or wrong; the key names it. For an array, only an empty "
        f"one or one of more than {MAX_BATCH_QUESTIONS} questions is refused whole "
        '("request").',
        examples=EXAMPLES,
        tag="estimates",
    )
    def post(self, request):
        if isinstance(request.data, list):
            return engine_answer(
                lambda: estimate_batch_run(
                    data=request.data, user=request.user, limit=MAX_BATCH_QUESTIONS
                )
            )
        return engine_answer(lambda: estimate_run(data=request.data, user=request.user))


class FitView(APIView):
    """Servers per rack, the binding limit, racks needed, yearly energy and thermal derating."""

    permission_classes = [IsAuthenticated]

    @question_docs(
        "fit_create",
        question=FitQuestion,
        answer=FitAnswer,
        bad_field='A field is missing or wrong; the key names it, e.g. {"rack.power_kw": ["must be '
        'greater than 0, not -5"]}.',
        examples=FIT_EXAMPLES,
        tag="fit",
        r401=UNAUTHENTICATED,
    )
    def post(self, request):
        return engine_answer(lambda: fit_run(data=request.data))
