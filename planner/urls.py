from django.urls import path

from planner import views
from planner.calibration_urls import urlpatterns as calibration_urlpatterns
from planner.plan_urls import urlpatterns as plan_urlpatterns
from planner.simulation_urls import urlpatterns as simulation_urlpatterns
from planner.site_urls import urlpatterns as site_urlpatterns

app_name = "planner"

urlpatterns = [
    path("estimate/", views.estimate, name="estimate"),
    *site_urlpatterns,
    *simulation_urlpatterns,
    *plan_urlpatterns,
    *calibration_urlpatterns,
]
