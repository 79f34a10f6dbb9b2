"""The simulation pages' URLs, appended to `planner/urls.py` (namespace "planner")."""

from django.urls import path

from planner import simulation_views

urlpatterns = [
    path("simulations/", simulation_views.simulation_list, name="simulation_list"),
    path(
        "simulations/new/<slug:kind>/",
        simulation_views.simulation_create,
        name="simulation_create",
    ),
    path("simulations/<int:pk>/", simulation_views.simulation_detail, name="simulation_detail"),
    path(
        "simulations/<int:pk>/cancel/",
        simulation_views.simulation_cancel_view,
        name="simulation_cancel",
    ),
]
