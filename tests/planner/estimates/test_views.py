"""The estimate page: a GET form that works without JavaScript and swaps its results with HTMX."""

import pytest
from django.urls import reverse

from planner.engine import RequestError
from planner.engine.memory import CUDA_VISIBLE_SHARE

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}
URL = "/estimate/"

LLAMA_8B_ON_8_H100 = {
    "task": "train",
    "model": "meta-llama-3-8b",
    "accelerator": "nvidia-h100-sxm5-80gb",
    "count": "8",
    "precision": "bf16",
    "method": "full",
    "seq_len": "2048",
}


def test_estimate_url_is_named_in_the_planner_namespace():
    assert reverse("planner:estimate") == URL


def test_empty_page_shows_the_form_with_defaults_and_no_result(client, loaded_catalog):
    response = client.get(URL)
    body = response.content.decode()
    assert response.status_code == 200
    assert response.context["answer"] is None
    assert not response.context["form"].is_bound
    assert 'id="estimate-form"' in body and 'hx-get="/estimate/"' in body
    assert '<option value="meta-llama-3-8b" selected>' in body
    assert '<option value="nvidia-h100-sxm5-80gb" selected>' in body
    assert 'name="count" value="8"' in body
    assert 'class="membar"' not in body and "Efficiency factors" not in body
    assert 'href="/estimate/"' in body  # the nav link


def test_full_get_shows_the_numbers_the_memory_bar_and_the_eta_table(client, loaded_catalog):
    response = client.get(URL, LLAMA_8B_ON_8_H100)
    body = response.content.decode()
    assert response.status_code == 200
    answer = response.context["answer"]
    # What CUDA exposes of the 80 GiB on the datasheet.
    assert answer["memory"]["capacity_gib"] == round(80 * CUDA_VISIBLE_SHARE, 3)
    assert answer["throughput"]["tokens_per_s"] > 0
    assert "<html" in body

    # The stacked bar: a flex row of segments whose widths are shares of the per-device total.
    assert 'class="membar"' in body and 'class="seg seg-weights" style="width: ' in body
    bar = response.context["bar"]
    shares = [float(part["width"].rstrip("%")) for part in bar["parts"]]
    assert sum(shares) == pytest.approx(100, abs=0.1)
    assert bar["capacity_left"] == "100.00%"  # fits: the track is the capacity
    assert f'style="left: {bar["capacity_left"]}"' in body
    for label in ("Weights", "Gradients", "Optimizer states", "Activations", "KV cache"):
        assert label in body

    # The five eta factors, each with the engine's one-sentence explanation.
    assert 'class="data etas"' in body
    for key in ("eta_mem", "eta_interconnect", "eta_sched", "eta_thermal", "eta_fault"):
        assert answer["explanations"][key] in body
    assert "tokens/s" in body and "MFU (%)" in body and "(days)" in body
    assert "fits" in body and "does not fit" not in body


def test_training_shows_the_global_batch_it_chose_and_why(client, loaded_catalog):
    response = client.get(URL, LLAMA_8B_ON_8_H100)  # no global batch given
    body = response.content.decode()
    batch = response.context["answer"]["batch"]
    assert batch["chosen"] and batch["global_batch"] == 2048  # 4M tokens of 2,048: Llama 2
    assert "Global batch (sequences)" in body and "chosen with the layout" in body
    assert "4M tokens a step" in body
    reason = response.context["answer"]["explanations"]["global_batch"]
    assert reason.startswith("2,048 sequences of 2,048 tokens") and "Touvron et al. 2023" in reason
    assert reason in body

    given = client.get(URL, {**LLAMA_8B_ON_8_H100, "global_batch": "512"})
    assert given.context["answer"]["batch"]["global_batch"] == 512
    assert "as given" in given.content.decode()


def test_the_global_batch_and_its_reason_read_in_chinese(client, loaded_catalog):
    client.cookies["django_language"] = "zh-hans"
    body = client.get(URL, LLAMA_8B_ON_8_H100).content.decode()
    assert "全局批次" in body and "与并行布局一起选定" in body
    assert "每步 2,048 条序列" in body and "请给出 global_batch" in body


def test_model_too_big_for_the_card_is_marked_as_not_fitting_with_a_warning(client, loaded_catalog):
    # Llama 3 70B weights alone are 131 GiB in bf16, far beyond one 24 GiB RTX 4090.
    query = LLAMA_8B_ON_8_H100 | {
        "model": "meta-llama-3-70b",
        "accelerator": "nvidia-rtx-4090",
        "count": "1",
    }
    response = client.get(URL, query)
    body = response.content.decode()
    assert response.context["answer"]["memory"]["fits"] is False
    assert "does not fit" in body and '<li class="warning">' in body
    assert 'class="membar-over"' in body


def test_short_bookmark_takes_the_initial_values_for_missing_fields(client, loaded_catalog):
    query = {"task": "train", "model": "meta-llama-3-70b", "accelerator": "nvidia-h100-sxm5-80gb"}
    query |= {"count": "64", "precision": "bf16", "seq_len": "4096"}
    response = client.get(URL, query)
    assert response.status_code == 200
    assert response.context["answer"] is not None
    assert response.context["form"].cleaned_data["method"] == "full"


def test_htmx_request_gets_only_the_results_partial(client, loaded_catalog):
    response = client.get(URL, LLAMA_8B_ON_8_H100, **HTMX)
    body = response.content.decode()
    assert response.status_code == 200
    assert "<html" not in body and 'id="estimate-form"' not in body
    assert 'class="membar"' in body and 'class="data etas"' in body
    assert "HX-Request" in response["Vary"]


