"""The simulations API: who may read, start and cancel; the same question asked twice; bad input
named by field; a broker that is down. Nothing reaches a real broker: `_publish` is replaced
(the worker itself is tested with Celery elsewhere)."""

import copy

import pytest

from accounts.roles import Role
from planner.choices import SimulationStatus
from planner.models import Simulation
from planner.simulations import services as simulations

pytestmark = pytest.mark.django_db

SIMULATIONS = "/api/v1/simulations/"
TRAINING = {
    "kind": "training",
    "estimate": {
        "task": "train",
        "model": "meta-llama-3-8b",
        "accelerator": "nvidia-h100-sxm5-80gb",
        "count": 64,
        "tokens": 1e11,
    },
    "trials": 200,
}
SERVING = {
    "kind": "serving",
    "estimate": {
        "task": "inference",
        "model": "meta-llama-3-8b",
        "accelerator": "nvidia-h100-sxm5-80gb",
        "count": 1,
    },
    "rate_per_s": 5,
    "requests": 200,
    "ttft_slo_ms": 500,
}
ROW_FIELDS = {
    "id",
    "kind",
    "status",
    "progress",
    "inputs",
    "result",
    "error",
    "attempts",
    "model_version",
    "created_at",
    "queued_at",
    "started_at",
    "finished_at",
}


def cancel_url(simulation_id: int) -> str:
    return f"{SIMULATIONS}{simulation_id}/cancel/"


def detail_url(simulation_id: int) -> str:
    return f"{SIMULATIONS}{simulation_id}/"


@pytest.fixture
def published(monkeypatch) -> list[int]:
    """Ids of the simulations handed to the broker; none really is."""
    sent: list[int] = []
    monkeypatch.setattr(simulations, "_publish", lambda simulation: sent.append(simulation.pk))
    return sent


@pytest.fixture
def queued(loaded_catalog, published, cast) -> Simulation:
    simulation, _ = simulations.simulation_start(data=TRAINING, user=cast.planner)
    return simulation


# --- who may do what -------------------------------------------------------------------------


def test_anonymous_callers_get_401_on_every_method(cast, queued):
    client = cast.api("anonymous")
    answers = [
        client.get(SIMULATIONS),
        client.post(SIMULATIONS, SERVING, format="json"),
        client.get(detail_url(queued.pk)),
        client.post(cancel_url(queued.pk)),
    ]
    assert [a.status_code for a in answers] == [401] * 4
    assert answers[0].has_header("WWW-Authenticate")


def test_viewer_reads_the_list_and_a_row_but_may_not_start_or_cancel(queued, cast):
    client = cast.api("viewer")
    assert client.get(SIMULATIONS).status_code == 200
    assert client.get(detail_url(queued.pk)).status_code == 200
    assert client.post(SIMULATIONS, SERVING, format="json").status_code == 403
    assert client.post(cancel_url(queued.pk)).status_code == 403
    queued.refresh_from_db()
    assert queued.status == SimulationStatus.QUEUED


@pytest.mark.parametrize(
    ("role", "expected"),
    [(Role.VIEWER, 403), (Role.FACILITY, 403), (Role.PLANNER, 202), (Role.ADMIN, 202)],
)
def test_only_planners_and_admins_start_simulations(
    loaded_catalog, published, cast, role, expected
):
    answer = cast.api(role).post(SIMULATIONS, SERVING, format="json")
    assert answer.status_code == expected
    assert len(published) == (1 if expected == 202 else 0)


# --- starting --------------------------------------------------------------------------------


def test_planner_queues_a_simulation_with_202_and_a_location_to_poll(
    loaded_catalog, published, cast
):
    answer = cast.api("planner").post(SIMULATIONS, TRAINING, format="json")
    assert answer.status_code == 202
    row = answer.json()
    assert answer["Location"] == f"/api/v1/simulations/{row['id']}/"
    assert set(row) == ROW_FIELDS
    assert row["kind"] == "training"
    assert row["status"] == "queued"
    assert row["inputs"] == TRAINING
    assert row["result"] is None
    assert published == [row["id"]]
    assert Simulation.objects.get(pk=row["id"]).created_by == cast.planner


def test_the_same_question_again_returns_the_same_row_with_200(loaded_catalog, published, cast):
    client = cast.api("planner")
    first = client.post(SIMULATIONS, SERVING, format="json")
    # The same question with its keys in another order hashes the same.
    again = client.post(SIMULATIONS, dict(reversed(list(SERVING.items()))), format="json")
    assert (first.status_code, again.status_code) == (202, 200)
    assert again.json()["id"] == first.json()["id"]
    assert again["Location"] == first["Location"]
    assert len(published) == 1  # asked twice, queued once


