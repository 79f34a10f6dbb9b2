"""Headless Chromium against a live server: filtering the catalog swaps the list in place."""

import os
import shutil

import pytest

from tests.conftest import require_or_skip

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"


@pytest.fixture
def page(live_server):
    if not os.path.exists(CHROMIUM):
        require_or_skip("Debian's chromium is not installed")
    playwright_api = pytest.importorskip("playwright.sync_api")
    # Playwright's sync API runs an event loop; Django must still allow ORM calls in this thread.
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    with playwright_api.sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM,
            args=["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
        )
        page = browser.new_page()
        yield page
        browser.close()


def test_filtering_the_catalog_updates_the_list_without_a_reload(page, live_server):
    from catalog.services import catalog_load

    catalog_load()
    page.goto(f"{live_server.url}/catalog/accelerators/")
    rows = page.locator("#results tbody tr")
    total = rows.count()
    assert total >= 35
    page.evaluate("window.__same_document = true")

    page.get_by_label("AMD", exact=True).check()
    page.wait_for_function(f"document.querySelectorAll('#results tbody tr').length < {total}")

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
