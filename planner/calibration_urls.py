"""The calibration pages' URLs, appended to `planner/urls.py` (namespace "planner")."""

from django.urls import path

from planner import calibration_views

urlpatterns = [
    path("calibrations/", calibration_views.calibration_list, name="calibration_list"),
    path(
        "calibrations/<int:pk>/",
        calibration_views.calibration_detail,
        name="calibration_detail",
    ),
]
