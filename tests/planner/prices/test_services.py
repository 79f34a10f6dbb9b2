"""Writes to the price book: versions, who may change what, copies, retiring, and the history
that records every change."""

import datetime as dt
from decimal import Decimal

import pytest
from django.core.exceptions import PermissionDenied, ValidationError

from accounts.roles import Role
from planner.history import history_of
from planner.models import Price
from planner.prices.services import price_copy, price_create, price_retire, price_update
from planner.versioning import StaleVersionError

pytestmark = pytest.mark.django_db


def test_a_new_price_belongs_to_the_team_and_records_who_made_it(alpha, cast, card):
    price = price_create(
        team=alpha,
        user=cast[Role.PLANNER],
        kind="rent",
        item_kind="accelerator",
        accelerator=card,
        amount=Decimal("1.99"),
        currency="USD",
        price_date=dt.date(2026, 5, 28),
        source="https://docs.digitalocean.com/products/droplets/details/pricing/",
        provider="DigitalOcean",
        terms="on_demand",
        instance_name="GPU Droplet MI300X (1x)",
        accelerators_per_instance=1,
    )
    assert (price.team, price.created_by, price.version) == (alpha, cast[Role.PLANNER], 1)
    assert history_of(price)[0]["kind"] == "created"


def test_an_update_from_an_older_copy_is_refused_and_writes_nothing(quote, cast):
    planner = cast[Role.PLANNER]
    mine, theirs = Price.objects.get(pk=quote.pk), Price.objects.get(pk=quote.pk)
    price_update(price=theirs, user=planner, amount=Decimal("12000"))
    with pytest.raises(StaleVersionError) as refused:
        price_update(price=mine, user=planner, amount=Decimal("11000"))
    assert refused.value.current.amount == Decimal("12000")
    saved = Price.objects.get(pk=quote.pk)
    assert (saved.amount, saved.version) == (Decimal("12000"), 2)


def test_a_reference_price_is_read_only_except_for_admins(reference_price, cast):
    with pytest.raises(PermissionDenied):
        price_update(price=reference_price, user=cast[Role.PLANNER], amount=Decimal("1"))
    with pytest.raises(PermissionDenied):
        price_retire(price=reference_price, user=cast[Role.PLANNER])
    assert Price.objects.get(pk=reference_price.pk).amount == Decimal("15000")

    price_update(price=reference_price, user=cast[Role.ADMIN], amount=Decimal("14000"))
    assert Price.objects.get(pk=reference_price.pk).amount == Decimal("14000")


def test_another_teams_price_cannot_be_changed_through_the_service(quote, cast):
    with pytest.raises(PermissionDenied):
        price_update(price=quote, user=cast["outsider"], amount=Decimal("1"))
    with pytest.raises(PermissionDenied):
        price_copy(price=quote, team=cast["outsider"].profile.team, user=cast["outsider"])


def test_a_copy_of_a_reference_price_becomes_the_teams_own_quote(reference_price, alpha, cast):
    quote = price_copy(
        price=reference_price,
        team=alpha,
        user=cast[Role.PLANNER],
        amount=Decimal("13100"),
        source="quote from Example Systems, ref Q-77",
    )
    assert (quote.team, quote.copied_from, quote.amount) == (alpha, reference_price, 13100)
    assert (quote.accelerator, quote.price_date) == (
        reference_price.accelerator,
        reference_price.price_date,
    )
    assert quote.reference_key == "" and quote.retired_at is None
    assert Price.objects.get(pk=reference_price.pk).amount == Decimal("15000")  # untouched


def test_a_retired_price_stays_with_its_history_and_cannot_change(quote, cast):
    planner = cast[Role.PLANNER]
    price_retire(price=quote, user=planner)
    saved = Price.objects.get(pk=quote.pk)
    assert saved.retired_at is not None and saved.version == 2
    with pytest.raises(ValidationError):
        price_update(price=saved, user=planner, amount=Decimal("1"))


def test_retiring_from_an_older_copy_is_refused(quote, cast):
    planner = cast[Role.PLANNER]
    stale = Price.objects.get(pk=quote.pk)
    price_update(price=quote, user=planner, amount=Decimal("12000"))
    with pytest.raises(StaleVersionError):
        price_retire(price=stale, user=planner)
    assert Price.objects.get(pk=quote.pk).retired_at is None


def test_history_records_every_change_with_who_and_what(quote, cast):
    planner = cast[Role.PLANNER]
    price_update(price=quote, user=planner, amount=Decimal("12000"))
    price_update(price=quote, user=planner, valid_until=dt.date(2027, 3, 31))
    price_retire(price=quote, user=planner)
    entries = history_of(Price.objects.get(pk=quote.pk))
    assert [entry["kind"] for entry in entries] == ["changed", "changed", "changed", "created"]
    changed = [[change["field"] for change in entry["changes"]] for entry in entries[:3]]
    assert changed == [["retired_at"], ["valid_until"], ["amount"]]
    assert all(change["field"] != "version" for entry in entries for change in entry["changes"])
