"""The simulation services without a worker: questions, idempotency, cancellation."""

import pytest

from planner.choices import SimulationStatus
from planner.engine import RequestError
from planner.models import Simulation
from planner.simulations.services import simulation_cancel, simulation_execute, simulation_start

pytestmark = pytest.mark.django_db

QUESTION = {
    "kind": "training",
    "estimate": {
        "task": "train",
        "model": "meta-llama-3-8b",
        "accelerator": "nvidia-h100-sxm5-80gb",
        "count": 8,
        "tokens": 1e10,
    },
    "trials": 500,
}


@pytest.fixture
def published(monkeypatch):
    sent = []
    monkeypatch.setattr(
        "planner.simulations.services._publish", lambda simulation: sent.append(simulation.pk)
    )
    return sent


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"kind": "dream"}, "kind"),
        (
            {
                "estimate": {
                    "task": "train",
                    "model": "nope",
                    "accelerator": "nvidia-h100-sxm5-80gb",
                    "count": 8,
                }
            },
            "estimate.model",
        ),
        ({"trials": 5}, "trials"),
        ({"rate_per_s": 5}, "rate_per_s"),
        ({"kind": "serving", "trials": None, "rate_per_s": 10}, "estimate.task"),
    ],
)
def test_bad_questions_name_the_field_and_save_nothing(loaded_catalog, published, change, field):
    data = {k: v for k, v in {**QUESTION, **change}.items() if v is not None}
    with pytest.raises(RequestError) as excinfo:
        simulation_start(data=data)
    assert excinfo.value.field == field
    assert not Simulation.objects.exists() and not published


def test_a_sweep_names_the_bad_candidate(loaded_catalog, published):
    sweep = {
        "kind": "sweep",
        "simulation": {"kind": "training", "trials": 500},
        "candidates": [QUESTION["estimate"], {**QUESTION["estimate"], "count": -1}],
    }
    with pytest.raises(RequestError) as excinfo:
        simulation_start(data=sweep)
    assert excinfo.value.field == "candidates[1].count"


def test_running_it_here_gives_the_engine_result_once(loaded_catalog, published):
    simulation, queued = simulation_start(data=QUESTION)
    assert queued and published == [simulation.pk]
    assert (
        simulation_execute(simulation_id=simulation.pk, task_id="t1") == SimulationStatus.SUCCEEDED
    )
    done = Simulation.objects.get()
    assert done.result["trials"] == 500 and done.progress == 1.0 and done.attempts == 1
    # A duplicate delivery with another task id finds the row finished and changes nothing.
    assert (
        simulation_execute(simulation_id=simulation.pk, task_id="t2") == SimulationStatus.SUCCEEDED
    )
    assert Simulation.objects.get().attempts == 1


def test_a_failed_run_is_queued_again_when_asked_again(loaded_catalog, published):
    simulation, _ = simulation_start(data=QUESTION)
    Simulation.objects.filter(pk=simulation.pk).update(status=SimulationStatus.FAILED, error="boom")
    again, queued = simulation_start(data=QUESTION)
    assert (
        again.pk == simulation.pk
        and queued
        and again.status == SimulationStatus.QUEUED
        and again.error == ""
    )


def test_a_run_left_running_past_its_hard_limit_is_queued_again_when_asked_again(
    loaded_catalog, published, settings
):
    # Its task was lost (the database stayed down past the task's retries): nothing will ever
    # finish the row, so asking again must not hand back a run that never ends.
    from datetime import timedelta

    from django.utils import timezone

    from planner.simulations.services import LOST_GRACE_S

    settings.SIMULATION_SOFT_TIME_LIMIT_S = 60
    simulation, _ = simulation_start(data=QUESTION)
    hard_limit_s = 60 + 30
    started = timezone.now() - timedelta(seconds=hard_limit_s + LOST_GRACE_S - 5)
    Simulation.objects.filter(pk=simulation.pk).update(
        status=SimulationStatus.RUNNING, started_at=started, task_id="lost"
    )
    still, queued = simulation_start(data=QUESTION)  # within its limit: still someone's run
    assert not queued and still.status == SimulationStatus.RUNNING
    Simulation.objects.filter(pk=simulation.pk).update(started_at=started - timedelta(seconds=10))
    again, queued = simulation_start(data=QUESTION)
    assert again.pk == simulation.pk and queued and again.status == SimulationStatus.QUEUED
    assert published == [simulation.pk, simulation.pk]
    assert simulation_execute(simulation_id=simulation.pk, task_id="new") == "succeeded"


def test_cancelling_a_queued_simulation_means_it_never_runs(loaded_catalog, published):
    simulation, _ = simulation_start(data=QUESTION)
    assert simulation_cancel(simulation=simulation)
    assert (
        simulation_execute(simulation_id=simulation.pk, task_id="t") == SimulationStatus.CANCELLED
    )
    assert Simulation.objects.get().result is None
    assert not simulation_cancel(simulation=Simulation.objects.get())  # already finished
