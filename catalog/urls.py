from django.urls import path, register_converter

from catalog import views
from catalog.models.base import SLUG_PATTERN


class CatalogSlugConverter:
    regex = SLUG_PATTERN

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


register_converter(CatalogSlugConverter, "item")

app_name = "catalog"

urlpatterns = [
    path("accelerators/", views.accelerator_list, name="accelerator_list"),
    path("accelerators/compare/", views.accelerator_compare, name="accelerator_compare"),
    path("accelerators/<item:slug>/", views.accelerator_detail, name="accelerator_detail"),
    path("servers/", views.server_list, name="server_list"),
    path("servers/<item:slug>/", views.server_detail, name="server_detail"),
    path("fabrics/", views.fabric_list, name="fabric_list"),
    path("fabrics/<item:slug>/", views.fabric_detail, name="fabric_detail"),
    path("models/", views.model_list, name="model_list"),
    path("models/<item:slug>/", views.model_detail, name="model_detail"),
]
