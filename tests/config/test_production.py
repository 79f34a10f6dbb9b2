"""Production settings, each case in a fresh process started as a deployment starts one."""

import json
import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest

from tests.processes import METRICS_TOKEN, PRODUCTION_CACHE_URL

ROOT = Path(__file__).resolve().parents[2]
# Variables a developer's or CI's shell may carry that would change what production reads.
_INHERITED_OUT = (
    "DJANGO_SETTINGS_MODULE",
    "DJANGO_SECRET_KEY",
    "ALLOWED_HOSTS",
    "CSRF_TRUSTED_ORIGINS",
    "DATABASE_URL",
    "CELERY_BROKER_URL",
    "CELERY_RESULT_BACKEND",
    "DJANGO_SECURE_SSL_REDIRECT",
    "LOG_FORMAT",
    "PROMETHEUS_MULTIPROC_DIR",
    "CACHE_URL",
    "REDIS_URL",
    "FLOPFIT_METRICS_TOKEN",
    "CELERY_VISIBILITY_TIMEOUT_S",
)


def production(args: list[str], tmp_path: Path, **env: str) -> subprocess.CompletedProcess:
    base = {k: v for k, v in os.environ.items() if k not in _INHERITED_OUT}
    settings = {
        "DJANGO_SETTINGS_MODULE": "config.settings.production",
        "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
        "ALLOWED_HOSTS": "example.com",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
        "DJANGO_STATIC_ROOT": str(tmp_path / "static"),
        "CACHE_URL": PRODUCTION_CACHE_URL,
        "FLOPFIT_METRICS_TOKEN": METRICS_TOKEN,
    }
    environment = {**base, **settings, **env}
    for name, value in env.items():
        if value is None:
            del environment[name]
    return subprocess.run(
        [sys.executable, *args],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_deploy_check_passes_without_a_single_warning(tmp_path):
    done = production(["manage.py", "check", "--deploy", "--fail-level", "WARNING"], tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "System check identified no issues (0 silenced)." in done.stdout
    assert "WARNING" not in done.stderr and "?: (" not in done.stderr


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("DJANGO_SECRET_KEY", None, "Set the DJANGO_SECRET_KEY environment variable"),
        ("DJANGO_SECRET_KEY", "", "Set DJANGO_SECRET_KEY to a random value of at least 50"),
        ("DJANGO_SECRET_KEY", "k" * 49, "Set DJANGO_SECRET_KEY to a random value of at least 50"),
        ("ALLOWED_HOSTS", None, "Set the ALLOWED_HOSTS environment variable"),
        ("ALLOWED_HOSTS", "", "Set ALLOWED_HOSTS to the host names this site answers to"),
        ("FLOPFIT_METRICS_TOKEN", None, "Set FLOPFIT_METRICS_TOKEN to a random value"),
        ("FLOPFIT_METRICS_TOKEN", "short", "Set FLOPFIT_METRICS_TOKEN to a random value"),
        ("CACHE_URL", None, "Set CACHE_URL to a redis:// URL"),
        ("CELERY_VISIBILITY_TIMEOUT_S", "600", "must exceed the longest task time limit"),
    ],
)
def test_production_refuses_to_start_without_each_required_variable(tmp_path, name, value, message):
    done = production(["manage.py", "check"], tmp_path, **{name: value})
    assert done.returncode != 0
    assert "ImproperlyConfigured" in done.stderr and message in done.stderr


def test_production_refuses_an_unknown_log_format(tmp_path):
    done = production(["manage.py", "check"], tmp_path, LOG_FORMAT="yaml")
    assert done.returncode != 0
    assert "LOG_FORMAT must be one of plain, json, not 'yaml'" in done.stderr


# Renders pages with the storage production serves static files from (hashed names in a
# manifest: a template naming a file collectstatic did not collect fails to render), and
# reports what a browser would receive.
_RENDER = """
import json
import django
django.setup()
from django.test import Client
client = Client()
answers = {}
for path, secure in [("/accounts/login/", True), ("/healthz", False), ("/accounts/login/", False)]:
    response = client.get(path, secure=secure, HTTP_HOST="example.com")
    answers[f"{'https' if secure else 'http'} {path}"] = {
        "status": response.status_code,
        "headers": dict(response.headers),
        "cookies": {name: {"secure": bool(morsel["secure"]), "httponly": bool(morsel["httponly"])}
                    for name, morsel in response.cookies.items()},
        "body": response.content.decode(),
    }
print(json.dumps(answers))
"""


