"""Celery entry points for the planner: a primary key in, a service call, nothing else."""

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.db import InterfaceError, OperationalError, connections

from planner.simulations.services import (
    simulation_execute,
    simulation_gather,
    simulation_requeue_stuck,
    simulation_time_out,
)

# A sweep's gathering task waits for parts another request queued: every 2 s, for two hours
# at most.
GATHER_EVERY_S = 2
GATHER_MAX_WAITS = 3600


@shared_task(
    name="planner.simulation.run",
    bind=True,
    # Idempotent (one row per question, result written once), so a task whose worker died is
    # delivered again rather than lost.
    acks_late=True,
    reject_on_worker_lost=True,
    soft_time_limit=settings.SIMULATION_SOFT_TIME_LIMIT_S,
    time_limit=settings.SIMULATION_SOFT_TIME_LIMIT_S + 30,
    # Only a database that blinked is worth another try.
    autoretry_for=(OperationalError, InterfaceError),
    retry_backoff=2,
    retry_backoff_max=60,
    retry_jitter=True,
    max_retries=3,
    # A sweep's chord needs each part's outcome stored.
    ignore_result=False,
)
def simulation_run_task(self, simulation_id: int) -> str:
    try:
        return simulation_execute(simulation_id=simulation_id, task_id=self.request.id or "")
    except (OperationalError, InterfaceError):
        # The database restarted under the run: this process's connection is dead. Drop it so
        # the retry opens a fresh one instead of failing again on the same closed socket
        # (Celery's Django fix-up closes unusable connections before a task too; this does
        # not depend on it).
        connections.close_all()
        raise
    except SoftTimeLimitExceeded:
        simulation_time_out(
            simulation_id=simulation_id, limit_s=settings.SIMULATION_SOFT_TIME_LIMIT_S
        )
        return "timed_out"


@shared_task(
    name="planner.simulation.gather",
    bind=True,
    acks_late=True,
    reject_on_worker_lost=True,
    max_retries=GATHER_MAX_WAITS,
    ignore_result=True,
)
def simulation_gather_task(self, simulation_id: int) -> str:
    status = simulation_gather(simulation_id=simulation_id)
    if status == "waiting":
        raise self.retry(countdown=GATHER_EVERY_S)
    return status


@shared_task(name="planner.simulation.requeue_stuck", ignore_result=True)
def simulation_requeue_stuck_task() -> list[int]:
    """Run by Celery beat (CELERY_BEAT_SCHEDULE): simulations whose task was lost are queued
    again without anyone asking."""
    return simulation_requeue_stuck()
