"""The plans API's URLs; config/urls.py includes them under /api/v1/."""

from django.urls import path

from planner.plans.api.views import PlanCandidatesView, PlanDetailView, PlanListView

urlpatterns = [
    path("plans/", PlanListView.as_view(), name="plan-list"),
    path("plans/<int:pk>/", PlanDetailView.as_view(), name="plan-detail"),
    path("plans/<int:pk>/candidates/", PlanCandidatesView.as_view(), name="plan-candidates"),
]
