"""Starting, running and cancelling simulations. Tasks call `simulation_execute`; views, the
API and the command call `simulation_start` and `simulation_cancel`."""

from __future__ import annotations

import logging
import time
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q, QuerySet
from django.utils import timezone
from django.utils.translation import gettext_lazy

from accounts.models import Team
from accounts.services import user_team
from planner.choices import ACTIVE_STATUSES, FINISHED_STATUSES, SimulationKind, SimulationStatus
from planner.engine import MODEL_VERSION, RequestError
from planner.engine.contract.simulation import simulation_from_dict, sweep_from_dict
from planner.engine.simulate.question import SimulationQuestion, inputs_hash, sweep_summary
from planner.estimates.services import estimate_request
from planner.models import Simulation

log = logging.getLogger(__name__)

# Progress is written at most this often, so a fast run does not hammer the database.
# A queued or running row this long past its hard time limit counts as lost (see `_lost`).
LOST_GRACE_S = 60
# Celery's hard limit comes this long after the soft one, which lets the run write "timed out".
HARD_LIMIT_MARGIN_S = 30


class QueueUnavailable(Exception):
    """The broker did not take the task; the row says so and nothing is left queued."""

    # What a page tells the person: nothing was started, and they may try again.
    reason = gettext_lazy(
        "The task queue is not answering, so nothing was started. Try again shortly."
    )


class SimulationCancelled(Exception):
    pass


def simulation_question(*, data: Any) -> SimulationQuestion:
    return simulation_from_dict(data, estimate_request_of=lambda d: estimate_request(data=d))


def simulation_run_inline(*, data: Any) -> dict[str, Any]:
    """Run a simulation in the calling process, no row, no queue: the result a worker would
    store (a sweep: each part's result, and the comparison). `RequestError` names a bad field."""
    if isinstance(data, dict) and data.get("kind") == SimulationKind.SWEEP:
        sweep = sweep_from_dict(data, estimate_request_of=lambda d: estimate_request(data=d))
        results = [simulation_question(data=part).run() for part in sweep.parts]
        return {
            "kind": SimulationKind.SWEEP.value,
            "parts": results,
            "candidates": sweep_summary(sweep.labels, results),
        }
    return simulation_question(data=data).run()


def _publish(simulation: Simulation) -> None:
    from planner.simulations.tasks import simulation_run_task

    # Celery carries the limits in the message; reading them here keeps them current.
    limit = settings.SIMULATION_SOFT_TIME_LIMIT_S
    result = simulation_run_task.apply_async(
        args=[simulation.pk],
        retry=False,
        soft_time_limit=limit,
        time_limit=limit + HARD_LIMIT_MARGIN_S,
    )
    Simulation.objects.filter(pk=simulation.pk).update(task_id=result.id)


def simulation_hash(data: Any, team_id: int | None) -> str:
    """A row's identity: the question and the team that asked it (None: no team)."""
    return inputs_hash({"inputs": data, "team": team_id})


def simulation_start(*, data: Any, user=None, team: Team | None = None) -> tuple[Simulation, bool]:
    """Queue a simulation for `team` (by default the user's), or return the team's row that
    already answers the same question.

    Returns (row, queued now). A question asked again while queued, running or done gets the
    same row back; one that failed, timed out or was cancelled is queued again. The task is
    sent after the row commits; if the broker refuses, the row is marked failed and
    `QueueUnavailable` is raised within the broker's connection timeout."""
    team = team or user_team(user)
    if isinstance(data, dict) and data.get("kind") == SimulationKind.SWEEP:
        return _sweep_start(data=data, user=user, team=team)
    question = simulation_question(data=data)  # RequestError names a bad field
    with transaction.atomic():
        simulation, created = _row_for(data, kind=question.kind, user=user, team=team)
        if not created and (
            simulation.status == SimulationStatus.SUCCEEDED
            or (simulation.status in ACTIVE_STATUSES and not _lost(simulation))
        ):
            return simulation, False
        _reset(simulation, status=SimulationStatus.QUEUED)
    try:
        _publish(simulation)
    except Exception as exc:  # kombu raises OperationalError and friends for a dead broker
        log.warning("simulation %s not queued: %s", simulation.pk, exc)
        _not_queued(Simulation.objects.filter(pk=simulation.pk), exc)
        raise QueueUnavailable(str(exc)) from exc
    simulation.refresh_from_db()
    return simulation, True


