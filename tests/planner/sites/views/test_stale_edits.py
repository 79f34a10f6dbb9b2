"""Edits that cross: a form, a delete or an import based on a row someone else has changed
since saves nothing and says so."""

import re

import pytest
from django.urls import reverse

from planner.models import RackGroup, Site
from planner.sites.services import rack_group_save, site_update
from tests.planner.sites.views.common import (
    GOOD_CSV,
    HEADER,
    HTMX,
    RACK_FORM,
    SITE_FORM,
    import_url,
    upload,
)

pytestmark = pytest.mark.django_db


# --- edits that cross ------------------------------------------------------------------------


def someone_else_saves(site: Site, **changes) -> Site:
    """Another person's save, through the same service, on their own copy of the row."""
    return site_update(site=Site.objects.get(pk=site.pk), **changes)


def test_the_edit_forms_carry_the_version_they_were_opened_on(cast, site, rack_group):
    client = cast.browser("facility")
    for url in [
        reverse("planner:site_edit", args=[site.pk]),
        reverse("planner:rackgroup_edit", args=[rack_group.pk]),
    ]:
        body = client.get(url).content.decode()
        assert '<input type="hidden" name="version" value="1"' in body, url
    create = client.get(reverse("planner:rackgroup_create", args=[site.pk])).content.decode()
    assert 'name="version"' not in create


def test_saving_a_stale_site_form_overwrites_nothing_and_shows_both_values(cast, site):
    client = cast.browser("facility")
    url = reverse("planner:site_edit", args=[site.pk])
    opened_on = client.get(url).context["form"]["version"].value()
    someone_else_saves(site, pue=1.5, location="Tianjin")

    mine = {**SITE_FORM, "name": "Alpha DC", "pue": "1.4", "version": opened_on}
    response = client.post(url, mine)
    body = response.content.decode()
    assert response.status_code == 200 and "<html" in body
    assert "Someone else saved this site while you were editing it" in body
    saved = {
        row["label"]: (row["saved"], row["yours"])
        for row in response.context["form"].changed_meanwhile
    }
    assert saved["PUE (facility power ÷ IT power)"] == ("1.5", "1.4")
    assert saved["Location"] == ("Tianjin", "Shanghai, Pudong")
    assert 'id="changed-meanwhile"' in body
    # Nothing typed is lost, and nothing was written.
    assert 'value="1.4"' in body and 'value="Shanghai, Pudong"' in body
    site.refresh_from_db()
    assert (site.pue, site.location, site.version) == (1.5, "Tianjin", 2)

    # The form now carries the newer version: saving again keeps mine, knowingly.
    assert '<input type="hidden" name="version" value="2"' in body
    again = client.post(url, {**mine, "version": "2"})
    assert again.status_code == 302
    site.refresh_from_db()
    assert (site.pue, site.location, site.version) == (1.4, "Shanghai, Pudong", 3)


def test_saving_a_stale_rack_group_form_overwrites_nothing(cast, site, rack_group):
    client = cast.browser("facility")
    url = reverse("planner:rackgroup_edit", args=[rack_group.pk])
    theirs = RackGroup.objects.get(pk=rack_group.pk)
    theirs.cooling, theirs.liquid_loops = "liquid", True
    rack_group_save(rack_group=theirs)

    response = client.post(url, {**RACK_FORM, "name": "Row A", "version": "1"})
    form = response.context["form"]
    assert response.status_code == 200
    assert any("Someone else saved this rack group" in e for e in form.non_field_errors())
    assert 'id="changed-meanwhile"' in response.content.decode()
    rows = {row["label"]: (row["saved"], row["yours"]) for row in form.changed_meanwhile}
    assert rows["Cooling"] == ("Direct liquid", "Rear-door heat exchanger")
    assert rows["Liquid cooling loops"] == ("yes", "no")
    rack_group.refresh_from_db()
    assert (rack_group.cooling, rack_group.count, rack_group.version) == ("liquid", 10, 2)


