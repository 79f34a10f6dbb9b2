"""The simulations API's URLs; config/urls.py includes them under /api/v1/."""

from django.urls import path

from planner.simulations.api.views import (
    SimulationCancelView,
    SimulationDetailView,
    SimulationListView,
)

urlpatterns = [
    path("simulations/", SimulationListView.as_view(), name="simulation-list"),
    path("simulations/<int:pk>/", SimulationDetailView.as_view(), name="simulation-detail"),
    path("simulations/<int:pk>/cancel/", SimulationCancelView.as_view(), name="simulation-cancel"),
]
