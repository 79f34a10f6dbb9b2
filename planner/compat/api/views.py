"""POST /api/v1/compat/: the question of `manage.py compat`, same JSON in and out."""

from drf_spectacular.utils import OpenApiExample
from rest_framework.permissions import AllowAny
from rest_framework.views import APIView

from planner.api.responses import engine_answer, question_docs
from planner.compat.api.serializers import CompatAnswer, CompatQuestion
from planner.compat.services import compat_check

EXAMPLES = [
    OpenApiExample(
        "A CUDA 12 build on a 470 driver",
        value={"driver": "470.82.01", "torch": "2.4.1+cu121"},
        request_only=True,
    ),
    OpenApiExample(
        "A new card and an old build",
        value={"accelerator": "nvidia-rtx-5090", "torch": "2.5.1+cu124"},
        request_only=True,
    ),
]


class CompatView(APIView):
    """Will it run? Any of a card, a driver, a CUDA version, a PyTorch version (or a framework
    and its version) and the pasted output of nvidia-smi; the answer says whether it runs, each
    clash in one sentence, and the fixes in order of effort with the commands."""

    permission_classes = [AllowAny]  # reads public data only, like the estimate

    @question_docs(
        "compat_create",
        question=CompatQuestion,
        answer=CompatAnswer,
        bad_field='A field is wrong; the key names it, e.g. {"driver": ["must be an NVIDIA '
        "driver version such as 550.54.15, not 'abc'\"]}.",
        examples=EXAMPLES,
        tag="compat",
    )
    def post(self, request):
        return engine_answer(lambda: compat_check(data=request.data))
