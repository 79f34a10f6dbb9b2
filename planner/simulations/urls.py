"""The simulation pages' URLs, appended to `planner/urls.py` (namespace "planner")."""

from django.urls import path

from planner.simulations import views

urlpatterns = [
    path("simulations/", views.simulation_list, name="simulation_list"),
    path(
        "simulations/new/<slug:kind>/",
        views.simulation_create,
        name="simulation_create",
    ),
    path("simulations/<int:pk>/", views.simulation_detail, name="simulation_detail"),
    path(
        "simulations/<int:pk>/cancel/",
        views.simulation_cancel_view,
        name="simulation_cancel",
    ),
]
