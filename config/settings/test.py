"""The test suite. Uses DATABASE_URL / CELERY_BROKER_URL when set (CI: PostgreSQL and Redis),
otherwise a SQLite file and kombu's in-memory transport."""

from pathlib import Path

from config.settings.base import *  # noqa: F403
from config.settings.base import DATABASES, REST_FRAMEWORK, env

DEBUG = False
SECRET_KEY = "test-only-key"
ALLOWED_HOSTS = ["testserver", "127.0.0.1", "localhost"]
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

if DATABASES["default"]["ENGINE"].endswith("sqlite3"):
    # A file beside the database, not :memory:, so a Celery worker thread sees what the test
    # wrote (and a DATABASE_URL elsewhere keeps its test database elsewhere too).
    _name = Path(DATABASES["default"]["NAME"])
    DATABASES["default"]["TEST"] = {"NAME": str(_name.with_name(f"{_name.stem}-test.sqlite3"))}

# Rates no test reaches; tests/config/test_api_hardening.py lowers them to see 429.
REST_FRAMEWORK = {
    **REST_FRAMEWORK,
    "DEFAULT_THROTTLE_RATES": {"anon": "100000/min", "user": "100000/min", "compute": "100000/min"},
}

CELERY_BROKER_URL = env("CELERY_BROKER_URL", default="memory://")
CELERY_RESULT_BACKEND = env("CELERY_RESULT_BACKEND", default="cache+memory://")

STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
