"""The workload and plan pages' URLs, appended to `planner/urls.py` (namespace "planner")."""

from django.urls import path

from planner.plans.views import candidates, checks, commitments, exports, plans, workloads
from planner.web.routes import pages

urlpatterns = [
    *pages("workloads/", "workload", workloads, "list", "edit", copy=workloads.workload_copy_view),
    path("workloads/new/<slug:kind>/", workloads.workload_create_view, name="workload_create"),
    *pages("plans/", "plan", plans, "list", "detail", "compare", create=plans.plan_create_view),
    *pages("plans/", "plan", exports, "report"),
    *pages("plans/", "plan", candidates, "sweep"),
    path("plans/<int:pk>/ranking.csv", exports.plan_export_csv, name="plan_export_csv"),
    path("plans/<int:pk>/ranking.json", exports.plan_export_json, name="plan_export_json"),
    path("plans/<int:pk>/rank/", commitments.plan_rerank_view, name="plan_rerank"),
    path("plans/<int:pk>/release/", commitments.plan_release_view, name="plan_release"),
    path(
        "plans/<int:pk>/candidates/<int:cid>/commit/",
        commitments.candidate_commit,
        name="plan_candidate_commit",
    ),
    path(
        "plans/<int:pk>/serving-check/",
        checks.plan_serving_check_view,
        name="plan_serving_check",
    ),
    path(
        "plans/<int:pk>/candidates/<int:cid>/",
        candidates.candidate_detail,
        name="plan_candidate",
    ),
    path(
        "plans/<int:pk>/candidates/<int:cid>/purchase/",
        candidates.candidate_purchase,
        name="plan_candidate_purchase",
    ),
    path(
        "plans/<int:pk>/candidates/<int:cid>/purchase.csv",
        candidates.candidate_purchase_csv,
        name="plan_candidate_purchase_csv",
    ),
]
