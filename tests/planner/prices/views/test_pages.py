"""The price list and one price's page: filters, warnings, amounts in the display currency, the
HTMX partial, both languages, and history."""

import datetime as dt
import re
from decimal import Decimal

import pytest
from django.urls import reverse
from django.utils import timezone

from accounts.roles import Role
from planner.models import Price
from planner.prices.services import price_create
from tests.factories import AcceleratorFactory
from tests.planner.prices.common import HTMX, form_of

pytestmark = pytest.mark.django_db

LIST = reverse("planner:price_list")


@pytest.fixture
def old_rate(alpha, cast, card):
    """A rent rate read 400 days ago whose validity ran out last week."""
    today = timezone.localdate()
    return price_create(
        team=alpha,
        user=cast[Role.PLANNER],
        kind="rent",
        item_kind="accelerator",
        accelerator=card,
        amount=Decimal("1.99"),
        currency="USD",
        price_date=today - dt.timedelta(days=400),
        valid_until=today - dt.timedelta(days=7),
        source="https://docs.digitalocean.com/products/droplets/details/pricing/",
        provider="DigitalOcean",
        terms="on_demand",
    )


def rows(body: str) -> list[str]:
    return re.findall(r'<tr id="price-(\d+)">', body)


def test_the_list_shows_the_teams_prices_and_the_reference_with_their_sources(
    cast, quote, reference_price
):
    body = cast.browser(cast[Role.VIEWER]).get(LIST).content.decode()
    assert rows(body) == [str(quote.pk), str(reference_price.pk)]  # newest first
    assert "12,500 USD" in body and "15,000 USD" in body
    assert "quote from Example Systems, ref Q-2026-118" in body
    assert 'href="https://huggingface.co/hardware/mi300"' in body
    assert '<span class="badge">Reference</span>' in body


def test_a_price_past_its_validity_or_older_than_a_year_warns(cast, quote, old_rate):
    body = cast.browser(cast[Role.VIEWER]).get(LIST).content.decode()
    row = re.search(rf'<tr id="price-{old_rate.pk}">.*?</tr>', body, re.S).group(0)
    assert "older than a year" in row and "past its validity" in row
    fresh = re.search(rf'<tr id="price-{quote.pk}">.*?</tr>', body, re.S).group(0)
    assert "warning-tag" not in fresh

    detail = cast.browser(cast[Role.VIEWER]).get(old_rate.get_absolute_url()).content.decode()
    assert "Past its validity: the price held until" in detail
    assert "Older than a year" in detail


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("age=expired", ["old_rate"]),
        ("age=stale", ["old_rate"]),
        ("age=current", ["quote", "reference_price"]),
        ("kind=rent", ["old_rate"]),
        ("terms=on_demand", ["old_rate"]),
        ("provider=digital", ["old_rate"]),
        ("owner=reference", ["reference_price"]),
        ("owner=team", ["quote", "old_rate"]),
        ("item=mi300", ["quote", "reference_price", "old_rate"]),
        ("currency=CNY", []),
        ("item_kind=rack", []),
    ],
)
def test_the_list_filters_by_age_kind_terms_provider_owner_item_and_currency(
    cast, quote, reference_price, old_rate, query, expected
):
    prices = {"quote": quote, "reference_price": reference_price, "old_rate": old_rate}
    body = cast.browser(cast[Role.VIEWER]).get(f"{LIST}?{query}").content.decode()
    assert set(rows(body)) == {str(prices[name].pk) for name in expected}, query
    if not expected:
        assert "No price matches these filters." in body


def test_retired_prices_leave_the_list_unless_asked_for(cast, quote):
    client = cast.browser(cast[Role.PLANNER])
    client.post(reverse("planner:price_retire", args=[quote.pk]), {"version": "1"})
    assert rows(client.get(LIST).content.decode()) == []
    assert rows(client.get(f"{LIST}?status=retired").content.decode()) == [str(quote.pk)]


def test_a_bad_filter_is_named_beside_it(cast, quote):
    body = cast.browser(cast[Role.VIEWER]).get(f"{LIST}?age=ancient").content.decode()
    assert "Some filters are not valid" in body and "Select a valid choice." in body


def test_filters_answer_htmx_with_the_results_alone(cast, quote):
    response = cast.browser(cast[Role.VIEWER]).get(f"{LIST}?kind=purchase", **HTMX)
    body = response.content.decode()
    assert body.lstrip().startswith('<div id="results"') and "<html" not in body
    assert response["Vary"] == "HX-Request, Cookie" or "HX-Request" in response["Vary"]


def test_the_list_works_without_javascript_as_a_plain_form(cast, quote):
    body = cast.browser(cast[Role.VIEWER]).get(LIST).content.decode()
    assert '<form method="get" action="" class="filters"' in body
    assert '<button type="submit">Apply filters</button>' in body


def test_amounts_show_converted_at_the_configured_rate(cast, quote, settings):
    settings.FLOPFIT_CNY_PER_USD = 7.1
    settings.FLOPFIT_CNY_PER_USD_DATE = "2026-11"
    client = cast.browser(cast[Role.VIEWER])
    client.post(reverse("set_currency"), {"currency": "CNY", "next": LIST})
    body = client.get(LIST).content.decode()
    assert "12,500 USD" in body and "≈ ¥88,750" in body  # 12,500 x 7.1
    assert "Converted amounts (≈) use 7.1 CNY per USD (2026-11)." in body


def test_pages_are_in_chinese_too(cast, quote, old_rate):
    client = cast.browser(cast[Role.VIEWER])
    body = client.get(LIST, HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert '<html lang="zh-hans">' in body
    assert "<h1>价格</h1>" in body and "已过有效期" in body and "已超过一年" in body
    detail = client.get(quote.get_absolute_url(), HTTP_ACCEPT_LANGUAGE="zh-hans").content
    assert "历史" in detail.decode()


def test_the_detail_page_shows_provenance_history_and_which_price_is_used(
    cast, quote, reference_price
):
    edited = cast.browser(cast[Role.PLANNER]).post(
        reverse("planner:price_edit", args=[quote.pk]),
        {**form_of(quote), "amount": "12000", "version": "1"},
    )
    assert edited.status_code == 302
    client = cast.browser(cast[Role.VIEWER])
    body = client.get(quote.get_absolute_url()).content.decode()
    assert "quote from Example Systems, ref Q-2026-118" in body
    assert "Plans of this team use this price for this item." in body
    assert "Amount</span>: <del>12500</del> → <ins>12000</ins>" in body
    assert f"<strong>{cast.planner.username}</strong>" in body

    reference = client.get(reference_price.get_absolute_url()).content.decode()
    assert "Plans of this team use another price for this item: 12,000 USD" in reference


def test_a_system_links_its_server_and_names_its_cards(cast, alpha):
    from tests.factories import ServerPlatformFactory

    cards = AcceleratorFactory(name="Instinct MI300X OAM", form_factor="oam")
    server = ServerPlatformFactory(name="HGX 8-GPU", form_factors=["oam"], accepts=[cards.slug])
    system = price_create(
        team=alpha,
        user=cast[Role.PLANNER],
        kind="purchase",
        item_kind="system",
        server=server,
        accelerator=cards,
        amount=Decimal("280000"),
        currency="USD",
        price_date=timezone.localdate(),
        source="quote from Example Systems, ref S-1",
    )
    body = cast.browser(cast[Role.VIEWER]).get(system.get_absolute_url()).content.decode()
    assert "HGX 8-GPU + Instinct MI300X OAM" in body
    assert server.get_absolute_url() in body
    assert Price.objects.count() == 1
