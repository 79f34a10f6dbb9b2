"""The estimates API's URLs; planner/api/urls.py includes them under /api/v1/."""

from django.urls import path

from planner.estimates.api.views import EstimateView, FitView

urlpatterns = [
    path("estimates/", EstimateView.as_view(), name="estimate-api"),
    path("fit/", FitView.as_view(), name="fit-api"),
]
