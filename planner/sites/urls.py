"""The facility pages' URLs, appended to `planner/urls.py` (namespace "planner")."""

from django.urls import path

from planner.sites import views

urlpatterns = [
    path("sites/", views.site_list, name="site_list"),
    path("sites/new/", views.site_create, name="site_create"),
    path("sites/<int:pk>/", views.site_detail, name="site_detail"),
    path("sites/<int:pk>/edit/", views.site_edit, name="site_edit"),
    path("sites/<int:pk>/rack-groups/new/", views.rackgroup_create, name="rackgroup_create"),
    path("sites/<int:pk>/rack-groups/import/", views.rack_import, name="rack_import"),
    path("sites/<int:pk>/rack-groups/export/", views.rack_export, name="rack_export"),
    path("sites/rack-groups/<int:pk>/edit/", views.rackgroup_edit, name="rackgroup_edit"),
    path("sites/rack-groups/<int:pk>/delete/", views.rackgroup_delete, name="rackgroup_delete"),
]
