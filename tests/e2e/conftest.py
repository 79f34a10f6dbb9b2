import shutil

import pytest

from tests.conftest import require_or_skip

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"


@pytest.fixture
def page(live_server, monkeypatch):
    """A headless Chromium tab (Debian's package: Playwright's own browser download fails)."""
    if not shutil.which(CHROMIUM):
        require_or_skip("Debian's chromium is not installed")
    playwright_api = pytest.importorskip("playwright.sync_api")
    # Playwright's sync API runs an event loop; Django must still allow ORM calls in this
    # thread. Only for this test: a later test's subprocess must not inherit it.
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    with playwright_api.sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM,
            args=["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
        )
        page = browser.new_page()
        yield page
        browser.close()
