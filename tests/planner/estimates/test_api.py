import re

import pytest
import yaml
from django.urls import reverse

pytestmark = pytest.mark.django_db

URL = "/api/v1/estimates/"
QUESTION = {
    "task": "train",
    "model": "meta-llama-3-8b",
    "accelerator": "nvidia-h100-sxm5-80gb",
    "count": 8,
    "tokens": 1e10,
}


def test_estimate_answers_the_contract(client, loaded_catalog):
    response = client.post(URL, QUESTION, content_type="application/json")
    assert response.status_code == 200
    body = response.json()
    assert body["memory"]["fits"] is True
    assert body["throughput"]["tokens_per_s"] > 0 and 0 < body["throughput"]["mfu"] < 1
    assert body["time"]["days"] > 0
    assert set(body["efficiency"]) == {
        "eta_mem",
        "eta_interconnect",
        "eta_sched",
        "eta_thermal",
        "eta_fault",
    }


def test_same_answer_as_the_command(client, loaded_catalog, capsys, tmp_path):
    import json

    from django.core.management import call_command

    path = tmp_path / "q.json"
    path.write_text(json.dumps(QUESTION))
    call_command("estimate", str(path))
    from_command = json.loads(capsys.readouterr().out)
    from_api = client.post(URL, QUESTION, content_type="application/json").json()
    assert from_command == from_api


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"count": -1}, "count"),
        ({"model": "gpt-9"}, "model"),
        ({"accelerator": "nvidia-a100-sxm4-80gb", "precision": "fp8"}, "precision"),
        ({"parallelism": {"tp": 3, "dp": 3}}, "parallelism"),
        ({"inference": {"batch": "many"}}, "inference.batch"),
    ],
)
def test_bad_input_is_a_400_naming_the_field(client, loaded_catalog, change, field):
    response = client.post(URL, {**QUESTION, **change}, content_type="application/json")
    assert response.status_code == 400
    assert field in response.json()


@pytest.mark.parametrize("body", ["[]", '"text"', "null", "{}"])
def test_a_body_that_is_not_a_question_is_a_400(client, db, body):
    response = client.post(URL, body, content_type="application/json")
    assert response.status_code == 400


def test_malformed_json_is_a_400(client, db):
    response = client.post(URL, "{bad", content_type="application/json")
    assert response.status_code == 400


def test_schema_documents_the_estimate_endpoint_with_examples(client, db):
    schema = yaml.safe_load(client.get(reverse("schema")).content)
    operation = schema["paths"]["/api/v1/estimates/"]["post"]
    assert {"200", "400"} <= set(operation["responses"])
    examples = operation["requestBody"]["content"]["application/json"]["examples"]
    assert len(examples) >= 3


def test_a_bad_field_is_explained_in_the_language_asked_for(client, loaded_catalog):
    question = {
        "task": "inference",
        "model": "meta-llama-3-8b",
        "accelerator": "nvidia-h100-sxm5-80gb",
        "count": 1,
        "inference": {"batch": 0},
    }
    english = client.post(
        "/api/v1/estimates/", question, content_type="application/json", HTTP_ACCEPT_LANGUAGE="en"
    )
    chinese = client.post(
        "/api/v1/estimates/",
        question,
        content_type="application/json",
        HTTP_ACCEPT_LANGUAGE="zh-hans",
    )
    assert english.json() == {"inference.batch": ["must be at least 1, not 0"]}
    assert chinese.json() == {"inference.batch": ["必须不小于 1，而不是 0"]}  # noqa: RUF001


def test_a_chinese_reader_gets_the_engines_sentences_in_chinese(client, loaded_catalog):
    question = {
        "task": "finetune",
        "model": "meta-llama-2-7b",
        "accelerator": "nvidia-rtx-3090",
        "count": 1,
    }
    chinese = client.post(
        "/api/v1/estimates/",
        question,
        content_type="application/json",
        HTTP_ACCEPT_LANGUAGE="zh-hans",
    ).json()
    english = client.post(
        "/api/v1/estimates/", question, content_type="application/json", HTTP_ACCEPT_LANGUAGE="en"
    ).json()
    cjk = re.compile(r"[\u4e00-\u9fff]")
    sentences = [*chinese["warnings"], *chinese["explanations"].values(), chinese["bottleneck"]]
    assert chinese["warnings"] and all(cjk.search(s) for s in sentences)
    assert english["warnings"][0].startswith("Needs ") and not cjk.search(english["warnings"][0])
    # Programs read the same sentences as codes with their figures, whatever the language.
    assert chinese["messages"] == english["messages"]
    warnings = [m for m in chinese["messages"] if m["field"] == "warnings"]
    assert warnings[0]["code"].startswith("fit.does_not_fit")
    assert {"warnings", "bottleneck", "explanations.eta_mem"} <= {
        m["field"] for m in chinese["messages"]
    }