def test_htmx_history_restore_gets_the_full_page(client, loaded_catalog):
    response = client.get(URL, LLAMA_8B_ON_8_H100, HTTP_HX_HISTORY_RESTORE_REQUEST="true", **HTMX)
    assert b"<html" in response.content


def test_zero_devices_shows_the_field_error_and_keeps_what_was_typed(client, loaded_catalog):
    response = client.get(URL, LLAMA_8B_ON_8_H100 | {"count": "0"})
    body = response.content.decode()
    assert response.status_code == 200
    assert response.context["answer"] is None
    assert response.context["form"].errors["count"]
    assert 'name="count" value="0"' in body
    assert '<div class="field-errors" id="errors-count"><p class="error"' in body
    assert "Some fields are not valid" in body


def test_htmx_field_error_is_swapped_beside_the_field_out_of_band(client, loaded_catalog):
    response = client.get(URL, LLAMA_8B_ON_8_H100 | {"count": "0"}, **HTMX)
    body = response.content.decode()
    assert 'id="errors-count" hx-swap-oob="true"><p class="error"' in body
    # Fields without errors are swapped too, so a fixed error disappears.
    assert 'id="errors-seq_len" hx-swap-oob="true"></div>' in body
    assert "Some fields are not valid" in body


def test_precision_the_card_lacks_shows_the_engines_message_beside_precision(
    client, loaded_catalog
):
    query = LLAMA_8B_ON_8_H100 | {"accelerator": "nvidia-a100-sxm4-80gb", "precision": "fp8"}
    response = client.get(URL, query)
    body = response.content.decode()
    errors = response.context["form"].errors["precision"]
    assert response.status_code == 200
    assert len(errors) == 1 and errors[0].endswith("has no fp8 support")
    assert f'id="errors-precision"><p class="error" role="alert">{errors[0]}</p>' in body
    assert response.context["answer"] is None


def test_inference_error_on_batch_lands_beside_the_batch_field(client, loaded_catalog):
    query = LLAMA_8B_ON_8_H100 | {"task": "inference", "batch": "2000000"}
    response = client.get(URL, query)
    assert "batch" in response.context["form"].errors  # engine path "inference.batch"


def test_engine_error_on_a_field_the_form_lacks_shows_at_the_top_of_the_results(
    client, loaded_catalog, monkeypatch
):
    def refuse(*, data, user=None):
        raise RequestError("parallelism", "tp x pp x dp x cp = 6 must equal count 8")

    monkeypatch.setattr("planner.estimates.views.estimate_run", refuse)
    response = client.get(URL, LLAMA_8B_ON_8_H100, **HTMX)
    body = response.content.decode()
    assert response.status_code == 200
    assert "Some fields are not valid" not in body
    assert "parallelism: tp x pp x dp x cp = 6 must equal count 8" in body
    assert 'class="error" role="alert"' in body


def test_devices_not_filling_whole_servers_show_the_engines_message_beside_count(
    client, loaded_catalog
):
    response = client.get(URL, LLAMA_8B_ON_8_H100 | {"count": "12"})
    assert response.context["form"].errors["count"] == [
        "must be a multiple of per_node (8) across several servers"
    ]
    assert response.context["error"] is None


def test_inference_shows_ttft_and_tpot(client, loaded_catalog):
    query = LLAMA_8B_ON_8_H100 | {
        "task": "inference",
        "count": "1",
        "batch": "8",
        "prompt_len": "1024",
        "output_len": "256",
    }
    response = client.get(URL, query)
    body = response.content.decode()
    answer = response.context["answer"]
    assert answer["inference"]["ttft_ms"] > 0 and answer["inference"]["tpot_ms"] > 0
    assert "TTFT (ms)" in body and "TPOT (ms)" in body
    assert "Decode, all devices (tokens/s)" in body
    assert answer["parallelism"]["micro_batch"] == 8  # the batch travelled under "inference"


def test_page_renders_in_simplified_chinese(client, loaded_catalog):
    client.cookies["django_language"] = "zh-hans"
    empty = client.get(URL)
    assert empty.status_code == 200
    assert '<html lang="zh-hans">' in empty.content.decode()
    full = client.get(URL, LLAMA_8B_ON_8_H100)
    assert full.status_code == 200
    assert 'class="membar"' in full.content.decode()


@pytest.mark.parametrize(
    ("language", "label"),
    [("en", "Largest batch the KV cache holds (requests)"), ("zh-hans", "KV 缓存可容纳的最大批")],
)
def test_inference_shows_the_batch_the_kv_cache_holds(client, loaded_catalog, language, label):
    # 8B on one H100: some 63 GiB left for the KV cache at 128 KiB a token (32 layers x 8 KV
    # heads x 128 x 2 x 2 bytes); a request of 128 + 32 tokens holds 10 blocks of 16 tokens,
    # 20 MiB, so over three thousand of them: the count is written with its separator.
    client.cookies["django_language"] = language
    query = LLAMA_8B_ON_8_H100 | {
        "task": "inference",
        "count": "1",
        "prompt_len": "128",
        "output_len": "32",
    }
    response = client.get(URL, query)
    inference = response.context["answer"]["inference"]
    most = inference["max_batch_per_replica"]
    assert 3_000 < most < 3_400
    assert inference["kv_per_sequence_gib"] == pytest.approx(20 / 1024, abs=1e-6)
    body = response.content.decode()
    assert label in body
    assert f'<dd class="kv-bound">{most:,}' in body
    assert f"{inference['kv_budget_gib']:.1f} GiB" in body
    # Training answers have no such bound.
    training = client.get(URL, LLAMA_8B_ON_8_H100).content.decode()
    assert label not in training
