import pytest
from django.urls import reverse

from tests.factories import AcceleratorFactory, ModelArchitectureFactory, ServerPlatformFactory

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def cards():
    return {
        "h100": AcceleratorFactory(slug="nvidia-h100-sxm5-80gb", name="H100 SXM", vendor="NVIDIA"),
        "mi300x": AcceleratorFactory(
            slug="amd-mi300x",
            name="Instinct MI300X",
            vendor="AMD",
            memory_gib=192,
            memory_bw_gb_s=5300,
            form_factor="oam",
            software_stack="rocm",
            training_maturity="good",
            board_power_w=750,
        ),
        "rtx4090": AcceleratorFactory(
            slug="nvidia-rtx-4090",
            name="GeForce RTX 4090",
            segment="consumer",
            memory_gib=24,
            memory_bw_gb_s=1008,
            fp8_tflops=None,
            form_factor="pcie",
            cooling="open_air",
            ecc=False,
            board_power_w=450,
        ),
    }


def test_home_page_counts_the_catalog(client, cards):
    response = client.get(reverse("home"))
    assert response.status_code == 200
    assert response.context["counts"]["accelerators"] == 3


def test_accelerator_list_shows_every_card_without_filters(client, cards):
    response = client.get(reverse("catalog:accelerator_list"))
    assert response.status_code == 200
    assert b"<html" in response.content
    for card in cards.values():
        assert card.name.encode() in response.content


def test_accelerator_list_filters_by_vendor_memory_and_precision(client, cards):
    url = reverse("catalog:accelerator_list")
    assert [a.slug for a in client.get(url, {"vendor": "AMD"}).context["page"]] == ["amd-mi300x"]
    big = client.get(url, {"memory_gib_min": 64}).context["page"]
    assert {a.slug for a in big} == {"nvidia-h100-sxm5-80gb", "amd-mi300x"}
    fp8 = client.get(url, {"precision": "fp8"}).context["page"]
    assert "nvidia-rtx-4090" not in {a.slug for a in fp8}
    consumer_air = client.get(url, {"segment": "consumer", "cooling": "open_air"}).context["page"]
    assert [a.slug for a in consumer_air] == ["nvidia-rtx-4090"]


def test_accelerator_list_sorts_by_memory_descending(client, cards):
    page = client.get(reverse("catalog:accelerator_list"), {"ordering": "-memory_gib"}).context[
        "page"
    ]
    assert next(a.slug for a in page) == "amd-mi300x"


def test_htmx_request_gets_only_the_results_partial(client, cards):
    response = client.get(reverse("catalog:accelerator_list"), {"vendor": "AMD"}, **HTMX)
    body = response.content.decode()
    assert response.status_code == 200
    assert "<html" not in body and 'id="results"' in body
    assert "MI300X" in body and "H100" not in body
    assert "HX-Request" in response["Vary"]


def test_boosted_htmx_request_gets_the_whole_page(client, cards):
    response = client.get(reverse("catalog:accelerator_list"), HTTP_HX_BOOSTED="true", **HTMX)
    assert b"<html" in response.content


def test_a_bad_filter_value_is_reported_beside_the_field(client, cards):
    response = client.get(reverse("catalog:accelerator_list"), {"memory_gib_min": "lots"})
    assert response.status_code == 200
    assert response.context["filter"].errors["memory_gib_min"]
    assert b'class="field has-error"' in response.content


def test_accelerator_detail_shows_dense_figures_and_the_sparsity_note(client):
    card = AcceleratorFactory(bf16_tflops=989, bf16_sparse_tflops=1979, headline_sparsity=True)
    response = client.get(card.get_absolute_url())
    assert response.status_code == 200
    assert b"1,979" in response.content and b"989" in response.content
    assert b"sparsity" in response.content


def test_unknown_accelerator_is_404(client, db):
    assert client.get("/catalog/accelerators/nvidia-h999/").status_code == 404


def test_compare_marks_the_better_value_in_each_dimension(client, cards):
    url = reverse("catalog:accelerator_compare")
    response = client.get(url, {"slugs": ["nvidia-h100-sxm5-80gb", "amd-mi300x"]})
    assert response.status_code == 200
    rows = {str(row.label): row for row in response.context["comparison"].rows}
    assert rows["Memory (GiB)"].best == {1}
    assert rows["Bandwidth (GB/s)"].best == {1}
    assert rows["Board power (W)"].best == {0}  # lower power is better
    assert rows["Training support"].best == {0}  # mature beats good
    assert rows["BF16 dense (TFLOP/s)"].best == frozenset()  # a tie marks nobody


