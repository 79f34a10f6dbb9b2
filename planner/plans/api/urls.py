"""The plans API's URLs; config/urls.py includes them under /api/v1/."""

from django.urls import path

from planner.plans.api.commitments import (
    PlanCommitmentsView,
    PlanCommitView,
    PlanRankView,
    PlanReleaseView,
)
from planner.plans.api.views import (
    PlanCandidatesView,
    PlanCandidateView,
    PlanDetailView,
    PlanListView,
    PlanPurchaseListView,
)

urlpatterns = [
    path("plans/", PlanListView.as_view(), name="plan-list"),
    path("plans/<int:pk>/", PlanDetailView.as_view(), name="plan-detail"),
    path("plans/<int:pk>/candidates/", PlanCandidatesView.as_view(), name="plan-candidates"),
    path("plans/<int:pk>/commitments/", PlanCommitmentsView.as_view(), name="plan-commitments"),
    path("plans/<int:pk>/release/", PlanReleaseView.as_view(), name="plan-release"),
    path("plans/<int:pk>/rank/", PlanRankView.as_view(), name="plan-rank"),
    path(
        "plans/<int:pk>/candidates/<int:cid>/commit/",
        PlanCommitView.as_view(),
        name="plan-candidate-commit",
    ),
    path(
        "plans/<int:pk>/candidates/<int:cid>/",
        PlanCandidateView.as_view(),
        name="plan-candidate",
    ),
    path(
        "plans/<int:pk>/candidates/<int:cid>/purchase-list/",
        PlanPurchaseListView.as_view(),
        name="plan-candidate-purchase-list",
    ),
]
