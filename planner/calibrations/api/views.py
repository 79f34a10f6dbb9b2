"""Calibration profiles over the API: POST a flopfit-probe report to store it and derive its
factors (201 with a Location), GET the list or one. The report is checked by
`planner.calibrations` and every write goes through `calibration_create`, as for the HTML pages
and `manage.py calibrate`; the serializers here describe the contract for the OpenAPI
document."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse
from rest_framework import generics, serializers, status
from rest_framework.exceptions import PermissionDenied
from rest_framework.response import Response

from accounts.services import user_team
from planner.api.responses import (
    create_docs,
    created,
    detail_response,
    documented,
    field_errors_example,
    field_errors_response,
    list_docs,
    location_header,
    one_docs,
)
from planner.api.views import VisibleListCreateView, VisibleRowsMixin
from planner.calibrations.api.serializers import CalibrationSerializer
from planner.calibrations.selectors import calibration_visible_to
from planner.calibrations.services import calibration_create
from planner.engine.contract.calibration import ProbeReport

# --- documentation ---------------------------------------------------------------------------


class CalibrationQuerySerializer(serializers.Serializer):
    name = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=200,
        default="",
        help_text="The profile's name; default the device name and the probe's date",
    )


LOCATION = location_header("The new profile, /api/v1/calibrations/{id}/", statuses=[201])
FORBIDDEN = detail_response("Your role may not upload probe reports (planner).")
NOT_FOUND = detail_response("No such profile in your team or among the shared ones.")
EXAMPLES = [
    field_errors_example({"schema": ["must be 'flopfit-probe/1', not None"]}, name="Bad report")
]


# --- views -----------------------------------------------------------------------------------


@documented(
    "calibrations",
    get=list_docs(
        summary="Calibration profiles of your team and the shared ones, newest first",
        serializer=CalibrationSerializer,
    ),
    post=create_docs(
        summary="Store a flopfit-probe report and derive its calibration",
        description="The body is the report as flopfit-probe wrote it. When its device matches "
        'a catalog card the factors are derived; use them with `"calibration": <id>` in an '
        "estimate question.",
        request=ProbeReport,
        parameters=[CalibrationQuerySerializer, LOCATION],
        responses={
            201: OpenApiResponse(CalibrationSerializer, description="Stored."),
            400: field_errors_response(
                'The report is not one; the key names the field, e.g. {"matmul": '
                '["is required"]}. Nothing is stored.'
            ),
        },
        forbidden=FORBIDDEN,
        examples=EXAMPLES,
    ),
)
class CalibrationListView(VisibleListCreateView):
    """Any signed-in role reads; planners and admins upload."""

    serializer_class = CalibrationSerializer
    visible_to = staticmethod(calibration_visible_to)

    def create(self, request, *args, **kwargs) -> Response:
        if user_team(request.user) is None:
            raise PermissionDenied(
                "An account outside every team cannot own a calibration profile."
            )
        query = CalibrationQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        return created(
            lambda: (
                calibration_create(
                    probe=request.data,
                    name=query.validated_data["name"],
                    user=request.user,
                    team=user_team(request.user),
                ),
                status.HTTP_201_CREATED,
            ),
            serialize=lambda profile: CalibrationSerializer(profile).data,
            detail_view="calibration-detail",
        )


@documented(
    "calibrations",
    get=one_docs(
        summary="One calibration profile with its derived factors and rows",
        serializer=CalibrationSerializer,
        not_found=NOT_FOUND,
    ),
)
class CalibrationDetailView(VisibleRowsMixin, generics.RetrieveAPIView):
    serializer_class = CalibrationSerializer
    visible_to = staticmethod(calibration_visible_to)
