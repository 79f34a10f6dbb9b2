from django.urls import path

from planner.netbox import views

urlpatterns = [
    path("netbox/import/", views.netbox_import_view, name="netbox_import"),
]