def _row_for(data: Any, *, kind: str, user, team: Team | None) -> tuple[Simulation, bool]:
    """The team's row that answers `data`, locked until the transaction ends; made (queued,
    empty) when the team has not asked it before. True when it was made now."""
    return Simulation.objects.select_for_update().get_or_create(
        inputs_hash=simulation_hash(data, team.pk if team else None),
        defaults={
            "kind": kind,
            "inputs": data,
            "team": team,
            "created_by": user,
            "model_version": MODEL_VERSION,
        },
    )


def _not_queued(rows: QuerySet[Simulation], exc: Exception) -> None:
    """Rows whose task the broker did not take: failed, saying why, so none waits forever."""
    rows.update(
        status=SimulationStatus.FAILED,
        error=f"The task queue did not answer: {exc}",
        finished_at=timezone.now(),
    )


def _stuck_before() -> datetime:
    """Rows queued or started before this are stuck: past the hard time limit (Celery kills a
    run there) plus a grace, no worker can still be on them."""
    hard_limit_s = settings.SIMULATION_SOFT_TIME_LIMIT_S + HARD_LIMIT_MARGIN_S
    return timezone.now() - timedelta(seconds=hard_limit_s + LOST_GRACE_S)


def _stuck_rows() -> Q:
    before = _stuck_before()
    return Q(status=SimulationStatus.QUEUED, queued_at__lt=before) | Q(
        status=SimulationStatus.RUNNING, started_at__lt=before
    )


def _lost(simulation: Simulation) -> bool:
    """A run still queued or running past its hard time limit plus a grace: its task was lost
    (the broker restarted without persistence, its worker was killed, the database stayed down
    past the task's retries), and asking again queues it afresh."""
    if simulation.kind == SimulationKind.SWEEP:
        return False  # a sweep's gathering task waits for its parts on a budget of its own
    return Simulation.objects.filter(_stuck_rows(), pk=simulation.pk).exists()


def simulation_requeue_stuck() -> list[int]:
    """Queue again every simulation stuck in queued or running (see `_lost`); the periodic task
    calls this. Each row is taken by a compare-and-set on its status and time, so two callers
    at once (two beats, a beat and a person asking again) re-queue it exactly once; a task of
    the old run that is delivered late finds the row claimed or finished and does nothing.
    Returns the ids queued again."""
    requeued = []
    stuck = Simulation.objects.filter(_stuck_rows()).exclude(kind=SimulationKind.SWEEP)
    for row in stuck.only("pk", "status", "queued_at", "started_at"):
        taken = Simulation.objects.filter(
            pk=row.pk, status=row.status, queued_at=row.queued_at, started_at=row.started_at
        ).update(
            status=SimulationStatus.QUEUED,
            queued_at=timezone.now(),
            started_at=None,
            progress=0.0,
            task_id="",
        )
        if not taken:
            continue
        try:
            _publish(Simulation(pk=row.pk))
        except Exception as exc:  # the broker is still down: the next round tries again
            log.warning("simulation %s not re-queued: %s", row.pk, exc)
            stuck_since = row.queued_at if row.status == SimulationStatus.QUEUED else row.started_at
            Simulation.objects.filter(pk=row.pk, status=SimulationStatus.QUEUED, task_id="").update(
                queued_at=stuck_since
            )
            break
        log.info("simulation %s was stuck %s and is queued again", row.pk, row.status)
        requeued.append(row.pk)
    return requeued


def simulation_cancel(*, simulation: Simulation) -> bool:
    """Mark a queued or running simulation cancelled and revoke its task. A running one stops
    at its next progress report. Cancelling a sweep cancels its unfinished parts."""
    if simulation.kind == SimulationKind.SWEEP:
        for part in simulation.parts.filter(status__in=ACTIVE_STATUSES):
            simulation_cancel(simulation=part)
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
    """Compare-and-set: a queued row, or a running one whose worker died while running this
    same task (the broker delivers it again with its id), is (re)started; nothing else."""
    mine = Q(status=SimulationStatus.QUEUED) | Q(status=SimulationStatus.RUNNING, task_id=task_id)
    return bool(
        Simulation.objects.filter(mine, pk=simulation_id).update(
            status=SimulationStatus.RUNNING,
            started_at=timezone.now(),
            finished_at=None,
            task_id=task_id,
            attempts=F("attempts") + 1,
            progress=0.0,
        )
    )


