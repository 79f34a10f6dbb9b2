"""What a price always is: the database refuses a row that breaks a rule, and `clean` says which
field is wrong in words."""

import datetime as dt
from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from planner.models import Price
from tests.factories import AcceleratorFactory, FabricFactory, PriceFactory, ServerPlatformFactory

pytestmark = pytest.mark.django_db


def refused_by_database(price: Price, **changes) -> None:
    with pytest.raises(IntegrityError), transaction.atomic():
        Price.objects.filter(pk=price.pk).update(**changes)


def field_errors(price: Price) -> dict[str, list[str]]:
    with pytest.raises(ValidationError) as refused:
        price.full_clean()
    return refused.value.message_dict


def test_the_database_holds_every_rule_of_a_price():
    price = PriceFactory()
    refused_by_database(price, amount=Decimal("-1"))
    refused_by_database(price, source="")
    refused_by_database(price, support_share_per_year=Decimal("1.5"))
    refused_by_database(price, depreciation_years=0)
    refused_by_database(price, depreciation_years=16)
    refused_by_database(price, valid_until=price.price_date - dt.timedelta(days=1))
    refused_by_database(price, version=0)
    refused_by_database(price, kind="lease")
    refused_by_database(price, item_kind="rack")  # a rack names no accelerator
    refused_by_database(price, accelerator=None)
    refused_by_database(price, terms="spot")  # terms are for rent
    refused_by_database(price, reference_key="someone-else")  # a team's price has no key


def test_rent_is_only_for_accelerators_with_a_provider_and_terms():
    rate = PriceFactory(rent=True)
    refused_by_database(rate, provider="")
    refused_by_database(rate, terms="")
    refused_by_database(rate, depreciation_years=5)
    server = ServerPlatformFactory()
    refused_by_database(rate, item_kind="server", accelerator=None, server=server)


def test_each_item_kind_names_what_it_needs():
    fabric = FabricFactory()
    port = PriceFactory(item_kind="switch_port", accelerator=None, fabric=fabric)
    refused_by_database(port, fabric=None)  # neither a fabric nor a name
    Price.objects.filter(pk=port.pk).update(fabric=None, item_name="QM9700 port")
    rack = PriceFactory(item_kind="rack", accelerator=None, item_name="APC AR3300")
    refused_by_database(rack, item_name="")
    system = PriceFactory(item_kind="system", accelerator=None, server=ServerPlatformFactory())
    Price.objects.filter(pk=system.pk).update(accelerator=AcceleratorFactory())  # its cards
    refused_by_database(system, server=None)


def test_clean_names_the_field_at_fault():
    rent_of_a_server = PriceFactory.build(
        rent=True, item_kind="server", accelerator=None, server=ServerPlatformFactory()
    )
    assert field_errors(rent_of_a_server)["item_kind"] == [
        "Rent is priced per accelerator-hour: the item is a card."
    ]
    no_card = PriceFactory.build(accelerator=None)
    assert field_errors(no_card)["accelerator"] == ["Choose the accelerator this price is for."]
    backwards = PriceFactory.build(price_date=dt.date(2026, 6, 1), valid_until=dt.date(2026, 5, 1))
    assert "A price cannot expire before its own date." in field_errors(backwards)["valid_until"]
    blank = PriceFactory.build(source="   ")
    assert "source" in field_errors(blank)
    broken_link = PriceFactory.build(source="https://")
    assert field_errors(broken_link)["source"] == ["This looks like a link but is not a valid URL."]
    purchase_with_terms = PriceFactory.build(terms="spot", instance_name="p5.48xlarge")
    errors = field_errors(purchase_with_terms)
    assert "terms" in errors and "instance_name" in errors


def test_a_system_takes_only_cards_its_server_accepts():
    h100, b200 = AcceleratorFactory(form_factor="sxm"), AcceleratorFactory(form_factor="sxm")
    hgx = ServerPlatformFactory(form_factors=["sxm"], accepts=[h100.slug])
    system = PriceFactory.build(item_kind="system", server=hgx, accelerator=b200)
    assert field_errors(system)["accelerator"] == [f"{hgx} does not take this card."]
    PriceFactory.build(item_kind="system", server=hgx, accelerator=h100).full_clean()


def test_a_quote_is_a_source_too_and_only_links_are_links():
    quote = PriceFactory(source="quote from Example Systems, ref Q-1")
    assert quote.source_url is None
    public = PriceFactory(source="https://huggingface.co/hardware/mi300")
    assert public.source_url == "https://huggingface.co/hardware/mi300"
