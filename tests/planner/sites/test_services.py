"""The site services' versions: every write moves a row from the version its caller read to the
next, and a caller holding an older copy is refused instead of overwriting a change it has not
seen. Two people, each with their own copy of one row, throughout."""

import pytest
from django.db import IntegrityError, transaction

from planner.models import RackGroup, Site
from planner.sites.services import (
    rack_csv_preview,
    rack_group_delete,
    rack_group_save,
    rack_import_csv,
    site_delete,
    site_update,
)
from planner.versioning import StaleVersionError
from tests.factories import RackGroupFactory, SiteFactory

pytestmark = pytest.mark.django_db

HEADER = "name,count,power_kw,cooling_kw,units,max_kg"


def test_an_update_raises_the_version_by_one():
    site = SiteFactory(pue=1.3)
    assert site.version == 1
    site_update(site=site, pue=1.4)
    site_update(site=site, pue=1.5)
    assert Site.objects.get(pk=site.pk).version == site.version == 3


def test_an_update_from_an_older_copy_is_refused_and_writes_nothing():
    site = SiteFactory(pue=1.3, location="Shanghai")
    mine, theirs = Site.objects.get(pk=site.pk), Site.objects.get(pk=site.pk)
    site_update(site=theirs, location="Tianjin")

    with pytest.raises(StaleVersionError) as refused:
        site_update(site=mine, pue=1.9)
    assert (refused.value.current.version, refused.value.current.location) == (2, "Tianjin")
    assert mine.version == 1  # the refused copy still says what it was read at
    saved = Site.objects.get(pk=site.pk)
    assert (saved.pue, saved.location, saved.version) == (1.3, "Tianjin", 2)


def test_two_copies_of_a_rack_group_changing_different_fields_cannot_mix():
    # Liquid cooling needs liquid loops (the model's check constraint). One person turns on
    # direct liquid cooling, the other, from the same version, removes the loops: each change
    # is valid alone, the mix is not. The second is refused.
    group = RackGroupFactory(cooling="rdhx", liquid_loops=True)
    cooling, loops = RackGroup.objects.get(pk=group.pk), RackGroup.objects.get(pk=group.pk)
    cooling.cooling = "liquid"
    rack_group_save(rack_group=cooling)
    loops.liquid_loops = False
    with pytest.raises(StaleVersionError):
        rack_group_save(rack_group=loops)
    saved = RackGroup.objects.get(pk=group.pk)
    assert (saved.cooling, saved.liquid_loops, saved.version) == ("liquid", True, 2)


def test_deleting_from_an_older_copy_is_refused():
    group = RackGroupFactory()
    stale = RackGroup.objects.get(pk=group.pk)
    group.count = 3
    rack_group_save(rack_group=group)
    with pytest.raises(StaleVersionError):
        rack_group_delete(rack_group=stale)
    assert RackGroup.objects.filter(pk=group.pk).exists()

    site = group.site
    stale_site = Site.objects.get(pk=site.pk)
    site_update(site=site, notes="moving out")
    with pytest.raises(StaleVersionError):
        site_delete(site=stale_site)
    site_delete(site=site)
    assert not Site.objects.filter(pk=site.pk).exists()


def test_saving_a_rack_group_someone_deleted_is_refused_with_nothing_current():
    group = RackGroupFactory()
    mine = RackGroup.objects.get(pk=group.pk)
    rack_group_delete(rack_group=group)
    mine.count = 2
    with pytest.raises(StaleVersionError) as refused:
        rack_group_save(rack_group=mine)
    assert refused.value.current is None
    assert not RackGroup.objects.filter(pk=group.pk).exists()


def test_the_database_refuses_a_version_below_one():
    group = RackGroupFactory()
    with pytest.raises(IntegrityError), transaction.atomic():
        RackGroup.objects.filter(pk=group.pk).update(version=0)
    with pytest.raises(IntegrityError), transaction.atomic():
        Site.objects.filter(pk=group.site_id).update(version=0)


@pytest.mark.parametrize("price", [-1, 101])
def test_the_database_refuses_an_electricity_price_the_form_refuses(price):
    site = SiteFactory()
    with pytest.raises(IntegrityError), transaction.atomic():
        Site.objects.filter(pk=site.pk).update(electricity_price_per_kwh=price)


def test_an_import_checks_the_versions_its_preview_showed():
    site = SiteFactory()
    RackGroupFactory(site=site, name="Row A", count=4)
    data = f"{HEADER}\nRow A,6,40,40,42,1500\nRow B,2,40,40,42,1500\n".encode()
    preview = rack_csv_preview(site=site, data=data)
    assert preview.versions == {"Row A": 1, "Row B": None}

    with pytest.raises(StaleVersionError):
        rack_import_csv(site=site, data=data, expected_versions={"Row A": 0, "Row B": None})
    assert list(site.rack_groups.values_list("name", "count")) == [("Row A", 4)]

    rack_import_csv(site=site, data=data, expected_versions=preview.versions)
    assert list(site.rack_groups.order_by("name").values_list("name", "count", "version")) == [
        ("Row A", 6, 2),
        ("Row B", 2, 1),
    ]
