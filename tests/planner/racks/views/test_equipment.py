"""The equipment pages: facility installs and removes, everyone on the team reads the bars."""

import pytest
from django.urls import reverse

from catalog.models import ServerPlatform
from planner.models import Equipment

pytestmark = pytest.mark.django_db


def test_facility_installs_a_dgx_and_the_rack_page_shows_it_with_its_bars(cast, group):
    rack = group.racks.first()
    server = ServerPlatform.objects.get(slug="nvidia-dgx-h100")
    response = cast.browser("facility").post(
        reverse("planner:equipment_create", args=[rack.pk]),
        {"rack": rack.pk, "server": server.pk, "position_u": "1"},
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    page = cast.browser("viewer").get(rack.get_absolute_url()).content.decode()
    assert "DGX H100" in page and 'id="rack-usage"' in page and "<svg" in page
    assert "width: 51.00%" in page  # 10.2 kW of the rack's 20 kW


def test_a_free_form_device_without_figures_is_refused_beside_each_field(cast, group):
    rack = group.racks.first()
    response = cast.browser("facility").post(
        reverse("planner:equipment_create", args=[rack.pk]),
        {"rack": rack.pk, "name": "odd box", "position_u": "3"},
    )
    assert response.status_code == 200
    assert "Required for a device that is not a catalog server." in response.content.decode()
    assert not Equipment.objects.exists()


def test_planner_may_not_install_and_outsiders_get_404(cast, group):
    rack = group.racks.first()
    url = reverse("planner:equipment_create", args=[rack.pk])
    assert cast.browser("planner").get(url).status_code == 403
    assert cast.browser("outside_facility").get(url).status_code == 404


def test_removing_keeps_the_row_and_the_export_downloads(cast, group):
    rack = group.racks.first()
    item = Equipment.objects.create(
        rack=rack, name="leaf-1", position_u=42, units=1, nameplate_kw=0.5, weight_kg=9
    )
    client = cast.browser("facility")
    response = client.post(
        reverse("planner:equipment_remove", args=[item.pk]), {"version": item.version}
    )
    assert response.status_code == 302
    item.refresh_from_db()
    assert item.removed_at is not None
    export = client.get(reverse("planner:equipment_export", args=[group.site.pk]))
    assert export["Content-Type"].startswith("text/csv") and b"leaf-1" in export.content
    assert (
        cast.browser("outsider")
        .get(reverse("planner:equipment_export", args=[group.site.pk]))
        .status_code
        == 404
    )
