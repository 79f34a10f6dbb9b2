import pytest
import yaml
from django.urls import reverse

from tests.factories import AcceleratorFactory, ModelArchitectureFactory

pytestmark = pytest.mark.django_db


def test_accelerator_list_is_paginated_and_filtered_like_the_page(client):
    AcceleratorFactory(vendor="AMD", slug="amd-mi300x", memory_gib=192)
    AcceleratorFactory(vendor="NVIDIA", slug="nvidia-l4", memory_gib=24)
    body = client.get("/api/v1/accelerators/", {"vendor": "AMD"}).json()
    assert body["count"] == 1
    assert body["results"][0]["slug"] == "amd-mi300x"
    assert body["results"][0]["source_urls"] == ["https://example.com/datasheet.pdf"]
    ordered = client.get("/api/v1/accelerators/", {"ordering": "memory_gib"}).json()
    assert [r["slug"] for r in ordered["results"]] == ["nvidia-l4", "amd-mi300x"]


def test_page_size_is_capped(client):
    AcceleratorFactory.create_batch(3)
    body = client.get("/api/v1/accelerators/", {"page_size": 100000}).json()
    assert body["count"] == 3
    from catalog.api.pagination import CatalogPagination

    assert CatalogPagination.max_page_size == 200


def test_a_bad_filter_is_a_400_naming_the_field(client):
    response = client.get("/api/v1/accelerators/", {"memory_gib_min": "lots"})
    assert response.status_code == 400
    assert "memory_gib_min" in response.json()


def test_detail_is_addressed_by_slug_even_with_dots(client):
    ModelArchitectureFactory(slug="qwen2.5-72b")
    response = client.get("/api/v1/models/qwen2.5-72b/")
    assert response.status_code == 200
    assert response.json()["params"] == 8_030_261_248


def test_the_catalog_api_is_read_only(client):
    card = AcceleratorFactory()
    assert client.post("/api/v1/accelerators/", {}).status_code in {403, 405}
    assert client.delete(f"/api/v1/accelerators/{card.slug}/").status_code in {403, 405}


def test_every_catalog_endpoint_answers(client, loaded_catalog):
    for kind in ("accelerators", "servers", "fabrics", "models"):
        body = client.get(f"/api/v1/{kind}/").json()
        assert body["count"] > 0
        first = body["results"][0]["slug"]
        assert client.get(f"/api/v1/{kind}/{first}/").status_code == 200


def test_schema_describes_the_catalog(client):
    response = client.get(reverse("schema"))
    assert response.status_code == 200
    schema = yaml.safe_load(response.content)
    assert schema["openapi"].startswith("3.")
    assert "/api/v1/accelerators/{slug}/" in schema["paths"]
    params = {p["name"] for p in schema["paths"]["/api/v1/accelerators/"]["get"]["parameters"]}
    assert {"vendor", "memory_gib_min", "precision", "ordering", "page_size"} <= params


def test_docs_page_is_served_without_internet(client):
    response = client.get(reverse("swagger-ui"))
    assert response.status_code == 200
    assert b"/static/drf_spectacular_sidecar/" in response.content
