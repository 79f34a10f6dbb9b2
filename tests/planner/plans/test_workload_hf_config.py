"""A workload whose model is given by its Hugging Face config.json (Mixtral's, from
tests/fixtures/hf_config/, whose README cites the model card)."""

import json
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from planner.models import Workload

pytestmark = pytest.mark.django_db

CONFIG = (Path(__file__).resolve().parents[2] / "fixtures/hf_config/mixtral-8x7b.json").read_text()


def test_a_workload_keeps_an_uploaded_config_and_shows_it_when_edited(loaded_catalog, cast):
    client = cast.browser("planner")
    response = client.post(
        reverse("planner:workload_create", args=["finetune"]),
        {
            "name": "Mixtral LoRA",
            "model": "meta-llama-3-8b",
            "hf_config_file": SimpleUploadedFile("config.json", CONFIG.encode()),
            "method": "lora",
        },
    )
    assert response.status_code == 302
    workload = Workload.objects.get(name="Mixtral LoRA")
    assert workload.spec["workload"]["model"] == {"hf_config": json.loads(CONFIG)}
    form = client.get(reverse("planner:workload_edit", args=[workload.pk])).context["form"]
    assert json.loads(form["hf_config"].value()) == json.loads(CONFIG)
    assert (
        'enctype="multipart/form-data"'
        in client.get(reverse("planner:workload_edit", args=[workload.pk])).content.decode()
    )


def test_a_pasted_config_saves_as_the_question(loaded_catalog, cast):
    response = cast.browser("planner").post(
        reverse("planner:workload_create", args=["serve"]),
        {
            "name": "Mixtral serving",
            "model": "meta-llama-3-8b",
            "hf_config": CONFIG,
            "precision": "bf16",
            "target_rps": "5",
            "prompt_len": "512",
            "output_len": "128",
        },
    )
    assert response.status_code == 302
    spec = Workload.objects.get(name="Mixtral serving").spec
    assert spec["workload"]["model"]["hf_config"]["num_local_experts"] == 8


def test_a_workload_config_missing_a_field_is_named_beside_the_box(loaded_catalog, cast):
    response = cast.browser("planner").post(
        reverse("planner:workload_create", args=["finetune"]),
        {
            "name": "Broken",
            "model": "meta-llama-3-8b",
            "hf_config": '{"num_hidden_layers": 2}',
            "method": "lora",
        },
    )
    assert response.status_code == 200
    assert response.context["form"].errors["hf_config"] == ["hidden_size: is required"]
