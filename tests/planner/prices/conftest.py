"""Alpha's people (a viewer, a planner, a facility engineer and an admin) keep a price book; an
outsider, a planner on team Beta, must not learn what Alpha pays. The catalog holds one card,
the MI300X, with a public reference price."""

import datetime as dt
from decimal import Decimal

import pytest
from django.utils import timezone

from accounts.roles import Role
from accounts.services import team_get_or_create, user_create
from planner.models import Price
from planner.prices.services import price_create
from tests.factories import AcceleratorFactory
from tests.planner.prices.common import PASSWORD


@pytest.fixture
def alpha():
    return team_get_or_create(name="Alpha")


@pytest.fixture
def beta():
    return team_get_or_create(name="Beta")


@pytest.fixture
def people(alpha, beta):
    users = {
        role: user_create(username=role, password=PASSWORD, role=role, team=alpha)
        for role in Role.values
    }
    users["outsider"] = user_create(
        username="outsider", password=PASSWORD, role=Role.PLANNER, team=beta
    )
    return users


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
def quote(alpha, people, card):
    """Alpha's own quote for the same card, two weeks old, valid for three months."""
    today = timezone.localdate()
    return price_create(
        team=alpha,
        user=people[Role.PLANNER],
        kind="purchase",
        item_kind="accelerator",
        accelerator=card,
        amount=Decimal("12500"),
        currency="USD",
        price_date=today - dt.timedelta(days=14),
        valid_until=today + dt.timedelta(days=76),
        source="quote from Example Systems, ref Q-2026-118",
    )
