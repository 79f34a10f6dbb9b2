from django.urls import path

from planner import views
from planner.site_urls import urlpatterns as site_urlpatterns

app_name = "planner"

urlpatterns = [
    path("estimate/", views.estimate, name="estimate"),
    *site_urlpatterns,
]
