"""A Content-Security-Policy that the pages live with: every response carries it, scripts come
only from our own files, and no template holds what the policy would block (an inline script
or an on...= handler). The API's documentation pages get the looser policy their inline start-up
script needs."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE_DIRS = [ROOT / "templates", *ROOT.glob("*/templates")]
INLINE_HANDLER = re.compile(r"\son[a-z]+\s*=", re.IGNORECASE)
INLINE_SCRIPT = re.compile(r"<script(?![^>]*\bsrc=)[^>]*>", re.IGNORECASE)


def _policy(response) -> dict[str, list[str]]:
    return {
        directive.split()[0]: directive.split()[1:]
        for directive in response["Content-Security-Policy"].split("; ")
    }


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/", "/accounts/login/", "/accelerators/", "/api/v1/fabrics/"])
def test_every_response_forbids_inline_scripts_and_framing(client, path):
    policy = _policy(client.get(path))
    assert policy["script-src"] == ["'self'"]
    assert policy["frame-ancestors"] == ["'none'"] and policy["object-src"] == ["'none'"]


@pytest.mark.django_db
def test_the_header_is_the_one_policy_the_settings_declare(client, settings):
    """django-csp builds the header from CONTENT_SECURITY_POLICY: one place says what is allowed,
    and nothing lets a script evaluate strings."""
    directives = settings.CONTENT_SECURITY_POLICY["DIRECTIVES"]
    policy = _policy(client.get("/accelerators/"))
    assert policy == {name: list(sources) for name, sources in directives.items()}
    assert "'unsafe-eval'" not in policy["script-src"]


@pytest.mark.django_db
def test_the_api_documentation_may_start_its_inline_script(client):
    policy = _policy(client.get("/api/docs/"))
    assert "'unsafe-inline'" in policy["script-src"]
    assert "'unsafe-eval'" not in policy["script-src"]


def test_no_template_holds_an_inline_script_or_handler():
    blocked = []
    for folder in TEMPLATE_DIRS:
        for template in folder.rglob("*.html"):
            text = template.read_text(encoding="utf-8")
            if INLINE_HANDLER.search(text):
                blocked.append(f"{template.relative_to(ROOT)}: on...= handler")
            if INLINE_SCRIPT.search(text):
                blocked.append(f"{template.relative_to(ROOT)}: inline <script>")
    assert blocked == []
