"""The compatibility page's URL, appended to `planner/urls.py` (namespace "planner")."""

from django.urls import path

from planner.compat import views

urlpatterns = [path("compat/", views.compat, name="compat")]
