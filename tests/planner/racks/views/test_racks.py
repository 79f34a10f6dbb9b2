"""The racks pages: who reaches what, and a rack's form."""

import pytest
from django.urls import reverse

from planner.models import Rack

pytestmark = pytest.mark.django_db


def test_everyone_on_the_team_sees_the_rack_group_and_its_racks(cast, group):
    response = cast.browser("viewer").get(reverse("planner:rackgroup_detail", args=[group.pk]))
    assert response.status_code == 200
    assert "Row A-03" in response.content.decode()
    rack = group.racks.first()
    assert cast.browser("viewer").get(rack.get_absolute_url()).status_code == 200


def test_another_team_private_rack_group_is_404_on_read_and_write(cast, group):
    client = cast.browser("outside_facility")
    rack = group.racks.first()
    assert client.get(reverse("planner:rackgroup_detail", args=[group.pk])).status_code == 404
    assert client.get(rack.get_absolute_url()).status_code == 404
    assert client.get(reverse("planner:rack_edit", args=[rack.pk])).status_code == 404
    assert client.get(reverse("planner:rack_create", args=[group.pk])).status_code == 404


def test_planner_may_not_open_rack_forms(cast, group):
    client = cast.browser("planner")
    assert client.get(reverse("planner:rack_create", args=[group.pk])).status_code == 403


def test_facility_adds_a_rack_with_its_own_power(cast, group):
    url = reverse("planner:rack_create", args=[group.pk])
    response = cast.browser("facility").post(
        url, {"name": "Hot aisle 1", "position": "4", "power_kw": "45"}
    )
    assert response.status_code == 302
    rack = Rack.objects.get(name="Hot aisle 1")
    assert rack.power_kw == 45 and rack.units is None
    group.refresh_from_db()
    assert group.count == 4


def test_a_taken_rack_name_is_said_beside_the_field(cast, group):
    url = reverse("planner:rack_create", args=[group.pk])
    response = cast.browser("facility").post(url, {"name": "Row A-01", "position": "4"})
    assert response.status_code == 200
    assert "already has a rack with this name" in response.content.decode()


def test_facility_deletes_a_rack(cast, group):
    rack = group.racks.first()
    response = cast.browser("facility").post(
        reverse("planner:rack_delete", args=[rack.pk]), {"version": rack.version}
    )
    assert response.status_code == 302
    assert not Rack.objects.filter(pk=rack.pk).exists()