def test_inline_validation_warns_as_soon_as_someone_else_has_saved(cast, site):
    client = cast.browser("facility")
    url = reverse("planner:site_edit", args=[site.pk])
    fresh = client.post(url, {**SITE_FORM, "version": "1", "_validate": "1"}, **HTMX)
    assert 'id="newer-version"' not in fresh.content.decode()
    someone_else_saves(site, pue=1.5)
    response = client.post(url, {**SITE_FORM, "version": "1", "_validate": "1"}, **HTMX)
    body = response.content.decode()
    assert body.lstrip().startswith("<form") and 'id="newer-version"' in body
    assert "Someone else has saved this record since you opened the form." in body
    # The warning keeps the version the form was opened on: Save will still be checked.
    assert '<input type="hidden" name="version" value="1"' in body
    site.refresh_from_db()
    assert site.pue == 1.5


def test_a_form_without_its_version_is_refused_above_the_form(cast, site):
    client = cast.browser("facility")
    response = client.post(reverse("planner:site_edit", args=[site.pk]), SITE_FORM)
    assert response.status_code == 200
    assert response.context["form"].non_field_errors() == [
        "This form does not say which version it edits; reload the page and make your change again."
    ]
    site.refresh_from_db()
    assert (site.name, site.version) == ("Alpha DC", 1)


def test_a_stale_edit_shows_the_chinese_message(cast, site):
    client = cast.browser("facility")
    someone_else_saves(site, pue=1.5)
    response = client.post(
        reverse("planner:site_edit", args=[site.pk]),
        {**SITE_FORM, "version": "1"},
        HTTP_ACCEPT_LANGUAGE="zh-hans",
    )
    message = response.context["form"].non_field_errors()[0]
    assert "Someone else" not in message and "站点" in message


def test_an_import_refuses_rows_changed_after_the_preview(cast, site, rack_group):
    data = f"{HEADER}\nRow A,12,40,2n,40,air,42,1500,25,false,\n".encode()
    client = cast.browser("facility")
    token = client.post(import_url(site), {"file": upload(data)}).context["token"]
    theirs = RackGroup.objects.get(pk=rack_group.pk)
    theirs.count = 30
    rack_group_save(rack_group=theirs)

    response = client.post(import_url(site), {"token": token})
    assert response.status_code == 409
    assert "nothing was imported" in response.content.decode()
    rack_group.refresh_from_db()
    assert (rack_group.count, rack_group.version) == (30, 2)


def test_an_import_refuses_a_name_added_after_the_preview(cast, site):
    client = cast.browser("facility")
    token = client.post(import_url(site), {"file": upload(GOOD_CSV)}).context["token"]
    rack_group_save(
        rack_group=RackGroup(
            site=site, name="Row C", count=1, power_kw=5, cooling_kw=5, units=42, max_kg=900
        )
    )
    assert client.post(import_url(site), {"token": token}).status_code == 409
    assert set(RackGroup.objects.values_list("name", flat=True)) == {"Row C"}


def test_an_import_that_updates_a_rack_group_raises_its_version(cast, site, rack_group):
    data = f"{HEADER}\nRow A,12,40,2n,40,air,42,1500,25,false,\n".encode()
    client = cast.browser("facility")
    token = client.post(import_url(site), {"file": upload(data)}).context["token"]
    assert client.post(import_url(site), {"token": token}).status_code == 302
    rack_group.refresh_from_db()
    assert (rack_group.count, rack_group.version) == (12, 2)


def test_deleting_a_rack_group_changed_after_the_page_was_loaded_is_refused(cast, site, rack_group):
    client = cast.browser("facility")
    page = client.get(site.get_absolute_url()).content.decode()
    shown = re.search(r'name="version" value="(\d+)"', page).group(1)
    theirs = RackGroup.objects.get(pk=rack_group.pk)
    theirs.count = 30
    rack_group_save(rack_group=theirs)

    url = reverse("planner:rackgroup_delete", args=[rack_group.pk])
    response = client.post(url, {"version": shown}, follow=True)
    assert "after this page was loaded, so it was not deleted" in response.content.decode()
    assert RackGroup.objects.filter(pk=rack_group.pk).exists()
    missing = client.post(url, follow=True)
    assert "The page was out of date" in missing.content.decode()
    assert RackGroup.objects.filter(pk=rack_group.pk).exists()
