"""The fault pages' URLs, appended to `planner/urls.py` (namespace "planner")."""

from django.urls import path

from planner.faults import views
from planner.web.routes import pages

urlpatterns = [
    *pages("faults/", "fault", views, "list", "create", "detail", "edit"),
    path("faults/diagnose/", views.fault_diagnose, name="fault_diagnose"),
    *pages("faults/incidents/", "fault_incident", views, "list", "create", "detail", "edit"),
]
