"""Every planner feature's pages under one namespace, "planner"; config/urls.py includes it."""

from planner.calibrations.urls import urlpatterns as calibration_urlpatterns
from planner.compat.urls import urlpatterns as compat_urlpatterns
from planner.estimates.urls import urlpatterns as estimate_urlpatterns
from planner.faults.urls import urlpatterns as fault_urlpatterns
from planner.netbox.urls import urlpatterns as netbox_urlpatterns
from planner.plans.urls import urlpatterns as plan_urlpatterns
from planner.prices.urls import urlpatterns as price_urlpatterns
from planner.racks.urls import urlpatterns as rack_urlpatterns
from planner.simulations.urls import urlpatterns as simulation_urlpatterns
from planner.sites.urls import urlpatterns as site_urlpatterns

app_name = "planner"

urlpatterns = [
    *estimate_urlpatterns,
    *site_urlpatterns,
    *rack_urlpatterns,
    *simulation_urlpatterns,
    *plan_urlpatterns,
    *calibration_urlpatterns,
    *price_urlpatterns,
    *compat_urlpatterns,
    *fault_urlpatterns,
    *netbox_urlpatterns,
]
