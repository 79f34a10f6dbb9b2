"""Starting, running and cancelling simulations. Tasks call `simulation_execute`; views, the
API and the command call `simulation_start` and `simulation_cancel`."""

from __future__ import annotations

import logging
import time
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from planner.choices import ACTIVE_STATUSES, SimulationStatus
from planner.engine import MODEL_VERSION, RequestError
from planner.engine.simulate.request import SimulationQuestion, inputs_hash, simulation_from_dict
from planner.models import Simulation
from planner.services import estimate_request

log = logging.getLogger(__name__)

# Progress is written at most this often, so a fast run does not hammer the database.
PROGRESS_EVERY_S = 0.5


class QueueUnavailable(Exception):
    """The broker did not take the task; the row says so and nothing is left queued."""


class SimulationCancelled(Exception):
    pass


def simulation_question(*, data: Any) -> SimulationQuestion:
    return simulation_from_dict(data, estimate_request_of=lambda d: estimate_request(data=d))


def _publish(simulation: Simulation) -> None:
    from planner.tasks import simulation_run_task

    # Celery carries the limits in the message; reading them here keeps them current.
    limit = settings.SIMULATION_SOFT_TIME_LIMIT_S
    result = simulation_run_task.apply_async(
        args=[simulation.pk], retry=False, soft_time_limit=limit, time_limit=limit + 30
    )
    Simulation.objects.filter(pk=simulation.pk).update(task_id=result.id)


def simulation_start(*, data: Any, user=None) -> tuple[Simulation, bool]:
    """Queue a simulation, or return the row that already answers the same question.

    Returns (row, queued now). A question asked again while queued, running or done gets the
    same row back; one that failed, timed out or was cancelled is queued again. The task is
    sent after the row commits; if the broker refuses, the row is marked failed and
    `QueueUnavailable` is raised within the broker's connection timeout."""
    question = simulation_question(data=data)  # RequestError names a bad field
    digest = inputs_hash(data)
    with transaction.atomic():
        simulation, created = Simulation.objects.select_for_update().get_or_create(
            inputs_hash=digest,
            defaults={
                "kind": question.kind,
                "inputs": data,
                "created_by": user,
                "model_version": MODEL_VERSION,
            },
        )
        if not created and (
            simulation.status in ACTIVE_STATUSES or simulation.status == SimulationStatus.SUCCEEDED
        ):
            return simulation, False
        simulation.status = SimulationStatus.QUEUED
        simulation.progress = 0.0
        simulation.result = None
        simulation.error = ""
        simulation.queued_at = timezone.now()
        simulation.started_at = simulation.finished_at = None
        simulation.model_version = MODEL_VERSION
        simulation.save()
    try:
        _publish(simulation)
    except Exception as exc:  # kombu raises OperationalError and friends for a dead broker
        log.warning("simulation %s not queued: %s", simulation.pk, exc)
        Simulation.objects.filter(pk=simulation.pk).update(
            status=SimulationStatus.FAILED,
            error=f"The task queue did not answer: {exc}",
            finished_at=timezone.now(),
        )
        raise QueueUnavailable(str(exc)) from exc
    simulation.refresh_from_db()
    return simulation, True


def simulation_cancel(*, simulation: Simulation) -> bool:
    """Mark a queued or running simulation cancelled and revoke its task. A running one stops
    at its next progress report."""
    changed = Simulation.objects.filter(pk=simulation.pk, status__in=ACTIVE_STATUSES).update(
        status=SimulationStatus.CANCELLED, finished_at=timezone.now()
    )
    if changed and simulation.task_id:
        from config.celery import app

        try:
            app.control.revoke(simulation.task_id)
        except Exception as exc:  # revoking is best effort; the row already says cancelled
            log.warning("could not revoke %s: %s", simulation.task_id, exc)
    simulation.refresh_from_db()
    return bool(changed)


def _claim(simulation_id: int, task_id: str) -> bool:
    """Compare-and-set: only a queued row, or a running one whose worker died, is (re)started."""
    return bool(
        Simulation.objects.filter(pk=simulation_id, status__in=ACTIVE_STATUSES).update(
            status=SimulationStatus.RUNNING,
            started_at=timezone.now(),
            finished_at=None,
            task_id=task_id,
            attempts=F("attempts") + 1,
            progress=0.0,
        )
    )


def _reporter(simulation_id: int):
    last = [0.0]

    def report(fraction: float) -> None:
        now = time.monotonic()
        if now - last[0] < PROGRESS_EVERY_S and fraction < 1:
            return
        last[0] = now
        still_running = Simulation.objects.filter(
            pk=simulation_id, status=SimulationStatus.RUNNING
        ).update(progress=min(max(float(fraction), 0.0), 1.0))
        if not still_running:
            raise SimulationCancelled

    return report


def _finish(simulation_id: int, **fields) -> None:
    Simulation.objects.filter(pk=simulation_id, status=SimulationStatus.RUNNING).update(
        finished_at=timezone.now(), **fields
    )


def simulation_execute(*, simulation_id: int, task_id: str = "") -> str:
    """Run one simulation to its end and write the outcome once. Returns the final status."""
    if not _claim(simulation_id, task_id):
        return (
            Simulation.objects.filter(pk=simulation_id).values_list("status", flat=True).first()
            or "missing"
        )
    simulation = Simulation.objects.get(pk=simulation_id)
    try:
        question = simulation_question(data=simulation.inputs)
        result = question.run(progress=_reporter(simulation_id))
    except SimulationCancelled:
        return SimulationStatus.CANCELLED
    except (RequestError, ValueError) as exc:
        _finish(simulation_id, status=SimulationStatus.FAILED, error=str(exc))
        return SimulationStatus.FAILED
    _finish(
        simulation_id,
        status=SimulationStatus.SUCCEEDED,
        result=result,
        progress=1.0,
        model_version=MODEL_VERSION,
    )
    return SimulationStatus.SUCCEEDED


def simulation_time_out(*, simulation_id: int, limit_s: float) -> None:
    _finish(
        simulation_id,
        status=SimulationStatus.TIMED_OUT,
        error=f"Stopped at the time limit of {limit_s:.0f} s.",
    )
