"""An array of estimate questions: answered in one process (the command) or one request (the
API), in order, each element its answer or its own error naming the field."""

import json

import pytest
from django.core.management import call_command

from planner.engine.contract.batch import MAX_BATCH_QUESTIONS
from planner.engine.memory import CUDA_VISIBLE_SHARE
from planner.estimates.services import estimate_batch_run, estimate_run

pytestmark = pytest.mark.django_db

URL = "/api/v1/estimates/"
CARDS = ("nvidia-h100-sxm5-80gb", "nvidia-a100-sxm4-80gb", "nvidia-l40s")


def questions(n: int) -> list:
    """`n` questions over cards, sizes and tasks; every 25th has a bad count, every 25th
    (offset 12) a config.json without hidden_size, every 50th is not an object at all."""
    batch: list = []
    for i in range(n):
        question = {
            "task": ("train", "inference")[i % 2],
            "model": "meta-llama-3-8b",
            "accelerator": CARDS[i % 3],
            "count": 8 * (1 + i % 4),
            "tokens": 1e9 * (1 + i),
        }
        if i % 25 == 3:
            question["count"] = 0
        if i % 25 == 12:
            question["model"] = {"hf_config": {"num_hidden_layers": 32}}
        batch.append(question if i % 50 != 40 else "not a question")
    return batch


EXPECTED_ERRORS = {
    3: ("count", "must be at least 1, not 0"),
    12: ("model.hf_config.hidden_size", "is required"),
    40: ("request", "must be an object"),
}


def check(answers: list, batch: list) -> None:
    """Each element is its own question's answer or error, in the order asked."""
    assert len(answers) == len(batch)
    for i, (question, answer) in enumerate(zip(batch, answers, strict=True)):
        bad = EXPECTED_ERRORS.get(i % 25 if i % 50 != 40 else 40)
        if bad:
            assert answer == {"error": {"field": bad[0], "message": bad[1]}}, i
        else:
            assert "error" not in answer, (i, answer)
            assert {"nvidia-h100-sxm5-80gb": 80, "nvidia-a100-sxm4-80gb": 80, "nvidia-l40s": 48}[
                question["accelerator"]
            ] * CUDA_VISIBLE_SHARE == pytest.approx(answer["memory"]["capacity_gib"], abs=1e-3)
            assert (
                answer["parallelism"]["tp"]
                * answer["parallelism"]["pp"]
                * answer["parallelism"]["dp"]
                * answer["parallelism"]["cp"]
                == question["count"]
            )


def test_three_hundred_questions_answer_in_one_process_in_order(loaded_catalog, tmp_path, capsys):
    batch = questions(300)
    path = tmp_path / "batch.json"
    path.write_text(json.dumps(batch))
    call_command("estimate", str(path))
    answers = json.loads(capsys.readouterr().out)
    check(answers, batch)
    # Element by element, the same answers as one question at a time.
    for i in (0, 1, 2, 299):
        assert answers[i] == estimate_run(data=batch[i])


def test_a_batch_prints_one_table_or_error_per_question(loaded_catalog, tmp_path, capsys):
    path = tmp_path / "batch.json"
    path.write_text(json.dumps(questions(4)))
    call_command("estimate", str(path), format="table")
    out = capsys.readouterr().out
    assert out.count("memory per device") == 3
    assert "[3]\nerror: count: must be at least 1, not 0" in out


def test_an_empty_array_is_refused_whole(loaded_catalog, tmp_path, capsys):
    path = tmp_path / "batch.json"
    path.write_text("[]")
    with pytest.raises(SystemExit) as excinfo:
        call_command("estimate", str(path))
    assert excinfo.value.code == 2
    assert "request: must hold at least one question" in capsys.readouterr().err


def test_the_api_answers_an_array_in_order(client, loaded_catalog):
    batch = questions(300)
    response = client.post(URL, batch, content_type="application/json")
    assert response.status_code == 200
    check(response.json(), batch)


def test_the_api_refuses_an_array_past_its_bound_naming_the_bound(client, loaded_catalog):
    batch = questions(1) * (MAX_BATCH_QUESTIONS + 1)
    response = client.post(URL, batch, content_type="application/json")
    assert response.status_code == 400
    assert response.json() == {
        "request": [
            f"holds {MAX_BATCH_QUESTIONS + 1} questions; one request takes at most "
            f"{MAX_BATCH_QUESTIONS}: split the array"
        ]
    }


def test_an_array_at_the_bound_is_answered(loaded_catalog):
    batch = [
        {"task": "inference", "model": "meta-llama-3-8b", "accelerator": "nvidia-l4", "count": 1}
    ]
    answers = estimate_batch_run(data=batch * MAX_BATCH_QUESTIONS, limit=MAX_BATCH_QUESTIONS)
    assert len(answers) == MAX_BATCH_QUESTIONS and answers[0] == answers[-1]


def test_errors_in_an_array_come_in_the_readers_language(client, loaded_catalog):
    bad = {"task": "train", "model": "meta-llama-3-8b", "accelerator": "nvidia-l4", "count": 0}
    response = client.post(
        URL, [bad], content_type="application/json", headers={"accept-language": "zh-hans"}
    )
    error = response.json()[0]["error"]
    assert error["field"] == "count" and error["message"] != "must be at least 1, not 0"
