"""The simulations API's URLs; config/urls.py includes them under /api/v1/."""

from django.urls import path

from planner.simulations.api import views

urlpatterns = [
    path("simulations/", views.SimulationListView.as_view(), name="simulation-list"),
    path("simulations/<int:pk>/", views.SimulationDetailView.as_view(), name="simulation-detail"),
    # An action on the run, which stays readable as cancelled: not a DELETE.
    path(
        "simulations/<int:pk>/cancel/",
        views.SimulationCancelView.as_view(),
        name="simulation-cancel",
    ),
]
