"""The fault pages' URLs, appended to `planner/urls.py` (namespace "planner")."""

from django.urls import path

from planner.faults import views

urlpatterns = [
    path("faults/", views.fault_list, name="fault_list"),
    path("faults/diagnose/", views.fault_diagnose, name="fault_diagnose"),
    path("faults/new/", views.fault_create, name="fault_create"),
    path("faults/<int:pk>/", views.fault_detail, name="fault_detail"),
    path("faults/<int:pk>/edit/", views.fault_edit, name="fault_edit"),
    path("faults/incidents/", views.fault_incident_list, name="fault_incident_list"),
    path("faults/incidents/new/", views.fault_incident_create, name="fault_incident_create"),
    path("faults/incidents/<int:pk>/", views.fault_incident_detail, name="fault_incident_detail"),
    path("faults/incidents/<int:pk>/edit/", views.fault_incident_edit, name="fault_incident_edit"),
]
