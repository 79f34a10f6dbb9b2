"""The estimate page and API with the software stack asked and each figure's uncertainty band."""

import pytest
import yaml
from django.urls import reverse

from planner.validation.bands import uncertainty
from tests.planner.estimates.test_views import LLAMA_8B_ON_8_H100

pytestmark = pytest.mark.django_db

PAGE = "/estimate/"
API = "/api/v1/estimates/"
HF_FINETUNE = LLAMA_8B_ON_8_H100 | {"task": "finetune"}


def test_the_api_answer_carries_a_band_for_each_figure(client, loaded_catalog):
    question = HF_FINETUNE | {"count": 8, "seq_len": 2048, "framework": "hf"}
    body = client.post(API, question, content_type="application/json").json()
    assert body["uncertainty"] == uncertainty("finetune", "hf")
    band = body["uncertainty"]["throughput"]
    assert band["framework"] == "hf" and band["held_out"] and band["rows"] >= 3
    assert band["sources"] == ["h200-measured"]
    assert 0 < band["p50_pct"] <= band["p90_pct"]


def test_the_band_follows_the_framework_the_question_names(client, loaded_catalog):
    serve = {
        "task": "inference",
        "model": "meta-llama-3-8b",
        "accelerator": "nvidia-rtx-4090",
        "count": 1,
        "precision": "int4",
    }
    llama = client.post(API, serve | {"framework": "llama.cpp"}, content_type="application/json")
    vllm = client.post(API, serve | {"framework": "vllm"}, content_type="application/json")
    assert llama.json()["uncertainty"]["decode"]["framework"] == "llama.cpp"
    assert vllm.json()["uncertainty"]["decode"]["framework"] == "vllm"


def test_the_schema_documents_the_band(client, loaded_catalog):
    schema = yaml.safe_load(client.get(reverse("schema")).content)
    band = schema["components"]["schemas"]["Band"]
    assert "p90_pct" in band["properties"] and band["properties"]["p50_pct"]["description"]
    assert "uncertainty" in schema["components"]["schemas"]["EstimateAnswer"]["properties"]


def test_the_page_shows_the_band_beside_the_figures(client, loaded_catalog):
    body = client.get(PAGE, HF_FINETUNE | {"framework": "hf"}).content.decode()
    band = uncertainty("finetune", "hf")["throughput"]
    assert f"± {band['p50_pct']:.1f} % (p90 ± {band['p90_pct']:.1f} %)" in body
    assert f"from {band['rows']} measured runs of training throughput, hf" in body
    assert "source: h200-measured" in body


def test_the_page_shows_the_band_in_chinese(client, loaded_catalog):
    client.cookies["django_language"] = "zh-hans"
    body = client.get(PAGE, HF_FINETUNE | {"framework": "hf"}).content.decode()
    band = uncertainty("finetune", "hf")["memory"]
    assert f"依据 {band['rows']} 次训练显存，hf实测运行" in body  # noqa: RUF001
    assert "来源：h200-measured" in body  # noqa: RUF001


def test_the_form_offers_the_stack_and_sends_it_to_the_engine(client, loaded_catalog):
    empty = client.get(PAGE).content.decode()
    assert 'name="framework"' in empty and 'name="compile"' in empty
    assert 'name="param_dtype"' in empty and '<option value="llama.cpp">' in empty
    response = client.get(
        PAGE, HF_FINETUNE | {"framework": "fsdp", "compile": "on", "param_dtype": "fp32"}
    )
    stack = [m for m in response.context["answer"]["messages"] if m["code"] == "stack.given"]
    assert stack[0]["params"]["framework"] == "fsdp"
    assert stack[0]["params"]["param_dtype"] == "fp32"


def test_compile_never_predicts_slower_from_the_form(client, loaded_catalog):
    query = HF_FINETUNE | {"framework": "hf"}
    eager = client.get(PAGE, query).context["answer"]["throughput"]["tokens_per_s"]
    compiled = client.get(PAGE, query | {"compile": "on"}).context["answer"]
    assert compiled["throughput"]["tokens_per_s"] >= eager


def test_a_serving_framework_for_training_is_refused_beside_the_field(client, loaded_catalog):
    response = client.get(PAGE, HF_FINETUNE | {"framework": "vllm"})
    assert "framework" in response.context["form"].errors
    assert "vllm does not run finetune" in response.content.decode()
