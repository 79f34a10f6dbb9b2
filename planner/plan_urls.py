"""The workload and plan pages' URLs, appended to `planner/urls.py` (namespace "planner")."""

from django.urls import path

from planner import plan_views

urlpatterns = [
    path("workloads/", plan_views.workload_list, name="workload_list"),
    path("workloads/new/<slug:kind>/", plan_views.workload_create_view, name="workload_create"),
    path("workloads/<int:pk>/edit/", plan_views.workload_edit, name="workload_edit"),
    path("workloads/<int:pk>/copy/", plan_views.workload_copy_view, name="workload_copy"),
    path("plans/", plan_views.plan_list, name="plan_list"),
    path("plans/new/", plan_views.plan_create_view, name="plan_create"),
    path("plans/<int:pk>/", plan_views.plan_detail, name="plan_detail"),
    path("plans/<int:pk>/compare/", plan_views.plan_compare, name="plan_compare"),
    path("plans/<int:pk>/report/", plan_views.plan_report, name="plan_report"),
    path("plans/<int:pk>/ranking.csv", plan_views.plan_export_csv, name="plan_export_csv"),
    path("plans/<int:pk>/ranking.json", plan_views.plan_export_json, name="plan_export_json"),
]
