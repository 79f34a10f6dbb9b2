from django.urls import path

from planner.api import views

urlpatterns = [
    path("estimates/", views.EstimateView.as_view(), name="estimate-api"),
]

from planner.api.fit import FitView  # noqa: E402

urlpatterns += [
    path("fit/", FitView.as_view(), name="fit-api"),
]
