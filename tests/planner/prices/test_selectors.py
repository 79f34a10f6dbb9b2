"""Who sees which prices, and the price book each team's plans use: a team's quote changes its
own book and no one else's."""

import datetime as dt
from decimal import Decimal

import pytest
from django.utils import timezone

from accounts.roles import Role
from planner.models import Price
from planner.prices.selectors import (
    price_age,
    price_book,
    price_editable_by,
    price_in_use,
    price_visible_to,
)
from planner.prices.services import price_copy, price_retire, price_update

pytestmark = pytest.mark.django_db


def test_a_team_sees_its_own_prices_and_the_reference_list_never_anothers(
    cast, quote, reference_price
):
    alpha_sees = set(price_visible_to(cast[Role.VIEWER]))
    assert alpha_sees == {quote, reference_price}
    assert set(price_visible_to(cast["outsider"])) == {reference_price}
    assert set(price_visible_to(cast[Role.ADMIN])) == {quote, reference_price}


def test_only_planners_of_the_team_and_admins_may_change_a_price(cast, quote, reference_price):
    assert set(price_editable_by(cast[Role.PLANNER])) == {quote}
    assert not price_editable_by(cast[Role.FACILITY]).exists()
    assert not price_editable_by(cast[Role.VIEWER]).exists()
    assert not price_editable_by(cast["outsider"]).exists()
    assert set(price_editable_by(cast[Role.ADMIN])) == {quote, reference_price}


def test_a_teams_quote_changes_that_teams_book_and_not_anothers(alpha, beta, cast, reference_price):
    before_alpha = price_book(team=alpha).purchase("accelerator", "amd-mi300x")
    assert before_alpha.id == reference_price.pk and before_alpha.is_reference

    quote = price_copy(
        price=reference_price,
        team=alpha,
        user=cast[Role.PLANNER],
        amount=Decimal("12500"),
        price_date=timezone.localdate(),
        source="quote from Example Systems, ref Q-2026-118",
    )

    alpha_book = price_book(team=alpha).purchase("accelerator", "amd-mi300x")
    beta_book = price_book(team=beta).purchase("accelerator", "amd-mi300x")
    assert (alpha_book.id, alpha_book.amount, alpha_book.is_reference) == (quote.pk, 12500, False)
    assert alpha_book.source == "quote from Example Systems, ref Q-2026-118"
    assert (beta_book.id, beta_book.amount) == (reference_price.pk, 15000)
    assert price_book(team=None).purchase("accelerator", "amd-mi300x").id == reference_price.pk


def test_a_price_past_its_validity_warns_and_gives_way(alpha, cast, quote, reference_price):
    after_expiry = quote.valid_until + dt.timedelta(days=1)
    age = price_age(quote, on=after_expiry)
    assert age.expired and not age.stale
    assert (
        price_book(team=alpha, on=quote.valid_until).purchase("accelerator", "amd-mi300x").id
        == quote.pk
    )
    entry = price_book(team=alpha, on=after_expiry).purchase("accelerator", "amd-mi300x")
    assert entry.id == reference_price.pk  # the valid reference price takes over

    # With no valid price at all, the expired one stands in, flagged.
    Price.objects.filter(pk=reference_price.pk).update(valid_until=reference_price.price_date)
    entry = price_book(team=alpha, on=after_expiry).purchase("accelerator", "amd-mi300x")
    assert (entry.id, entry.expired) == (quote.pk, True)


def test_a_price_older_than_a_year_is_stale(quote):
    a_year_on = quote.price_date + dt.timedelta(days=365)
    assert not price_age(quote, on=a_year_on).stale
    assert price_age(quote, on=a_year_on + dt.timedelta(days=1)).stale


def test_retired_and_future_prices_take_no_part(alpha, cast, quote, reference_price):
    assert (
        price_book(team=alpha, on=quote.price_date - dt.timedelta(days=1))
        .purchase("accelerator", "amd-mi300x")
        .id
        == reference_price.pk
    )  # the quote was not made yet
    price_retire(price=quote, user=cast[Role.PLANNER])
    assert price_book(team=alpha).purchase("accelerator", "amd-mi300x").id == reference_price.pk


def test_the_detail_page_says_which_price_the_book_uses(alpha, quote, reference_price):
    assert price_in_use(price=reference_price, team=alpha).id == quote.pk
    assert price_in_use(price=quote, team=alpha).id == quote.pk


def test_the_shipped_list_gives_the_cheapest_on_demand_rate_with_its_provider(
    reference_prices, alpha
):
    book = price_book(team=alpha, on=dt.date(2026, 12, 3))
    h100 = book.rent("nvidia-h100-sxm5-80gb")
    # Vast.ai's single marketplace offer (SkyPilot catalog): 1.87 USD per H100-hour.
    assert (h100.provider, h100.amount, h100.is_reference) == ("Vast.ai", Decimal("1.87"), True)
    # GCP a3-highgpu-8g on a 3-year commitment (Cyclenerd pricing.yml, 2026-07-30).
    reserved = book.rent("nvidia-h100-sxm5-80gb", "reserved_3y")
    assert (reserved.provider, reserved.amount) == ("Google Cloud", Decimal("4.858048"))
    # AWS capacity blocks of late 2024: expired on 2024-12-31, and flagged so.
    block = book.rent("nvidia-h100-sxm5-80gb", "capacity_block")
    assert block.expired and block.stale
    assert book.rent("huawei-ascend-910b") is None


def test_a_teams_negotiated_rate_wins_for_that_team_only(reference_prices, alpha, beta, cast):
    public = Price.objects.get(reference_key="rent-aws-us-east-1-p5.48xlarge-on-demand")
    price_copy(
        price=public,
        team=alpha,
        user=cast[Role.PLANNER],
        amount=Decimal("4.20"),
        price_date=dt.date(2026, 11, 1),
        source="quote from AWS, ref EDP-2026",
    )
    on = dt.date(2026, 12, 3)
    assert price_book(team=alpha, on=on).rent("nvidia-h100-sxm5-80gb").amount == Decimal("4.20")
    assert price_book(team=beta, on=on).rent("nvidia-h100-sxm5-80gb").provider == "Vast.ai"
    price_update(price=Price.objects.get(team=alpha), user=cast[Role.PLANNER], terms="reserved_1y")
    assert price_book(team=alpha, on=on).rent("nvidia-h100-sxm5-80gb").provider == "Vast.ai"
