"""The calibration pages' URLs, appended to `planner/urls.py` (namespace "planner")."""

from planner.calibrations import views
from planner.web.routes import pages

urlpatterns = pages("calibrations/", "calibration", views, "list", "detail")
