import os
import shutil
from pathlib import Path

import pytest
from celery.signals import task_postrun
from django.conf import settings
from django.db import connections

pytest_plugins = ("celery.contrib.pytest",)

# CI sets this: there a missing service or browser is a failure, never a skip.
REQUIRE_SERVICES = os.environ.get("FLOPFIT_REQUIRE_SERVICES") == "1"


def require_or_skip(reason: str) -> None:
    if REQUIRE_SERVICES:
        pytest.fail(f"required in CI: {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def celery_config():
    return {
        "broker_url": settings.CELERY_BROKER_URL,
        "result_backend": settings.CELERY_RESULT_BACKEND,
        "task_serializer": "json",
        "accept_content": ["json"],
        "broker_connection_retry_on_startup": False,
    }


@pytest.fixture(scope="session")
def celery_worker_parameters():
    return {"shutdown_timeout": 10}


@task_postrun.connect
def _close_worker_connections(**kwargs):
    # The test worker runs tasks in its own thread; closing that thread's connections after each
    # task lets the test database be flushed and dropped.
    connections.close_all()


@pytest.fixture(autouse=True)
def _empty_cache():
    """Each test starts with an empty cache: rendered fragments and throttle counts are kept
    there, and a test database's rows can repeat another test's keys."""
    from django.core.cache import caches

    for alias in settings.CACHES:
        caches[alias].clear()


@pytest.fixture(autouse=True)
def _english_first():
    """Each test starts in English: a request in another language leaves the thread's active
    language behind it."""
    from django.utils import translation

    translation.activate(settings.LANGUAGE_CODE)
    yield
    translation.deactivate()


@pytest.fixture
def cast(db):
    """Someone not signed in, a viewer, a planner, a facility engineer and an admin of team
    Alpha, and outsiders of team Beta, with a signed-in client for each (tests/cast.py)."""
    from tests.cast import Cast

    return Cast()


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    """A private copy of the curated catalog data that a test may edit."""
    from catalog.loader import DATA_DIR

    target = tmp_path / "data"
    shutil.copytree(DATA_DIR, target)
    return target


@pytest.fixture(scope="session")
def catalog_rows():
    from catalog.loader import read_catalog

    return read_catalog()


@pytest.fixture
def loaded_catalog(db, catalog_rows):
    """The curated catalog, inserted in bulk. The loader itself (validation, upserts, counts)
    is tested in tests/catalog/test_loader.py; most tests only need the rows present."""
    from catalog.loader import KINDS

    for kind, rows in catalog_rows.items():
        model = KINDS[kind]
        objects = []
        for row in rows:
            values = dict(row.values)
            for field_name, slug in row.references.items():
                related = model._meta.get_field(field_name).related_model
                values[field_name] = related.objects.get(slug=slug)
            objects.append(model(**values))
        model.objects.bulk_create(objects)
    return catalog_rows


@pytest.fixture(scope="session")
def reference_price_rows():
    from planner.prices.reference import read_reference_prices

    return read_reference_prices()


@pytest.fixture
def reference_prices(loaded_catalog, reference_price_rows):
    """The shipped reference price list, inserted in bulk (so without history). The loader
    itself is tested in tests/planner/prices/test_reference.py."""
    from planner.models import Price
    from planner.prices.cells import CatalogSlugs

    catalog = CatalogSlugs.load()
    Price.objects.bulk_create(row.instance(catalog) for row in reference_price_rows)
    return reference_price_rows
