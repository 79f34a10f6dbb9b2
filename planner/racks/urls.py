"""The racks pages' URLs, appended to `planner/urls.py` (namespace "planner")."""

from django.urls import path

from planner.racks.views import equipment, feeds, fit, racks
from planner.web.routes import pages, under

urlpatterns = [
    path("fit/", fit.fit_page, name="fit"),
    *pages("sites/rack-groups/", "rackgroup", racks, "detail"),
    *pages("racks/", "rack", racks, "detail", "edit", "delete"),
    *pages("feeds/", "feed", feeds, "edit", "delete"),
    *pages("equipment/", "equipment", equipment, "edit", "remove"),
    # What is made in a rack group or rack, and what is read off a whole site.
    *under("sites/rack-groups/", "rack", create=("racks/new/", racks.rack_create)),
    *under("racks/", "equipment", create=("equipment/new/", equipment.equipment_create)),
    *under("racks/", "feed", create=("feeds/new/", feeds.feed_create)),
    *under("sites/", "equipment", export=("equipment/export/", equipment.equipment_export)),
]
