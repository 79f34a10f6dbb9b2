"""The facility pages' URLs, appended to `planner/urls.py` (namespace "planner")."""

from django.urls import path

from planner import site_views

urlpatterns = [
    path("sites/", site_views.site_list, name="site_list"),
    path("sites/new/", site_views.site_create, name="site_create"),
    path("sites/<int:pk>/", site_views.site_detail, name="site_detail"),
    path("sites/<int:pk>/edit/", site_views.site_edit, name="site_edit"),
    path("sites/<int:pk>/rack-groups/new/", site_views.rackgroup_create, name="rackgroup_create"),
    path("sites/<int:pk>/rack-groups/import/", site_views.rack_import, name="rack_import"),
    path("sites/<int:pk>/rack-groups/export/", site_views.rack_export, name="rack_export"),
    path("sites/rack-groups/<int:pk>/edit/", site_views.rackgroup_edit, name="rackgroup_edit"),
    path(
        "sites/rack-groups/<int:pk>/delete/", site_views.rackgroup_delete, name="rackgroup_delete"
    ),
]
