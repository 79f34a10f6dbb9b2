"""Headless Chromium against a live server: a facility engineer signs in, adds a rack group to a
site through the form (inline validation running as they type) and sees the site's total grow."""

import pytest
from playwright.sync_api import expect

from tests.cast import PASSWORD

pytestmark = [pytest.mark.slow, pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def site(cast):
    from planner.models import RackGroup
    from planner.sites.services import rack_group_save, site_create

    site = site_create(
        team=cast.team,
        user=cast.facility,
        name="Alpha DC",
        location="Beijing",
        currency="CNY",
        electricity_price_per_kwh="0.55",
        pue=1.25,
    )
    # 10 racks x 40 kW = 400 kW.
    rack_group_save(
        rack_group=RackGroup(
            site=site, name="Row A", count=10, power_kw=40, cooling_kw=40, units=42, max_kg=1500
        )
    )
    return site


def test_facility_engineer_adds_a_rack_group_and_sees_the_total_power_grow(
    page, live_server, cast, site
):
    page.goto(f"{live_server.url}{site.get_absolute_url()}")
    # Not signed in: the login page, which comes back to the site afterwards.
    assert "/accounts/login/" in page.url
    page.get_by_label("User name").fill(cast.facility.username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(f"**{site.get_absolute_url()}")
    assert page.locator("header .account").inner_text().startswith(cast.facility.username)
    assert page.locator("#capacity-power-kw").inner_text() == "400"

    page.get_by_role("link", name="Add rack group").click()
    page.wait_for_selector("#rack-group-form")
    form = page.locator("#rack-group-form")
    form.get_by_label("Name").fill("Row B")
    form.get_by_label("Racks (count)").fill("4")
    # A value out of range is flagged on change, before anything is saved.
    form.get_by_label("Usable power per rack (kW)").fill("900")
    form.get_by_label("Usable power per rack (kW)").blur()
    page.wait_for_selector("#errors-power_kw .error")
    assert form.get_by_label("Name").input_value() == "Row B"  # typed values stay
    form.get_by_label("Usable power per rack (kW)").fill("30")
    form.get_by_label("Cooling per rack (kW)").fill("35")
    form.get_by_label("Usable space per rack (U)").fill("42")
    form.get_by_label("Maximum load per rack (kg)").fill("1200")
    # A locator, not a predicate string: the pages' Content-Security-Policy forbids eval.
    expect(page.locator("#errors-power_kw .error")).to_have_count(0)
    page.wait_for_load_state("networkidle")
    page.locator("#rack-group-form").get_by_role("button", name="Add rack group").click()

    page.wait_for_url(f"**{site.get_absolute_url()}**")
    assert page.locator("#capacity-power-kw").inner_text() == "520"  # 400 + 4 racks x 30 kW
    assert page.locator("#capacity-racks").inner_text() == "14"
    assert "Row B" in page.locator("table.rack-groups").inner_text()
