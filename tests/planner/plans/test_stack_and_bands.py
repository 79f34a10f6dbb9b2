"""The workload forms ask for the software stack; plan pages show each figure's band."""

import pytest
from django.urls import reverse

from planner.models import Workload
from planner.plans.services import plan_create, workload_create
from planner.validation.bands import uncertainty

pytestmark = pytest.mark.django_db

TRAIN = {
    "name": "Fine-tune on one or two servers",
    "workload": {
        "task": "finetune",
        "model": "meta-llama-3-8b",
        "tokens": 1e8,
        "framework": "hf",
    },
    "accelerators": ["nvidia-h100-sxm5-80gb"],
    "servers": ["nvidia-dgx-h100"],
    "count": {"min": 8, "max": 16},
}


def test_train_workload_keeps_the_stack_it_was_given(loaded_catalog, cast):
    response = cast.browser("planner").post(
        reverse("planner:workload_create", args=["train"]),
        {
            "name": "FSDP pre-training",
            "model": "meta-llama-3-8b",
            "seq_len": "4096",
            "precision": "bf16",
            "framework": "fsdp",
            "compile": "on",
            "param_dtype": "fp32",
        },
    )
    assert response.status_code == 302
    question = Workload.objects.get(name="FSDP pre-training").spec["workload"]
    assert (question["framework"], question["compile"], question["param_dtype"]) == (
        "fsdp",
        True,
        "fp32",
    )


def test_a_blank_stack_leaves_the_engine_its_default(loaded_catalog, cast):
    cast.browser("planner").post(
        reverse("planner:workload_create", args=["finetune"]),
        {"name": "LoRA", "model": "meta-llama-3-8b", "method": "lora", "framework": ""},
    )
    question = Workload.objects.get(name="LoRA").spec["workload"]
    assert not {"framework", "compile", "param_dtype"} & set(question)


def test_serve_workload_offers_only_serving_frameworks(loaded_catalog, cast):
    client = cast.browser("planner")
    page = client.get(reverse("planner:workload_create", args=["serve"])).content.decode()
    assert '<option value="vllm">' in page and '<option value="megatron">' not in page
    assert 'name="param_dtype"' not in page
    response = client.post(
        reverse("planner:workload_create", args=["serve"]),
        {
            "name": "Chat",
            "model": "meta-llama-3-8b",
            "precision": "bf16",
            "target_rps": "2",
            "prompt_len": "512",
            "output_len": "128",
            "framework": "megatron",
        },
    )
    assert response.status_code == 200
    assert "framework" in response.context["form"].errors


def test_the_workload_form_shows_its_saved_stack_again(loaded_catalog, cast):
    workload = workload_create(
        name="Saved",
        spec={"workload": {"task": "finetune", "model": "meta-llama-3-8b", "framework": "hf"}},
        user=cast.planner,
        team=cast.team,
    )
    page = cast.browser("planner").get(reverse("planner:workload_edit", args=[workload.pk]))
    assert '<option value="hf" selected>' in page.content.decode()


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_plan_and_build_pages_show_the_band_of_the_builds_stack(cast, reference_prices, language):
    plan = plan_create(data=TRAIN, user=cast.planner, team=cast.team)
    band = uncertainty("finetune", "hf")["throughput"]
    client = cast.browser("viewer")
    client.cookies["django_language"] = language
    ranking = client.get(plan.get_absolute_url()).content.decode()
    assert f'class="band muted" title="± {band["p50_pct"]:.1f} %' in ranking
    build = client.get(reverse("planner:plan_candidate", args=[plan.pk, 0])).content.decode()
    chinese = "次训练吞吐量，hf实测运行"  # noqa: RUF001
    runs = chinese if language == "zh-hans" else "measured runs of training throughput, hf"
    assert runs in build


def test_the_comparison_shows_each_builds_band(cast, reference_prices):
    plan = plan_create(data=TRAIN, user=cast.planner, team=cast.team)
    url = reverse("planner:plan_compare", args=[plan.pk]) + "?c=0&c=1"
    body = cast.browser("viewer").get(url).content.decode()
    band = uncertainty("finetune", "hf")["throughput"]
    assert "Measured error of time and throughput (median / 90th percentile)" in body
    assert f"± {band['p50_pct']:.1f} % / ± {band['p90_pct']:.1f} %" in body
