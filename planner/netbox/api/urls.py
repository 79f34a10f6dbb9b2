from django.urls import path

from planner.netbox.api.views import NetboxImportView

urlpatterns = [
    path("netbox/import/", NetboxImportView.as_view(), name="netbox-import"),
]