def test_compare_takes_at_most_four(client, db):
    slugs = [AcceleratorFactory().slug for _ in range(5)]
    response = client.get(reverse("catalog:accelerator_compare"), {"slugs": slugs})
    assert len(response.context["comparison"].accelerators) == 4
    assert "at most 4" in response.context["error"]


def test_compare_with_one_card_asks_for_more(client, cards):
    response = client.get(reverse("catalog:accelerator_compare"), {"slugs": ["amd-mi300x"]})
    assert response.status_code == 400
    assert "two to four" in response.context["error"]


def test_compare_page_without_selection_offers_pickers(client, cards):
    response = client.get(reverse("catalog:accelerator_compare"))
    assert response.status_code == 200
    assert response.context["pickers"] == ["", "", "", ""]


def test_server_detail_lists_accelerators_that_fit(client, cards):
    server = ServerPlatformFactory(form_factors=["oam"], accepts=["amd-mi300x"])
    response = client.get(server.get_absolute_url())
    assert [a.slug for a in response.context["fits"]] == ["amd-mi300x"]


def test_model_list_filters_mixture_of_experts(client, db):
    ModelArchitectureFactory(slug="mixtral-8x7b", experts=8, active_experts=2)
    ModelArchitectureFactory(slug="meta-llama-3-8b")
    page = client.get(reverse("catalog:model_list"), {"moe": "true"}).context["page"]
    assert [m.slug for m in page] == ["mixtral-8x7b"]
    detail = client.get(reverse("catalog:model_detail", kwargs={"slug": "mixtral-8x7b"}))
    assert detail.status_code == 200


def test_every_list_and_detail_page_renders_with_the_real_catalog(client, loaded_catalog):
    from catalog.models import Accelerator, Fabric, ModelArchitecture, ServerPlatform

    for name in ("accelerator_list", "server_list", "fabric_list", "model_list"):
        assert client.get(reverse(f"catalog:{name}")).status_code == 200
    for model in (Accelerator, ServerPlatform, Fabric, ModelArchitecture):
        for item in model.objects.all():
            assert client.get(item.get_absolute_url()).status_code == 200, item.slug


def test_pages_are_translated_to_simplified_chinese(client, cards):
    client.cookies["django_language"] = "zh-hans"
    body = client.get(reverse("catalog:accelerator_list")).content.decode()
    assert "加速卡" in body and "显存" in body
    assert "Apply filters" not in body


def test_language_switch_sets_the_language(client, cards):
    response = client.post(
        reverse("set_language"), {"language": "zh-hans", "next": "/catalog/accelerators/"}
    )
    assert response.status_code == 302
    assert "加速卡" in client.get("/catalog/accelerators/").content.decode()


def test_an_item_page_sends_prices_to_the_price_book(client, db):
    # Prices are a team's data with their sources (planner.prices), not catalog figures.
    card = AcceleratorFactory()
    body = client.get(card.get_absolute_url()).content.decode()
    assert f'href="{reverse("planner:price_list")}?item={card.slug}"' in body


def test_currency_switch_ignores_foreign_redirects_and_unknown_codes(client, db):
    response = client.post(
        reverse("set_currency"), {"currency": "XYZ", "next": "https://evil.example/"}
    )
    assert response["Location"] == "/"
    assert "currency" not in client.session


def test_a_list_seen_again_is_rendered_from_the_cache(client, cards):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    url = reverse("catalog:accelerator_list")
    with CaptureQueriesContext(connection) as first:
        client.get(url, {"vendor": "NVIDIA"})
    with CaptureQueriesContext(connection) as again:
        body = client.get(url, {"vendor": "NVIDIA"}).content.decode()
    # The rows and the filters' choices are not read again; the count and version are.
    assert len(again) < len(first)
    assert "H100 SXM" in body and "Instinct MI300X" not in body


def test_a_catalog_change_shows_at_once_despite_the_cache(client, cards):
    url = reverse("catalog:accelerator_list")
    assert "H100 SXM" in client.get(url).content.decode()
    cards["h100"].name = "H100 SXM5 80GB"
    cards["h100"].save()
    assert "H100 SXM5 80GB" in client.get(url).content.decode()
    cards["rtx4090"].delete()
    assert "GeForce RTX 4090" not in client.get(url).content.decode()


def test_each_language_has_its_own_cached_list(client, cards):
    url = reverse("catalog:accelerator_list")
    english = client.get(url).content.decode()
    chinese = client.get(url, HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "Memory (GiB)" in english and "Memory (GiB)" not in chinese
