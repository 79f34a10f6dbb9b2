"""The calibrations API's URLs; config/urls.py includes them under /api/v1/."""

from django.urls import path

from planner.calibrations.api.views import CalibrationDetailView, CalibrationListView

urlpatterns = [
    path("calibrations/", CalibrationListView.as_view(), name="calibration-list"),
    path("calibrations/<int:pk>/", CalibrationDetailView.as_view(), name="calibration-detail"),
]
