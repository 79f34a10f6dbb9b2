"""The fit page: servers placed where free power, space and cooling allow, refused naming the
limit; open to facility and planner roles only."""

import pytest
from django.urls import reverse

from tests.facility import install_dgx

pytestmark = pytest.mark.django_db


def test_a_second_dgx_goes_where_power_allows_and_the_full_rack_names_power(cast, group):
    first, second, _third = group.racks.order_by("position")
    install_dgx(first)  # 10.2 kW of the group's 20 kW
    page = cast.browser("facility").get(
        reverse("planner:fit"),
        {"site": group.site.pk, "server": "nvidia-dgx-h100", "quantity": "2"},
    )
    assert page.status_code == 200
    html = page.content.decode()
    fit = page.context["fit"]
    rows = {r.rack.pk: r for r in fit.racks}
    assert (rows[first.pk].takes, rows[first.pk].binding) == (0, "power")
    assert rows[second.pk].placed == 1 and rows[_third.pk].placed == 1
    assert fit.racks_needed == 2
    assert "refused: power" in html and "slot-new" in html


def test_more_than_the_site_holds_says_how_many_fit_and_the_limit(cast, group):
    page = cast.browser("planner").get(
        reverse("planner:fit"),
        {"site": group.site.pk, "server": "nvidia-dgx-h100", "quantity": "7"},
    )
    fit = page.context["fit"]
    # 20 kW racks take one 10.2 kW DGX H100 each: 3 of 7.
    assert (fit.placed, fit.missing, fit.binding) == (3, 4, "power")
    assert "Only 3 of 7 fit" in page.content.decode()


def test_a_rack_group_of_another_site_and_a_card_the_server_refuses_name_their_field(
    cast, group, shared_group
):
    page = cast.browser("facility").get(
        reverse("planner:fit"),
        {
            "site": group.site.pk,
            "rack_group": shared_group.pk,
            "server": "nvidia-dgx-h100",
            "accelerator": "amd-instinct-mi300x",
            "quantity": "0",
        },
    )
    assert page.status_code == 400
    errors = page.context["form"].errors
    assert set(errors) >= {"rack_group", "quantity"}


def test_viewers_may_not_fit_and_another_teams_site_is_not_offered(cast, group):
    assert cast.browser("viewer").get(reverse("planner:fit")).status_code == 403
    page = cast.browser("outsider").get(
        reverse("planner:fit"), {"site": group.site.pk, "server": "nvidia-dgx-h100"}
    )
    assert page.status_code == 400 and "site" in page.context["form"].errors


def test_the_fit_api_says_401_to_strangers_as_its_schema_does(client):
    response = client.post("/api/v1/fit/", {}, content_type="application/json")
    assert response.status_code == 401
    from drf_spectacular.generators import SchemaGenerator

    schema = SchemaGenerator().get_schema(request=None, public=True)
    answers = schema["paths"]["/api/v1/fit/"]["post"]["responses"]
    assert answers["401"]["description"].startswith("No credentials")
    assert "signed in" not in answers.get("403", {}).get("description", "")


def test_a_new_rack_group_and_a_fit_question_default_to_the_same_feeds():
    from planner.engine.contract.fit import Rack as FitRack
    from planner.models import RackGroup

    assert RackGroup._meta.get_field("feeds").default == FitRack.model_fields["feeds"].default


def test_the_fit_page_speaks_chinese_naming_the_limit(cast, group):
    install_dgx(group.racks.order_by("position").first())
    page = cast.browser("facility").get(
        reverse("planner:fit"),
        {"site": group.site.pk, "server": "nvidia-dgx-h100", "quantity": "7"},
        HTTP_ACCEPT_LANGUAGE="zh-hans",
    )
    html = page.content.decode()
    assert "我们的机柜放得下吗" in html
    assert "7 台中只能放下 2 台" in html and "放不下" in html
