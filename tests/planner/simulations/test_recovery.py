"""Recovery without a person: a simulation stuck in queued (Redis restarted without
persistence and lost its task) or running (its worker was killed) past its hard time limit plus
a grace is queued again by the periodic task, exactly once, and asking the same question again
re-queues it too. The limits are scaled down here; the code paths are production's."""

import threading
from datetime import timedelta

import pytest
from django.conf import settings as django_settings
from django.utils import timezone

from config.celery import app
from planner.choices import SimulationStatus
from planner.models import Simulation
from planner.simulations import services as simulations
from planner.simulations.services import (
    HARD_LIMIT_MARGIN_S,
    LOST_GRACE_S,
    simulation_execute,
    simulation_requeue_stuck,
    simulation_start,
)
from planner.simulations.tasks import simulation_requeue_stuck_task
from tests.planner.simulations.test_services import QUESTION

pytestmark = pytest.mark.django_db

SOFT_LIMIT_S = 60
STUCK_AFTER_S = SOFT_LIMIT_S + HARD_LIMIT_MARGIN_S + LOST_GRACE_S


@pytest.fixture
def published(monkeypatch, settings) -> list[int]:
    settings.SIMULATION_SOFT_TIME_LIMIT_S = SOFT_LIMIT_S
    sent: list[int] = []
    monkeypatch.setattr(simulations, "_publish", lambda simulation: sent.append(simulation.pk))
    return sent


def _age(simulation: Simulation, *, status: str, seconds: float) -> None:
    when = timezone.now() - timedelta(seconds=seconds)
    Simulation.objects.filter(pk=simulation.pk).update(
        status=status,
        queued_at=when,
        started_at=when if status == SimulationStatus.RUNNING else None,
        task_id="lost-task",
    )


@pytest.mark.parametrize("status", [SimulationStatus.QUEUED, SimulationStatus.RUNNING])
def test_a_row_stuck_past_its_limit_is_queued_again_once(loaded_catalog, published, status):
    simulation, _ = simulation_start(data=QUESTION)
    _age(simulation, status=status, seconds=STUCK_AFTER_S + 5)
    assert simulation_requeue_stuck() == [simulation.pk]
    assert simulation_requeue_stuck() == []  # the next round leaves it be
    row = Simulation.objects.get(pk=simulation.pk)
    assert row.status == SimulationStatus.QUEUED and row.task_id == "" and row.started_at is None
    assert published == [simulation.pk, simulation.pk]
    # The new task runs it; the lost one, delivered late, finds it finished and does nothing.
    assert simulation_execute(simulation_id=simulation.pk, task_id="new") == "succeeded"
    assert simulation_execute(simulation_id=simulation.pk, task_id="lost-task") == "succeeded"
    assert Simulation.objects.get(pk=simulation.pk).attempts == 1


@pytest.mark.parametrize("status", [SimulationStatus.QUEUED, SimulationStatus.RUNNING])
def test_a_row_within_its_limit_is_left_alone(loaded_catalog, published, status):
    simulation, _ = simulation_start(data=QUESTION)
    _age(simulation, status=status, seconds=STUCK_AFTER_S - 5)
    assert simulation_requeue_stuck() == []
    assert Simulation.objects.get(pk=simulation.pk).status == status


def test_finished_rows_are_never_queued_again(loaded_catalog, published):
    simulation, _ = simulation_start(data=QUESTION)
    simulation_execute(simulation_id=simulation.pk, task_id="t")
    Simulation.objects.filter(pk=simulation.pk).update(queued_at=timezone.now() - timedelta(days=1))
    assert simulation_requeue_stuck() == []


def test_asking_again_for_a_row_stuck_in_queued_queues_it_again(loaded_catalog, published):
    simulation, _ = simulation_start(data=QUESTION)
    _age(simulation, status=SimulationStatus.QUEUED, seconds=STUCK_AFTER_S + 5)
    again, queued = simulation_start(data=QUESTION)
    assert again.pk == simulation.pk and queued and again.status == SimulationStatus.QUEUED
    assert published == [simulation.pk, simulation.pk]


@pytest.mark.skipif(
    django_settings.DATABASES["default"]["ENGINE"].endswith("sqlite3"),
    reason="SQLite serialises writers; the race needs PostgreSQL",
)
@pytest.mark.django_db(transaction=True)
def test_two_rounds_at_once_queue_a_stuck_row_once(loaded_catalog, published):
    simulation, _ = simulation_start(data=QUESTION)
    _age(simulation, status=SimulationStatus.RUNNING, seconds=STUCK_AFTER_S + 5)
    results: list[list[int]] = []
    threads = [
        threading.Thread(target=lambda: results.append(simulation_requeue_stuck()))
        for _ in range(4)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(pk for found in results for pk in found) == [simulation.pk]


def test_a_broker_still_down_leaves_the_row_for_the_next_round(
    loaded_catalog, monkeypatch, settings
):
    settings.SIMULATION_SOFT_TIME_LIMIT_S = SOFT_LIMIT_S
    monkeypatch.setattr(simulations, "_publish", lambda simulation: None)
    simulation, _ = simulation_start(data=QUESTION)
    _age(simulation, status=SimulationStatus.QUEUED, seconds=STUCK_AFTER_S + 5)

    def refuse(simulation):
        raise ConnectionError("broker down")

    monkeypatch.setattr(simulations, "_publish", refuse)
    assert simulation_requeue_stuck() == []
    monkeypatch.setattr(simulations, "_publish", lambda simulation: None)
    assert simulation_requeue_stuck() == [simulation.pk]


def test_beat_runs_the_requeue_task_every_minute():
    entry = django_settings.CELERY_BEAT_SCHEDULE["simulations-requeue-stuck"]
    assert entry["task"] == simulation_requeue_stuck_task.name
    assert entry["task"] in app.tasks
    assert entry["schedule"] <= 60


def test_the_visibility_timeout_outlasts_every_task_time_limit():
    hard_limits = [
        django_settings.CELERY_TASK_TIME_LIMIT,
        django_settings.SIMULATION_SOFT_TIME_LIMIT_S + HARD_LIMIT_MARGIN_S,
    ]
    timeout = django_settings.CELERY_VISIBILITY_TIMEOUT_S
    assert max(hard_limits) < timeout < 3600  # a killed worker's run is not held for an hour
