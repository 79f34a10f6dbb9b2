"""The estimate page's URL, appended to `planner/urls.py` (namespace "planner")."""

from django.urls import path

from planner.estimates import views

urlpatterns = [
    path("estimate/", views.estimate, name="estimate"),
]
