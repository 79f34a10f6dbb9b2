"""The power feed pages: facility adds an A/B pair, edits and deletes a feed; errors name the
field; others may not write."""

import pytest
from django.urls import reverse

from planner.models import PowerFeed
from planner.racks.capacity import rack_limits

pytestmark = pytest.mark.django_db

THREE_PHASE_32_A = {
    "name": "PDU-A",
    "feed_type": "primary",
    "supply": "ac",
    "phase": "three",
    "voltage": "400",
    "amperage": "32",
    "max_utilisation": "80",
}


def test_facility_adds_an_a_b_pair_and_the_rack_counts_it_once(cast, group):
    rack = group.racks.first()
    response = cast.browser("facility").post(
        reverse("planner:feed_create", args=[rack.pk]), {**THREE_PHASE_32_A, "add_b_side": "on"}
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    feeds = {f.name: f.feed_type for f in rack.feeds.all()}
    assert feeds == {"PDU-A": "primary", "PDU-B": "redundant"}
    # 400 V x 32 A x sqrt(3) x 80 % = 17.74 kW, once for the pair.
    assert round(rack_limits(rack).power_kw, 2) == 17.74
    page = cast.browser("viewer").get(rack.get_absolute_url()).content.decode()
    assert "PDU-B" in page and "17.7" in page


def test_a_bad_voltage_and_a_taken_name_are_refused_beside_their_fields(cast, group):
    rack = group.racks.first()
    client = cast.browser("facility")
    url = reverse("planner:feed_create", args=[rack.pk])
    assert client.post(url, THREE_PHASE_32_A).status_code == 302
    response = client.post(url, {**THREE_PHASE_32_A, "voltage": "-5"})
    page = response.content.decode()
    assert response.status_code == 200
    assert 'id="id_voltage_error"' in page or "id_voltage" in page
    assert "This rack already has a feed with this name." in page
    assert PowerFeed.objects.count() == 1


def test_a_dc_feed_on_three_phases_is_refused(cast, group):
    rack = group.racks.first()
    response = cast.browser("facility").post(
        reverse("planner:feed_create", args=[rack.pk]), {**THREE_PHASE_32_A, "supply": "dc"}
    )
    assert response.status_code == 200
    assert "A DC feed has no phases" in response.content.decode()
    assert not PowerFeed.objects.exists()


def test_facility_edits_then_deletes_a_feed_and_a_stale_delete_is_refused(cast, group):
    rack = group.racks.first()
    client = cast.browser("facility")
    client.post(reverse("planner:feed_create", args=[rack.pk]), THREE_PHASE_32_A)
    feed = PowerFeed.objects.get()
    form = client.get(reverse("planner:feed_edit", args=[feed.pk])).content.decode()
    assert 'value="PDU-A"' in form and "add_b_side" not in form
    response = client.post(
        reverse("planner:feed_edit", args=[feed.pk]),
        {**THREE_PHASE_32_A, "amperage": "63", "version": feed.version},
    )
    assert response.status_code == 302
    feed.refresh_from_db()
    assert (feed.amperage, feed.version) == (63, 2)
    stale = client.post(reverse("planner:feed_delete", args=[feed.pk]), {"version": 1})
    assert stale.status_code == 302 and PowerFeed.objects.exists()
    client.post(reverse("planner:feed_delete", args=[feed.pk]), {"version": 2})
    assert not PowerFeed.objects.exists()
    assert feed.history.count() == 3  # created, changed, deleted


def test_the_rack_page_keeps_each_feeds_history(cast, group):
    rack = group.racks.first()
    client = cast.browser("facility")
    client.post(reverse("planner:feed_create", args=[rack.pk]), THREE_PHASE_32_A)
    page = client.get(rack.get_absolute_url()).content.decode()
    assert "Equipment and power feeds" in page and page.count("PDU-A") >= 2


def test_planners_may_not_add_feeds_and_outsiders_get_404(cast, group):
    url = reverse("planner:feed_create", args=[group.racks.first().pk])
    assert cast.browser("planner").get(url).status_code == 403
    assert cast.browser("outside_facility").get(url).status_code == 404
    assert cast.browser("facility").get(url).status_code == 200
