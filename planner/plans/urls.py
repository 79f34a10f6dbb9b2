"""The workload and plan pages' URLs, appended to `planner/urls.py` (namespace "planner")."""

from django.urls import path

from planner.plans.views import candidates, exports, plans, workloads

urlpatterns = [
    path("workloads/", workloads.workload_list, name="workload_list"),
    path("workloads/new/<slug:kind>/", workloads.workload_create_view, name="workload_create"),
    path("workloads/<int:pk>/edit/", workloads.workload_edit, name="workload_edit"),
    path("workloads/<int:pk>/copy/", workloads.workload_copy_view, name="workload_copy"),
    path("plans/", plans.plan_list, name="plan_list"),
    path("plans/new/", plans.plan_create_view, name="plan_create"),
    path("plans/<int:pk>/", plans.plan_detail, name="plan_detail"),
    path("plans/<int:pk>/compare/", plans.plan_compare, name="plan_compare"),
    path("plans/<int:pk>/report/", exports.plan_report, name="plan_report"),
    path("plans/<int:pk>/ranking.csv", exports.plan_export_csv, name="plan_export_csv"),
    path("plans/<int:pk>/ranking.json", exports.plan_export_json, name="plan_export_json"),
    path("plans/<int:pk>/sweep/", candidates.plan_sweep, name="plan_sweep"),
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
