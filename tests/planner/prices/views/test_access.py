"""Who may read and write prices through the pages: anyone signed in reads their team's prices
and the reference list; planners and admins write; another team's price is a 404."""

import pytest
from django.urls import reverse

from accounts.roles import Role
from planner.models import Price
from tests.planner.prices.common import PRICE_FORM

pytestmark = pytest.mark.django_db

READ_PAGES = ["price_list", "price_detail", "price_export"]
WRITE_PAGES = ["price_create", "price_edit", "price_copy", "price_import"]
ONE_PRICE = {"price_detail", "price_edit", "price_copy", "price_retire"}


def page_url(name: str, price: Price) -> str:
    return reverse(f"planner:{name}", args=[price.pk] if name in ONE_PRICE else [])


@pytest.mark.parametrize("name", READ_PAGES + WRITE_PAGES)
def test_anonymous_visitors_are_sent_to_sign_in(client, quote, name):
    response = client.get(page_url(name, quote))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("accounts:login") + "?next=")


@pytest.mark.parametrize("role", [Role.VIEWER, Role.FACILITY])
def test_viewers_and_facility_read_every_page_but_write_nothing(cast, quote, card, role):
    client = cast.browser(cast[role])
    for name in READ_PAGES:
        assert client.get(page_url(name, quote)).status_code == 200, name
    for name in WRITE_PAGES:
        url = page_url(name, quote)
        assert client.get(url).status_code == 403, name
        assert client.post(url, {**PRICE_FORM, "accelerator": card.pk}).status_code == 403, name
    retire = client.post(page_url("price_retire", quote), {"version": "1"})
    assert retire.status_code == 403
    assert Price.objects.count() == 1 and Price.objects.get().retired_at is None


@pytest.mark.parametrize("role", [Role.PLANNER, Role.ADMIN])
def test_planners_and_admins_reach_every_page(cast, quote, role):
    client = cast.browser(cast[role])
    for name in READ_PAGES + WRITE_PAGES:
        assert client.get(page_url(name, quote)).status_code == 200, name


def test_another_teams_price_is_not_found_and_not_listed(cast, quote):
    client = cast.browser(cast["outsider"])
    for name in ["price_detail", "price_edit", "price_copy"]:
        assert client.get(page_url(name, quote)).status_code == 404, name
    assert client.post(page_url("price_retire", quote), {"version": "1"}).status_code == 404
    listing = client.get(reverse("planner:price_list")).content.decode()
    assert f'id="price-{quote.pk}"' not in listing
    exported = client.get(reverse("planner:price_export")).content.decode()
    assert "Q-2026-118" not in exported
    assert Price.objects.get(pk=quote.pk).retired_at is None


def test_a_reference_price_can_be_copied_but_only_an_admin_edits_it(cast, reference_price):
    planner = cast.browser(cast[Role.PLANNER])
    detail = planner.get(reference_price.get_absolute_url()).content.decode()
    assert reverse("planner:price_copy", args=[reference_price.pk]) in detail
    assert reverse("planner:price_edit", args=[reference_price.pk]) not in detail
    assert planner.get(page_url("price_edit", reference_price)).status_code == 403
    assert (
        planner.post(page_url("price_retire", reference_price), {"version": "1"}).status_code == 403
    )

    admin = cast.browser(cast[Role.ADMIN])
    assert admin.get(page_url("price_edit", reference_price)).status_code == 200


def test_the_navigation_links_to_the_prices(cast):
    body = cast.browser(cast[Role.VIEWER]).get(reverse("home")).content.decode()
    assert f'href="{reverse("planner:price_list")}"' in body