def test_a_question_that_failed_is_queued_again_with_202(loaded_catalog, published, cast):
    client = cast.api("planner")
    first = client.post(SIMULATIONS, SERVING, format="json").json()
    Simulation.objects.filter(pk=first["id"]).update(status=SimulationStatus.FAILED, error="boom")
    again = client.post(SIMULATIONS, SERVING, format="json")
    assert again.status_code == 202
    assert again.json()["id"] == first["id"]
    assert again.json()["status"] == "queued"
    assert again.json()["error"] == ""
    assert len(published) == 2


@pytest.mark.parametrize(
    ("question", "field"),
    [
        ({key: value for key, value in SERVING.items() if key != "kind"}, "kind"),
        ({**SERVING, "estimate": {**SERVING["estimate"], "model": "no-such"}}, "estimate.model"),
        ({key: value for key, value in SERVING.items() if key != "rate_per_s"}, "rate_per_s"),
        ({**SERVING, "prompt": {"kind": "uniform", "lo": 10}}, "prompt.hi"),
        ({**TRAINING, "trials": 5}, "trials"),
        ({**TRAINING, "estimate": SERVING["estimate"]}, "estimate.task"),
        ([1, 2, 3], "request"),
    ],
)
def test_bad_input_is_400_naming_the_field(loaded_catalog, published, cast, question, field):
    answer = cast.api("planner").post(SIMULATIONS, question, format="json")
    assert answer.status_code == 400
    body = answer.json()
    assert list(body) == [field]
    assert isinstance(body[field], list)
    assert body[field][0]
    assert not Simulation.objects.exists()
    assert published == []


def test_a_broker_that_is_down_is_503_and_the_row_says_failed(loaded_catalog, cast, monkeypatch):
    def refuse(simulation):
        raise OSError("Connection refused")

    monkeypatch.setattr(simulations, "_publish", refuse)
    answer = cast.api("planner").post(SIMULATIONS, TRAINING, format="json")
    assert answer.status_code == 503
    assert answer.json()["detail"]
    assert answer["Retry-After"].isdigit()
    row = Simulation.objects.get()
    assert row.status == SimulationStatus.FAILED
    assert "Connection refused" in row.error


# --- reading ---------------------------------------------------------------------------------


def test_a_row_reads_back_with_all_its_fields(queued, cast):
    answer = cast.api("viewer").get(detail_url(queued.pk))
    assert answer.status_code == 200
    assert set(answer.json()) == ROW_FIELDS
    assert answer.json()["id"] == queued.pk


def test_an_unknown_simulation_is_404(queued, cast):
    client = cast.api("planner")
    assert client.get(detail_url(queued.pk + 1000)).status_code == 404
    assert client.post(cancel_url(queued.pk + 1000)).status_code == 404


def test_the_list_is_paginated_and_filters_by_kind_and_status(loaded_catalog, published, cast):
    planner = cast.planner
    training, _ = simulations.simulation_start(data=TRAINING, user=planner)
    serving, _ = simulations.simulation_start(data=SERVING, user=planner)
    other = copy.deepcopy(SERVING) | {"rate_per_s": 7}
    done, _ = simulations.simulation_start(data=other, user=planner)
    Simulation.objects.filter(pk=done.pk).update(status=SimulationStatus.CANCELLED)
    client = cast.api("viewer")

    everything = client.get(SIMULATIONS).json()
    assert everything["count"] == 3
    assert [row["id"] for row in everything["results"]] == [done.pk, serving.pk, training.pk]
    assert "result" not in everything["results"][0]  # GET the row for its result

    def ids(query: str) -> set[int]:
        return {row["id"] for row in client.get(f"{SIMULATIONS}?{query}").json()["results"]}

    assert ids("kind=training") == {training.pk}
    assert ids("kind=serving") == {serving.pk, done.pk}
    assert ids("kind=serving&status=queued") == {serving.pk}
    assert client.get(f"{SIMULATIONS}?status=sleeping").status_code == 400


# --- cancelling ------------------------------------------------------------------------------


def test_planner_cancels_a_queued_simulation_with_202(queued, cast):
    answer = cast.api("planner").post(cancel_url(queued.pk))
    assert answer.status_code == 202
    assert answer.json()["status"] == "cancelled"
    assert answer.json()["finished_at"]
    queued.refresh_from_db()
    assert queued.status == SimulationStatus.CANCELLED


def test_a_run_is_cancelled_not_deleted_so_delete_is_not_allowed(queued, cast):
    assert cast.api("admin").delete(detail_url(queued.pk)).status_code == 405
    queued.refresh_from_db()
    assert queued.status == SimulationStatus.QUEUED


def test_cancelling_a_finished_simulation_is_409(queued, cast):
    client = cast.api("admin")
    assert client.post(cancel_url(queued.pk)).status_code == 202
    again = client.post(cancel_url(queued.pk))
    assert again.status_code == 409
    assert again.json()["status"] == "cancelled"
    assert again.json()["detail"]