@pytest.fixture(scope="module")
def production_pages(tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp("production")
    # The image collects everything; here the packages' own files (admin, DRF, the Swagger UI
    # bundle: 40 MB that take most of a minute to compress) are left out, since their
    # templates name files that ship with them. What is checked is that our templates name
    # only files that collectstatic collects.
    third_party = ["--ignore", "admin", "--ignore", "rest_framework"]
    third_party += ["--ignore", "drf_spectacular_sidecar"]
    collected = production(["manage.py", "collectstatic", "--no-input", *third_party], tmp_path)
    assert collected.returncode == 0, collected.stderr
    rendered = production(["-c", _RENDER], tmp_path)
    assert rendered.returncode == 0, rendered.stderr
    return json.loads(rendered.stdout)


def test_pages_render_with_hashed_static_files(production_pages):
    login = production_pages["https /accounts/login/"]
    assert login["status"] == 200
    # CompressedManifestStaticFilesStorage: name.<12 hex digits>.ext
    assert any(
        "/static/css/flopfit." in line and ".css" in line and "flopfit.css" not in line
        for line in login["body"].splitlines()
    ), login["body"]


def test_a_page_carries_the_security_headers(production_pages):
    headers = production_pages["https /accounts/login/"]["headers"]
    assert headers["Strict-Transport-Security"] == "max-age=31536000; includeSubDomains; preload"
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert headers["X-Frame-Options"] == "DENY"
    assert headers["Referrer-Policy"] == "same-origin"
    assert headers["Cross-Origin-Opener-Policy"] == "same-origin"


def test_plain_http_is_redirected_to_https_except_for_probes(production_pages):
    page = production_pages["http /accounts/login/"]
    assert page["status"] == 301
    assert page["headers"]["Location"] == "https://example.com/accounts/login/"
    probe = production_pages["http /healthz"]
    assert probe["status"] == 200 and json.loads(probe["body"]) == {"status": "ok"}


def test_the_csrf_cookie_a_form_sets_is_secure_and_http_only(production_pages):
    cookies = production_pages["https /accounts/login/"]["cookies"]
    assert cookies["csrftoken"] == {"secure": True, "httponly": True}


def test_session_and_csrf_cookies_are_secure_and_http_only(tmp_path):
    done = production(
        [
            "-c",
            "import django; django.setup()\n"
            "from django.conf import settings as s\n"
            "print(s.SESSION_COOKIE_SECURE, s.SESSION_COOKIE_HTTPONLY,"
            " s.CSRF_COOKIE_SECURE, s.CSRF_COOKIE_HTTPONLY, s.CSRF_TRUSTED_ORIGINS,"
            " s.DATABASES['default']['CONN_MAX_AGE'], s.DATABASES['default']['CONN_HEALTH_CHECKS'])",
        ],
        tmp_path,
        CSRF_TRUSTED_ORIGINS="https://plan.example.com,https://example.com",
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split(" ", 4)[:4] == ["True", "True", "True", "True"]
    assert "['https://plan.example.com', 'https://example.com'] 60 True" in done.stdout


def test_production_throttles_in_the_brokers_redis_when_no_cache_is_named(tmp_path):
    done = production(
        [
            "-c",
            "import django; django.setup()\n"
            "from django.conf import settings as s\n"
            "print(s.CACHES['default']['BACKEND'], s.CACHES['default']['LOCATION'])",
        ],
        tmp_path,
        CACHE_URL=None,
        CELERY_BROKER_URL="redis://queue.internal:6379/0",
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [
        "config.cache.FailOpenRedisCache",
        "redis://queue.internal:6379/2",
    ]


def test_production_serves_metrics_only_with_the_token(tmp_path):
    code = (
        "import django; django.setup()\n"
        "from django.test import Client\n"
        "client = Client()\n"
        "print(client.get('/metrics', HTTP_HOST='example.com').status_code,"
        f" client.get('/metrics', HTTP_HOST='example.com', HTTP_AUTHORIZATION='Bearer {METRICS_TOKEN}').status_code)"
    )
    done = production(["-c", code], tmp_path, DJANGO_SECURE_SSL_REDIRECT="false")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1].split() == ["401", "200"]
