"""The estimate page with a model by its config.json: pasted into the GET form, or uploaded
through the small POST form beside it; the same answer as the catalog entry, errors beside the
box naming the key."""

import json
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

pytestmark = pytest.mark.django_db

URL = "/estimate/"
FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "hf_config"
MIXTRAL = (FIXTURES / "mixtral-8x7b.json").read_text()
QUESTION = {
    "task": "inference",
    "accelerator": "nvidia-h100-sxm5-80gb",
    "count": "8",
    "precision": "bf16",
    "method": "full",
    "seq_len": "2048",
}


def test_a_pasted_config_answers_as_the_catalog_entry(client, loaded_catalog):
    from_catalog = client.get(URL, {**QUESTION, "model": "mixtral-8x7b"}).context["answer"]
    # The select keeps some other model: the pasted file replaces it.
    pasted = client.get(URL, {**QUESTION, "model": "meta-llama-3-8b", "hf_config": MIXTRAL})
    assert pasted.context["answer"]["memory"] == from_catalog["memory"]
    assert pasted.context["answer"]["inference"] == from_catalog["inference"]


def test_an_uploaded_config_answers_and_stays_in_the_box(client, loaded_catalog):
    upload = SimpleUploadedFile("config.json", MIXTRAL.encode(), "application/json")
    response = client.post(URL, {**QUESTION, "model": "meta-llama-3-8b", "hf_config_file": upload})
    assert response.status_code == 200
    from_catalog = client.get(URL, {**QUESTION, "model": "mixtral-8x7b"}).context["answer"]
    assert response.context["answer"]["memory"] == from_catalog["memory"]
    form = response.context["form"]
    assert json.loads(form["hf_config"].value()) == json.loads(MIXTRAL)
    # The question on the page travels with the next upload.
    assert ("count", "8") in response.context["carried"]


def test_the_upload_form_is_on_the_page_with_its_token(client, loaded_catalog):
    body = client.get(URL).content.decode()
    assert 'enctype="multipart/form-data"' in body and 'name="hf_config_file"' in body
    assert 'name="csrfmiddlewaretoken"' in body and 'name="hf_config"' in body


def test_a_config_missing_a_field_says_which_beside_the_box(client, loaded_catalog):
    config = json.loads(MIXTRAL)
    del config["hidden_size"]
    response = client.get(
        URL, {**QUESTION, "model": "mixtral-8x7b", "hf_config": json.dumps(config)}
    )
    assert response.context["answer"] is None
    assert response.context["form"].errors["hf_config"] == ["hidden_size: is required"]


@pytest.mark.parametrize(
    ("text", "error"),
    [
        (
            "{not json",
            "Not valid JSON: Expecting property name enclosed in double quotes at line 1, column 2.",
        ),
        ("[1, 2]", "A config.json holds one JSON object { ... }."),
    ],
)
def test_a_paste_that_is_not_a_config_is_named(client, loaded_catalog, text, error):
    response = client.get(URL, {**QUESTION, "model": "mixtral-8x7b", "hf_config": text})
    assert response.context["form"].errors["hf_config"] == [error]


def test_the_box_and_its_errors_come_in_chinese(client, loaded_catalog):
    response = client.get(
        URL,
        {**QUESTION, "model": "mixtral-8x7b", "hf_config": "[1]"},
        HTTP_ACCEPT_LANGUAGE="zh-hans",
    )
    body = response.content.decode()
    assert "Or paste its Hugging Face config.json" not in body
    assert (
        response.context["form"].errors["hf_config"][0]
        != "A config.json holds one JSON object { ... }."
    )
