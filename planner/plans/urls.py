"""The workload and plan pages' URLs, appended to `planner/urls.py` (namespace "planner")."""

from django.urls import path

from planner.plans.views import candidates, checks, commitments, exports, plans, workloads
from planner.web.routes import pages, under

urlpatterns = [
    *pages("workloads/", "workload", workloads, "list", "edit", copy=workloads.workload_copy_view),
    path("workloads/new/<slug:kind>/", workloads.workload_create_view, name="workload_create"),
    *pages("plans/", "plan", plans, "list", "detail", "compare", create=plans.plan_create_view),
    *pages("plans/", "plan", exports, "report"),
    *pages("plans/", "plan", candidates, "sweep"),
    *under(
        "plans/",
        "plan",
        export_csv=("ranking.csv", exports.plan_export_csv),
        export_json=("ranking.json", exports.plan_export_json),
        rerank=("rank/", commitments.plan_rerank_view),
        release=("release/", commitments.plan_release_view),
        serving_check=("serving-check/", checks.plan_serving_check_view),
        candidate=("candidates/<int:cid>/", candidates.candidate_detail),
        candidate_commit=("candidates/<int:cid>/commit/", commitments.candidate_commit),
        candidate_simulate=("candidates/<int:cid>/simulate/", candidates.candidate_simulate),
        candidate_purchase=("candidates/<int:cid>/purchase/", candidates.candidate_purchase),
        candidate_purchase_csv=(
            "candidates/<int:cid>/purchase.csv",
            candidates.candidate_purchase_csv,
        ),
    ),
]
