"""A real Celery worker (celery.contrib.pytest), a real broker (Redis in CI), a real database."""

import time

import pytest

from catalog.choices import LoadStatus
from catalog.models import Accelerator, CatalogLoad
from catalog.tasks import catalog_load_task
from tests.conftest import require_or_skip


@pytest.fixture
def broker_answers(celery_config):
    url = celery_config["broker_url"]
    if url.startswith("redis://"):
        import redis

        try:
            redis.Redis.from_url(url, socket_connect_timeout=2).ping()
        except redis.exceptions.ConnectionError:
            require_or_skip(f"no Redis at {url}")
    return url


@pytest.mark.django_db(transaction=True)
def test_catalog_load_task_runs_on_a_worker_and_records_the_run(
    broker_answers, celery_app, celery_worker
):
    catalog_load_task.delay()
    # The task's outcome is the row it writes, so wait for the row, not for a result message.
    deadline = time.monotonic() + 60
    while not CatalogLoad.objects.exists() and time.monotonic() < deadline:
        time.sleep(0.2)
    run = CatalogLoad.objects.get()
    assert run.status == LoadStatus.SUCCEEDED
    assert run.counts["accelerators"]["created"] == Accelerator.objects.count() >= 35
