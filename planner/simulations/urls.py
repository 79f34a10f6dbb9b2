"""The simulation pages' URLs, appended to `planner/urls.py` (namespace "planner")."""

from django.urls import path

from planner.simulations import views
from planner.web.routes import pages

urlpatterns = [
    *pages("simulations/", "simulation", views, "list", "detail"),
    path("simulations/new/<slug:kind>/", views.simulation_create, name="simulation_create"),
    path("simulations/<int:pk>/cancel/", views.simulation_cancel_view, name="simulation_cancel"),
]
