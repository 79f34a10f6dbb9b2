"""The price pages' URLs, appended to `planner/urls.py` (namespace "planner")."""

from planner.prices.views import csv_files, prices
from planner.web.routes import pages

urlpatterns = [
    *pages("prices/", "price", prices, "list", "create", "detail", "edit", "copy", "retire"),
    *pages("prices/", "price", csv_files, "import", "export"),
]
