"""The racks pages' URLs, appended to `planner/urls.py` (namespace "planner")."""

from django.urls import path

from planner.racks.views import equipment, feeds, fit, racks

urlpatterns = [
    path("fit/", fit.fit_page, name="fit"),
    path("sites/rack-groups/<int:pk>/", racks.rackgroup_detail, name="rackgroup_detail"),
    path("sites/rack-groups/<int:pk>/racks/new/", racks.rack_create, name="rack_create"),
    path("racks/<int:pk>/", racks.rack_detail, name="rack_detail"),
    path("racks/<int:pk>/edit/", racks.rack_edit, name="rack_edit"),
    path("racks/<int:pk>/delete/", racks.rack_delete, name="rack_delete"),
    path("racks/<int:pk>/equipment/new/", equipment.equipment_create, name="equipment_create"),
    path("racks/<int:pk>/feeds/new/", feeds.feed_create, name="feed_create"),
    path("feeds/<int:pk>/edit/", feeds.feed_edit, name="feed_edit"),
    path("feeds/<int:pk>/delete/", feeds.feed_delete, name="feed_delete"),
    path("equipment/<int:pk>/edit/", equipment.equipment_edit, name="equipment_edit"),
    path("equipment/<int:pk>/remove/", equipment.equipment_remove, name="equipment_remove"),
    path("sites/<int:pk>/equipment/export/", equipment.equipment_export, name="equipment_export"),
]
