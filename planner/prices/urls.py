"""The price pages' URLs, appended to `planner/urls.py` (namespace "planner")."""

from django.urls import path

from planner.prices.views import csv_files, prices

urlpatterns = [
    path("prices/", prices.price_list, name="price_list"),
    path("prices/new/", prices.price_create, name="price_create"),
    path("prices/import/", csv_files.price_import, name="price_import"),
    path("prices/export/", csv_files.price_export, name="price_export"),
    path("prices/<int:pk>/", prices.price_detail, name="price_detail"),
    path("prices/<int:pk>/edit/", prices.price_edit, name="price_edit"),
    path("prices/<int:pk>/copy/", prices.price_copy, name="price_copy"),
    path("prices/<int:pk>/retire/", prices.price_retire, name="price_retire"),
]
