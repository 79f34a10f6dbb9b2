"""The calibration pages' URLs, appended to `planner/urls.py` (namespace "planner")."""

from django.urls import path

from planner.calibrations import views

urlpatterns = [
    path("calibrations/", views.calibration_list, name="calibration_list"),
    path(
        "calibrations/<int:pk>/",
        views.calibration_detail,
        name="calibration_detail",
    ),
]
