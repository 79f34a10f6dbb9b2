"""The racks pages' URLs, appended to `planner/urls.py` (namespace "planner")."""

from django.urls import path

from planner.racks.views import equipment, feeds, fit, racks
from planner.web.routes import pages

urlpatterns = [
    path("fit/", fit.fit_page, name="fit"),
    *pages("sites/rack-groups/", "rackgroup", racks, "detail"),
    path("sites/rack-groups/<int:pk>/racks/new/", racks.rack_create, name="rack_create"),
    *pages("racks/", "rack", racks, "detail", "edit", "delete"),
    path("racks/<int:pk>/equipment/new/", equipment.equipment_create, name="equipment_create"),
    path("racks/<int:pk>/feeds/new/", feeds.feed_create, name="feed_create"),
    *pages("feeds/", "feed", feeds, "edit", "delete"),
    *pages("equipment/", "equipment", equipment, "edit", "remove"),
    path("sites/<int:pk>/equipment/export/", equipment.equipment_export, name="equipment_export"),
]
