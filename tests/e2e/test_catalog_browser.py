"""Headless Chromium against a live server: filtering the catalog swaps the list in place."""

import pytest
from playwright.sync_api import expect

pytestmark = [pytest.mark.slow, pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_filtering_the_catalog_updates_the_list_without_a_reload(page, live_server):
    from catalog.services import catalog_load

    catalog_load()
    page.goto(f"{live_server.url}/catalog/accelerators/")
    rows = page.locator("#results tbody tr")
    total = rows.count()
    assert total >= 35
    page.evaluate("window.__same_document = true")

    page.get_by_label("AMD", exact=True).check()
    # Waits through the locator, not wait_for_function: the pages' CSP forbids the
    # string evaluation that wait_for_function polls with.
    expect(rows).not_to_have_count(total)

    names = page.locator("#results tbody tr td:nth-child(2) a").all_inner_texts()
    assert names and all("MI" in name or "Instinct" in name for name in names)
    assert "vendor=AMD" in page.url  # the filtered view is bookmarkable
    assert page.evaluate("window.__same_document") is True  # swapped in place, no navigation


def test_the_catalog_works_in_chinese(page, live_server):
    page.context.add_cookies(
        [{"name": "django_language", "value": "zh-hans", "url": live_server.url}]
    )
    page.goto(f"{live_server.url}/catalog/accelerators/")
    assert "加速卡" in page.locator("h1").inner_text()
