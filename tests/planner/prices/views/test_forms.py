"""The price forms: adding, editing, copying and retiring through the services, inline
validation that saves nothing, and edits that cross."""

import re

import pytest
from django.urls import reverse

from accounts.roles import Role
from planner.history import history_of
from planner.models import Price
from planner.prices.services import price_update
from tests.planner.prices.common import HTMX, PRICE_FORM, form_of

pytestmark = pytest.mark.django_db

CREATE = reverse("planner:price_create")


def test_a_planner_adds_a_quote_to_the_teams_prices(cast, alpha, card):
    response = cast.browser(cast[Role.PLANNER]).post(CREATE, {**PRICE_FORM, "accelerator": card.pk})
    price = Price.objects.get()
    assert response.status_code == 302 and response["Location"] == price.get_absolute_url()
    assert (price.team, price.created_by, price.amount) == (alpha, cast[Role.PLANNER], 12500)
    assert str(price.support_share_per_year) == "0.1500"
    entry = history_of(price)[0]
    assert (entry["kind"], entry["who"]) == ("created", cast.planner.username)


def test_inline_validation_answers_the_form_alone_with_errors_and_saves_nothing(cast, card):
    client = cast.browser(cast[Role.PLANNER])
    response = client.post(
        CREATE,
        {**PRICE_FORM, "accelerator": card.pk, "amount": "-5", "_validate": "1"},
        **HTMX,
    )
    body = response.content.decode()
    assert body.lstrip().startswith("<form") and "<html" not in body
    assert 'id="errors-amount"><p class="error" role="alert">' in body
    assert "greater than or equal to 0" in body
    assert 'value="quote from Example Systems, ref Q-2026-118"' in body  # what was typed stays
    assert not Price.objects.exists()


def test_cross_field_rules_show_beside_their_fields(cast, card):
    rent_without_terms = {
        **PRICE_FORM,
        "accelerator": card.pk,
        "kind": "rent",
        "provider": "",
        "support_share_per_year": "",
        "depreciation_years": "",
    }
    response = cast.browser(cast[Role.PLANNER]).post(CREATE, rent_without_terms)
    errors = response.context["form"].errors
    assert errors["provider"] == ["Say who rents it out."]
    assert errors["terms"] == ["Choose the terms: on demand, reserved, spot or capacity block."]
    before = {**PRICE_FORM, "accelerator": card.pk, "valid_until": "2026-01-01"}
    errors = cast.browser(cast[Role.PLANNER]).post(CREATE, before).context["form"].errors
    assert errors["valid_until"] == ["A price cannot expire before its own date."]
    assert not Price.objects.exists()


def test_without_javascript_a_post_shows_the_errors_on_the_full_page(cast, card):
    response = cast.browser(cast[Role.PLANNER]).post(
        CREATE, {**PRICE_FORM, "accelerator": "", "source": ""}
    )
    body = response.content.decode()
    assert response.status_code == 200 and "<html" in body
    assert 'id="errors-accelerator"' in body and "Choose the accelerator" in body
    assert 'id="errors-source"' in body


def test_copying_a_reference_price_starts_from_its_values(cast, alpha, reference_price):
    client = cast.browser(cast[Role.PLANNER])
    url = reverse("planner:price_copy", args=[reference_price.pk])
    page = client.get(url)
    assert page.context["form"]["amount"].value() == reference_price.amount
    assert "starting from 15,000 USD" in page.content.decode()

    mine = {
        **form_of(reference_price),
        "amount": "13100",
        "source": "quote from Example Systems, ref Q-77",
    }
    response = client.post(url, mine)
    copy = Price.objects.get(team=alpha)
    assert response["Location"] == copy.get_absolute_url()
    assert (copy.amount, copy.copied_from) == (13100, reference_price)
    assert Price.objects.get(pk=reference_price.pk).amount == 15000


def test_the_edit_form_carries_its_version_and_a_stale_save_writes_nothing(cast, quote):
    client = cast.browser(cast[Role.PLANNER])
    url = reverse("planner:price_edit", args=[quote.pk])
    body = client.get(url).content.decode()
    assert '<input type="hidden" name="version" value="1"' in body

    price_update(price=Price.objects.get(pk=quote.pk), user=cast[Role.ADMIN], amount=11900)
    response = client.post(url, {**form_of(quote), "amount": "12000", "version": "1"})
    body = response.content.decode()
    assert "Someone else saved this price while you were editing it" in body
    saved = {
        r["label"]: (r["saved"], r["yours"]) for r in response.context["form"].changed_meanwhile
    }
    assert saved["Amount (purchase: per unit; rent: per accelerator-hour)"] == (
        "11900",
        "12000",
    )
    assert Price.objects.get(pk=quote.pk).amount == 11900


def test_retiring_needs_the_version_the_page_showed(cast, quote):
    client = cast.browser(cast[Role.PLANNER])
    url = reverse("planner:price_retire", args=[quote.pk])
    price_update(price=Price.objects.get(pk=quote.pk), user=cast[Role.PLANNER], notes="x")
    stale = client.post(url, {"version": "1"}, follow=True)
    assert "Someone else changed this price after the page was loaded" in stale.content.decode()
    assert Price.objects.get(pk=quote.pk).retired_at is None

    done = client.post(url, {"version": "2"}, follow=True)
    body = done.content.decode()
    assert "The price was retired: no price book uses it now." in body
    assert re.search(r"Retired on \d{4}-\d{2}-\d{2}: no price book uses it.", body)
    assert Price.objects.get(pk=quote.pk).retired_at is not None
    assert client.get(reverse("planner:price_edit", args=[quote.pk])).status_code == 403


def test_retire_only_answers_post(cast, quote):
    response = cast.browser(cast[Role.PLANNER]).get(
        reverse("planner:price_retire", args=[quote.pk])
    )
    assert response.status_code == 405
