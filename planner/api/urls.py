"""Every planner feature's API, included once by config/urls.py under /api/v1/."""

from django.urls import include, path

urlpatterns = [
    path("", include("planner.estimates.api.urls")),
    path("", include("planner.sites.api.urls")),
    path("", include("planner.racks.api.urls")),
    path("", include("planner.simulations.api.urls")),
    path("", include("planner.plans.api.urls")),
    path("", include("planner.calibrations.api.urls")),
    path("", include("planner.prices.api.urls")),
    path("", include("planner.compat.api.urls")),
    path("", include("planner.faults.api.urls")),
    path("", include("planner.netbox.api.urls")),
]
