"""Production: no defaults for secrets, DEBUG off, HTTPS assumed in front of gunicorn.

`manage.py check --deploy --fail-level WARNING` passes with these settings and nothing else set
but DJANGO_SECRET_KEY and ALLOWED_HOSTS (tests/config/test_production.py runs it)."""

import logging

from django.core.exceptions import ImproperlyConfigured

from config.cache import cache_config, redis_database
from config.logging import logging_config
from config.settings.base import *  # noqa: F403
from config.settings.base import env

# Django's own deployment check (security.W009) wants at least this many characters.
SECRET_KEY_MIN_LENGTH = 50
METRICS_TOKEN_MIN_LENGTH = 32
# The cache's database on the broker's Redis when CACHE_URL is not set (docker-compose's too).
BROKER_CACHE_DATABASE = 2

DEBUG = False
SECRET_KEY = env("DJANGO_SECRET_KEY")
ALLOWED_HOSTS = env.list("ALLOWED_HOSTS")
# Set but empty counts as missing: docker-compose passes an unset variable as "".
if len(SECRET_KEY) < SECRET_KEY_MIN_LENGTH:
    raise ImproperlyConfigured(
        f"Set DJANGO_SECRET_KEY to a random value of at least {SECRET_KEY_MIN_LENGTH} characters"
    )
if not ALLOWED_HOSTS:
    raise ImproperlyConfigured("Set ALLOWED_HOSTS to the host names this site answers to")
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])

# HTTPS ends at the proxy in front; it says so in X-Forwarded-Proto.
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = env.bool("DJANGO_SECURE_SSL_REDIRECT", default=True)
# Probes and scrapes come over plain HTTP from inside the network; a redirect would fail them.
SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^readyz$", r"^metrics$"]
SECURE_HSTS_SECONDS = env.int("DJANGO_SECURE_HSTS_SECONDS", default=60 * 60 * 24 * 365)
SECURE_HSTS_INCLUDE_SUBDOMAINS = True
SECURE_HSTS_PRELOAD = True
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"

SESSION_COOKIE_SECURE = True
SESSION_COOKIE_HTTPONLY = True
CSRF_COOKIE_SECURE = True
# Forms carry the token in the page ({% csrf_token %}); no script reads the cookie.
CSRF_COOKIE_HTTPONLY = True

DATABASES["default"]["CONN_MAX_AGE"] = env.int("CONN_MAX_AGE", default=60)  # noqa: F405
DATABASES["default"]["CONN_HEALTH_CHECKS"] = True  # noqa: F405
if DATABASES["default"]["ENGINE"].endswith("postgresql"):  # noqa: F405
    # An unreachable database host fails a request (and /readyz) in seconds, not after the
    # operating system's TCP timeout of minutes.
    DATABASES["default"].setdefault("OPTIONS", {})["connect_timeout"] = env.int(  # noqa: F405
        "DATABASE_CONNECT_TIMEOUT_S", default=5
    )

# Hashed file names, so WhiteNoise can let browsers cache static files for ever.
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}
STATIC_ROOT = env.path("DJANGO_STATIC_ROOT", default=STATIC_ROOT)  # noqa: F405

LOGGING = logging_config(
    log_format=env("LOG_FORMAT", default="json"), level=env("LOG_LEVEL", default="INFO")
)
# Python warnings (a missing static directory, a deprecation) go through the `py.warnings`
# logger, so they reach stdout as JSON lines like every other record, not as bare text.
logging.captureWarnings(True)

# /metrics answers only requests that carry `Authorization: Bearer <token>`: it names every
# route and its traffic, which is nobody's business outside the monitoring.
FLOPFIT_METRICS_TOKEN = env("FLOPFIT_METRICS_TOKEN", default="")
if len(FLOPFIT_METRICS_TOKEN) < METRICS_TOKEN_MIN_LENGTH:
    raise ImproperlyConfigured(
        f"Set FLOPFIT_METRICS_TOKEN to a random value of at least {METRICS_TOKEN_MIN_LENGTH} "
        "characters: /metrics wants it as a bearer token"
    )

# API throttling counts in the cache. This process's memory would let each gunicorn worker
# count alone (6 workers: six times the documented rate), so production wants Redis: CACHE_URL,
# or else the broker's Redis server (database 2).
if not CACHES["default"]["BACKEND"].endswith("RedisCache"):  # noqa: F405
    if not CELERY_BROKER_URL.startswith(("redis://", "rediss://")):  # noqa: F405
        raise ImproperlyConfigured(
            "Set CACHE_URL to a redis:// URL: API throttling counts in the cache, and a "
            "per-process cache lets every web worker count on its own"
        )
    CACHES["default"] = cache_config(  # noqa: F405
        redis_database(CELERY_BROKER_URL, BROKER_CACHE_DATABASE),  # noqa: F405
        timeout_s=env.float("REDIS_CACHE_TIMEOUT_S", default=0.5),
    )

# A task not acknowledged is delivered again after the visibility timeout; shorter than a task
# may run, and a run still going would be delivered (and started) twice.
_LONGEST_TASK_S = max(CELERY_TASK_TIME_LIMIT, SIMULATION_SOFT_TIME_LIMIT_S + 30)  # noqa: F405
if CELERY_VISIBILITY_TIMEOUT_S <= _LONGEST_TASK_S:  # noqa: F405
    raise ImproperlyConfigured(
        f"CELERY_VISIBILITY_TIMEOUT_S must exceed the longest task time limit ({_LONGEST_TASK_S} s)"
    )
