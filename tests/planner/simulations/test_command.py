"""`manage.py simulate`: the row printed as JSON, --wait printing the result, and the exit
status for bad input (2), a queue that is down (3) and a run that did not succeed (1).
`_publish` is replaced: either nothing is sent, or the simulation runs right away in-process
as the worker would run it (the worker itself is tested with Celery elsewhere)."""

import io
import json
import sys

import pytest
from django.core.management import call_command

from planner.choices import SimulationStatus
from planner.models import Simulation
from planner.simulations import services as simulations

pytestmark = pytest.mark.django_db

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


@pytest.fixture
def question(tmp_path):
    def write(data) -> str:
        path = tmp_path / "question.json"
        path.write_text(json.dumps(data))
        return str(path)

    return write


@pytest.fixture
def published(monkeypatch) -> list[int]:
    sent: list[int] = []
    monkeypatch.setattr(simulations, "_publish", lambda simulation: sent.append(simulation.pk))
    return sent


@pytest.fixture
def run_at_once(monkeypatch):
    """The broker replaced by running the task's service in-process, as a worker would."""
    monkeypatch.setattr(
        simulations,
        "_publish",
        lambda simulation: simulations.simulation_execute(simulation_id=simulation.pk),
    )


def exit_code(*args) -> int:
    with pytest.raises(SystemExit) as exited:
        call_command("simulate", *args)
    return exited.value.code


def test_simulate_queues_and_prints_the_row(loaded_catalog, published, question, capsys):
    call_command("simulate", question(TRAINING))
    row = json.loads(capsys.readouterr().out)
    assert row["status"] == "queued" and row["kind"] == "training"
    assert row["inputs"] == TRAINING
    assert published == [row["id"]]


def test_simulate_reads_the_question_from_stdin(loaded_catalog, published, monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.StringIO(json.dumps(TRAINING)))
    call_command("simulate", "-")
    assert json.loads(capsys.readouterr().out)["id"] == Simulation.objects.get().pk


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        ({**TRAINING, "kind": "weather"}, "error: kind: "),
        (
            {**TRAINING, "estimate": {**TRAINING["estimate"], "model": "no-such"}},
            "error: estimate.model: ",
        ),
        ({**TRAINING, "trials": 1}, "error: trials: must be at least 10"),
    ],
)
def test_bad_input_exits_2_with_one_line_naming_the_field(
    loaded_catalog, published, question, capsys, data, expected
):
    assert exit_code(question(data)) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(expected)
    assert "\n" not in err
    assert not Simulation.objects.exists()


def test_a_file_that_is_not_json_exits_2(loaded_catalog, published, tmp_path, capsys):
    path = tmp_path / "broken.json"
    path.write_text("{")
    assert exit_code(str(path)) == 2
    assert capsys.readouterr().err.startswith("error: request: not valid JSON")


def test_a_queue_that_is_down_exits_3_with_one_line(loaded_catalog, question, monkeypatch, capsys):
    def refuse(simulation):
        raise OSError("Connection refused")

    monkeypatch.setattr(simulations, "_publish", refuse)
    assert exit_code(question(TRAINING)) == 3
    captured = capsys.readouterr()
    assert captured.out == ""
    err = captured.err.strip()
    assert "task queue did not answer" in err and "Connection refused" in err
    assert "\n" not in err


def test_wait_prints_the_result_of_a_finished_run(loaded_catalog, run_at_once, question, capsys):
    call_command("simulate", question(TRAINING), "--wait", "--timeout", "30")
    result = json.loads(capsys.readouterr().out)
    simulation = Simulation.objects.get()
    assert simulation.status == SimulationStatus.SUCCEEDED
    assert result == simulation.result
    assert result["kind"] == "training" and result["trials"] == 200


def test_wait_exits_1_when_the_run_was_cancelled(loaded_catalog, question, monkeypatch, capsys):
    monkeypatch.setattr(
        simulations,
        "_publish",
        lambda simulation: simulations.simulation_cancel(simulation=simulation),
    )
    assert exit_code(question(TRAINING), "--wait") == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.strip().endswith("cancelled")


def test_wait_exits_1_when_the_run_failed_with_its_error_on_stderr(
    loaded_catalog, question, monkeypatch, capsys
):
    def fail(simulation):
        Simulation.objects.filter(pk=simulation.pk).update(
            status=SimulationStatus.FAILED, error="the workload has no throughput"
        )

    monkeypatch.setattr(simulations, "_publish", fail)
    assert exit_code(question(TRAINING), "--wait") == 1
    assert "failed: the workload has no throughput" in capsys.readouterr().err


def test_wait_gives_up_after_the_timeout_and_leaves_the_run_going(
    loaded_catalog, published, question, capsys
):
    assert exit_code(question(TRAINING), "--wait", "--timeout", "0.1") == 1
    assert "still queued after 0.1 s" in capsys.readouterr().err
    assert Simulation.objects.get().status == SimulationStatus.QUEUED


def test_inline_runs_here_and_prints_the_result_without_a_row_or_the_queue(
    loaded_catalog, published, question, capsys
):
    call_command("simulate", question(TRAINING), "--inline")
    result = json.loads(capsys.readouterr().out)
    assert result["kind"] == "training" and result["trials"] == 200
    assert not Simulation.objects.exists() and published == []


def test_inline_runs_a_sweep_part_by_part_with_its_comparison(loaded_catalog, question, capsys):
    serving = {
        "kind": "sweep",
        "simulation": {"kind": "serving", "rate_per_s": 5, "requests": 500, "ttft_slo_ms": 500},
        "candidates": [
            {**TRAINING["estimate"], "task": "inference", "count": n, "tokens": None}
            for n in (1, 2)
        ],
        "labels": ["one", "two"],
    }
    for candidate in serving["candidates"]:
        del candidate["tokens"]
    call_command("simulate", question(serving), "--inline")
    result = json.loads(capsys.readouterr().out)
    assert [p["requests"] for p in result["parts"]] == [500, 500]
    assert [row["label"] for row in result["candidates"]] == ["one", "two"]
    assert not Simulation.objects.exists()


def test_inline_bad_input_exits_2_naming_the_field(loaded_catalog, question, capsys):
    assert exit_code(question({**TRAINING, "trials": 0}), "--inline") == 2
    assert "trials" in capsys.readouterr().err