def _reporter(simulation_id: int):
    last, every_s = [0.0], settings.SIMULATION_PROGRESS_EVERY_S

    def report(fraction: float) -> None:
        now = time.monotonic()
        if now - last[0] < every_s and fraction < 1:
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


def _reset(simulation: Simulation, *, status: str) -> None:
    simulation.status = status
    simulation.progress = 0.0
    simulation.result = None
    simulation.error = ""
    simulation.queued_at = timezone.now()
    simulation.started_at = timezone.now() if status == SimulationStatus.RUNNING else None
    simulation.finished_at = None
    simulation.model_version = MODEL_VERSION
    simulation.save()


def _sweep_start(*, data: dict, user, team: Team | None) -> tuple[Simulation, bool]:
    """A sweep is a row of its own plus one simulation per candidate (reused when the same
    question was asked before), run as a Celery chord: the parts fan out as a group and a
    gathering task writes the comparison when all have finished."""
    sweep = sweep_from_dict(data, estimate_request_of=lambda d: estimate_request(data=d))
    with transaction.atomic():
        parent, created = _row_for(data, kind=SimulationKind.SWEEP, user=user, team=team)
        if not created and (
            parent.status in ACTIVE_STATUSES or parent.status == SimulationStatus.SUCCEEDED
        ):
            return parent, False
        _reset(parent, status=SimulationStatus.RUNNING)
        parts = []
        for part_data in sweep.parts:
            part, made = _row_for(part_data, kind=part_data["kind"], user=user, team=team)
            if (
                not made
                and part.status in FINISHED_STATUSES
                and part.status != SimulationStatus.SUCCEEDED
            ):
                _reset(part, status=SimulationStatus.QUEUED)
            parts.append(part)
        parent.parts.set(parts)
    try:
        _publish_sweep(parent, [p for p in parts if p.status == SimulationStatus.QUEUED])
    except Exception as exc:
        log.warning("sweep %s not queued: %s", parent.pk, exc)
        _not_queued(Simulation.objects.filter(pk=parent.pk), exc)
        _not_queued(
            Simulation.objects.filter(
                pk__in=[p.pk for p in parts], status=SimulationStatus.QUEUED, task_id=""
            ),
            exc,
        )
        raise QueueUnavailable(str(exc)) from exc
    parent.refresh_from_db()
    return parent, True


def _publish_sweep(parent: Simulation, queued: list[Simulation]) -> None:
    from celery import chord

    from planner.simulations.tasks import simulation_gather_task, simulation_run_task

    limit = settings.SIMULATION_SOFT_TIME_LIMIT_S
    gather = simulation_gather_task.si(parent.pk)
    if not queued:
        gather.apply_async(retry=False)
        return
    header = [
        simulation_run_task.si(part.pk).set(
            soft_time_limit=limit, time_limit=limit + HARD_LIMIT_MARGIN_S
        )
        for part in queued
    ]
    result = chord(header)(gather)
    Simulation.objects.filter(pk=parent.pk).update(task_id=result.id)


def simulation_gather(*, simulation_id: int) -> str:
    """Write a sweep's comparison once all its parts have finished. Returns "waiting" while
    some still run, else the sweep's final status."""
    parent = Simulation.objects.get(pk=simulation_id)
    if parent.status != SimulationStatus.RUNNING:
        return parent.status
    # By the question alone: a row's own hash covers its team too.
    parts = {inputs_hash(p.inputs): p for p in parent.parts.all()}
    if any(p.status in ACTIVE_STATUSES for p in parts.values()):
        return "waiting"
    questions = [
        {**parent.inputs["simulation"], "estimate": c} for c in parent.inputs["candidates"]
    ]
    labels = parent.inputs.get("labels") or [f"candidate {i + 1}" for i in range(len(questions))]
    ordered = [parts.get(inputs_hash(q)) for q in questions]
    failed = [
        label
        for label, p in zip(labels, ordered, strict=True)
        if p is None or p.status != SimulationStatus.SUCCEEDED
    ]
    if failed:
        _finish(
            simulation_id,
            status=SimulationStatus.FAILED,
            error=f"These parts did not succeed: {', '.join(failed)}.",
        )
        return SimulationStatus.FAILED
    result = {
        "kind": SimulationKind.SWEEP.value,
        "parts": [p.pk for p in ordered],
        "candidates": sweep_summary(labels, [p.result for p in ordered]),
    }
    _finish(simulation_id, status=SimulationStatus.SUCCEEDED, result=result, progress=1.0)
    return SimulationStatus.SUCCEEDED
