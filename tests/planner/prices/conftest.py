"""The shared cast (tests/cast.py): Alpha's viewer, planner, facility engineer and admin keep a
price book; the outsider, a planner on team Beta, must not learn what Alpha pays. The catalog
holds one card, the MI300X, with a public reference price."""

import datetime as dt
from decimal import Decimal

import pytest
from django.utils import timezone

from accounts.roles import Role
from planner.models import Price
from planner.prices.services import price_create
from tests.factories import AcceleratorFactory


@pytest.fixture
def alpha(cast):
    return cast.team


@pytest.fixture
def beta(cast):
    return cast.other_team


@pytest.fixture
def card():
    return AcceleratorFactory(slug="amd-mi300x", name="Instinct MI300X", vendor="AMD")


@pytest.fixture
def reference_price(card):
    """The public figure: Hugging Face's hardware catalog, USD 15,000."""
    return Price.objects.create(
        kind="purchase",
        item_kind="accelerator",
        accelerator=card,
        amount=Decimal("15000"),
        currency="USD",
        price_date=timezone.localdate() - dt.timedelta(days=180),
        source="https://huggingface.co/hardware/mi300",
        reference_key="purchase-amd-mi300x-test",
    )


@pytest.fixture
def quote(alpha, cast, card):
    """Alpha's own quote for the same card, two weeks old, valid for three months."""
    today = timezone.localdate()
    return price_create(
        team=alpha,
        user=cast[Role.PLANNER],
        kind="purchase",
        item_kind="accelerator",
        accelerator=card,
        amount=Decimal("12500"),
        currency="USD",
        price_date=today - dt.timedelta(days=14),
        valid_until=today + dt.timedelta(days=76),
        source="quote from Example Systems, ref Q-2026-118",
    )
