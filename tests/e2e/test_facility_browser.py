"""Headless Chromium against a live server: a facility engineer installs a DGX H100 in a rack,
and the fit page places a second one where power allows and refuses it where it does not,
naming power; a plan's racks needed rise once the equipment is in, and fall when another plan
releases the rack it held."""

import pytest
from playwright.sync_api import expect

from tests.cast import PASSWORD
from tests.facility import DGX, dgx_question

pytestmark = [pytest.mark.slow, pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def hall(loaded_catalog, cast):
    """Row A: two 25 kW racks (two DGX H100 each, 10.2 kW apiece); Row B: one 8 kW rack (none).
    Plan "Two DGX" fits in one rack of Row A; plan "Holder" holds one DGX's room in A-02."""
    from catalog.models import ServerPlatform
    from planner.models import RackCommitment, RackGroup
    from planner.plans.services import plan_create
    from planner.sites.services import rack_group_save, site_create

    site = site_create(
        team=cast.team,
        user=cast.facility,
        name="Hall A",
        location="",
        currency="CNY",
        electricity_price_per_kwh="0.6",
        pue=1.3,
    )
    limits = {"cooling_kw": 30, "units": 42, "max_kg": 1500}
    row_a = rack_group_save(
        rack_group=RackGroup(site=site, name="Row A", count=2, power_kw=25, **limits)
    )
    rack_group_save(rack_group=RackGroup(site=site, name="Row B", count=1, power_kw=8, **limits))
    holder = plan_create(
        data=dgx_question("Holder", 1),
        user=cast.planner,
        team=cast.team,
        site=site,
    )
    server = ServerPlatform.objects.get(slug=DGX)
    RackCommitment.objects.create(
        rack=row_a.racks.get(position=2),
        plan=holder,
        server=server,
        servers=1,
        power_kw=server.max_power_kw,
        units=server.rack_units,
        weight_kg=server.weight_kg,
        created_by=cast.planner,
    )
    plan = plan_create(
        data=dgx_question("Two DGX", 2),
        user=cast.planner,
        team=cast.team,
        site=site,
    )
    return {"site": site, "rack": row_a.racks.get(position=1), "plan": plan, "holder": holder}


def sign_in(page, live_server, user, then: str) -> None:
    page.context.clear_cookies()
    page.goto(f"{live_server.url}{then}")
    page.get_by_label("User name").fill(user.username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(f"**{then}")


def racks_needed(page) -> str:
    return page.locator("td.racks-needed [data-racks]").first.inner_text()


def rank_again(page) -> None:
    expect(page.locator("#site-changed")).to_be_visible()
    page.locator("#site-changed").get_by_role("button", name="Rank again").click()
    expect(page.locator("#site-changed")).to_have_count(0)


def test_facility_installs_a_dgx_the_fit_names_power_and_plans_follow_the_racks(
    page, live_server, cast, hall
):
    from catalog.models import ServerPlatform

    plan_url = hall["plan"].get_absolute_url()
    sign_in(page, live_server, cast.planner, plan_url)
    assert racks_needed(page) == "1"  # both DGX in A-01

    # The facility engineer installs a DGX H100 at the bottom of A-01.
    rack_url = hall["rack"].get_absolute_url()
    sign_in(page, live_server, cast.facility, rack_url)
    page.get_by_role("link", name="Install equipment").click()
    form = page.locator("#equipment-form")
    form.get_by_label("Catalog server").select_option(str(ServerPlatform.objects.get(slug=DGX).pk))
    form.get_by_label("Lowest U").fill("1")
    page.wait_for_load_state("networkidle")
    form.get_by_role("button", name="Install").click()
    page.wait_for_url(f"**{rack_url}**")
    expect(page.locator("#installed")).to_contain_text("DGX H100")

    # One more DGX H100: A-01 still has 14.8 kW, Row B's 8 kW rack has too little power.
    page.get_by_role("link", name="Fit", exact=True).click()
    fit = page.locator("#fit-form")
    fit.get_by_label("Site").select_option(str(hall["site"].pk))
    fit.get_by_label("Server").select_option(DGX)
    fit.get_by_label("How many more").fill("1")
    fit.get_by_role("button", name="Check the fit").click()
    expect(page.locator("#fit-verdict")).to_contain_text("All 1 fit, in 1 rack")
    a_01 = page.locator("#fit-racks tr", has_text="Row A-01")
    expect(a_01.locator("td").nth(5)).to_have_text("1")  # placed
    expect(page.locator("#fit-racks tr", has_text="Row B-01")).to_contain_text("refused: power")
    expect(page.locator(".elevations .slot-new")).to_have_count(1)

    # The plan, ranked again, now needs two racks: have room for one each.
    page.goto(f"{live_server.url}{plan_url}")
    rank_again(page)
    assert racks_needed(page) == "2"

    # The other plan gives A-02 back: ranked again, one rack does.
    sign_in(page, live_server, cast.planner, hall["holder"].get_absolute_url())
    page.get_by_role("button", name="Release the racks").click()
    expect(page.locator("#racks-held")).to_contain_text("None")
    page.goto(f"{live_server.url}{plan_url}")
    rank_again(page)
    assert racks_needed(page) == "1"
