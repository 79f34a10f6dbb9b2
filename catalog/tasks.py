"""Celery entry points for the catalog: take plain arguments, call a service, record the run."""

from celery import shared_task

from catalog.loader import CatalogDataError
from catalog.services import catalog_load


@shared_task(name="catalog.load", ignore_result=True)
def catalog_load_task() -> int | None:
    """Reload the curated catalog; the outcome is the `CatalogLoad` row, failed or not.

    Bad data is not transient, so it is never retried: the failed run is already recorded.
    """
    try:
        return catalog_load().pk
    except CatalogDataError:
        return None
