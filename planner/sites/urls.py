"""The facility pages' URLs, appended to `planner/urls.py` (namespace "planner")."""

from django.urls import path

from planner.sites import views
from planner.web.routes import pages

urlpatterns = [
    *pages("sites/", "site", views, "list", "create", "detail", "edit"),
    path("sites/<int:pk>/rack-groups/new/", views.rackgroup_create, name="rackgroup_create"),
    path("sites/<int:pk>/rack-groups/import/", views.rack_import, name="rack_import"),
    path("sites/<int:pk>/rack-groups/export/", views.rack_export, name="rack_export"),
    *pages("sites/rack-groups/", "rackgroup", views, "edit", "delete"),
]
