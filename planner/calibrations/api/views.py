"""Calibration profiles over the API: POST a flopfit-probe report to store it and derive its
factors (201 with a Location), GET the list or one. The report is checked by
`planner.calibrations` and every write goes through `calibration_create`, as for the HTML pages
and `manage.py calibrate`; the serializers here describe the contract for the OpenAPI
document."""

from __future__ import annotations

from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiResponse
from rest_framework import generics, serializers, status
from rest_framework.exceptions import PermissionDenied

from accounts.services import user_team
from planner.api.responses import (
    collection_docs,
    create_docs,
    detail_response,
    field_errors_example,
    row_docs,
)
from planner.api.views import VisibleListCreateView, VisibleRowsMixin
from planner.calibrations.api.serializers import CalibrationSerializer
from planner.calibrations.selectors import calibration_visible_to
from planner.calibrations.services import calibration_create
from planner.engine.contract.calibration import ProbeReport
from planner.models import CalibrationProfile

# --- documentation ---------------------------------------------------------------------------


class CalibrationQuerySerializer(serializers.Serializer):
    name = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=200,
        default="",
        help_text="The profile's name; default the device name and the probe's date",
    )


FORBIDDEN = detail_response("Your role may not upload probe reports (planner).")
NOT_FOUND = detail_response("No such profile in your team or among the shared ones.")
EXAMPLES = [
    field_errors_example({"schema": ["must be 'flopfit-probe/1', not None"]}, name="Bad report")
]


# --- views -----------------------------------------------------------------------------------


@collection_docs(
    "calibrations",
    summary="Calibration profiles of your team and the shared ones, newest first",
    post=create_docs(
        summary="Store a flopfit-probe report and derive its calibration",
        description="The body is the report as flopfit-probe wrote it. When its device matches "
        'a catalog card the factors are derived; use them with `"calibration": <id>` in an '
        "estimate question.",
        request=ProbeReport,
        location="The new profile, /api/v1/calibrations/{id}/",
        parameters=[CalibrationQuerySerializer],
        responses={201: OpenApiResponse(CalibrationSerializer, description="Stored.")},
        invalid='The report is not one; the key names the field, e.g. {"matmul": '
        '["is required"]}. Nothing is stored.',
        forbidden=FORBIDDEN,
        examples=EXAMPLES,
    ),
)
class CalibrationListView(VisibleListCreateView):
    """Any signed-in role reads; planners and admins upload."""

    serializer_class = CalibrationSerializer
    visible_to = staticmethod(calibration_visible_to)
    answer_serializer = CalibrationSerializer
    detail_view = "calibration-detail"

    def make(self, request) -> tuple[CalibrationProfile, int]:
        team = user_team(request.user)
        if team is None:
            # A profile belongs to a team: the same words as writer_team's, a 403 here.
            raise PermissionDenied(_("Your account belongs to no team; ask an admin."))
        query = CalibrationQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        profile = calibration_create(
            probe=request.data, name=query.validated_data["name"], user=request.user, team=team
        )
        return profile, status.HTTP_201_CREATED


@row_docs(
    "calibrations",
    summary="One calibration profile with its derived factors and rows",
    not_found=NOT_FOUND,
)
class CalibrationDetailView(VisibleRowsMixin, generics.RetrieveAPIView):
    serializer_class = CalibrationSerializer
    visible_to = staticmethod(calibration_visible_to)
