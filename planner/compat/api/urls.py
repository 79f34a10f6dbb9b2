"""The compatibility API's URL; config/urls.py includes it under /api/v1/."""

from django.urls import path

from planner.compat.api.views import CompatView

urlpatterns = [path("compat/", CompatView.as_view(), name="compat")]
