"""The estimate question as the contract declares it: defaults filled, every bad field named.
No database: slugs resolve from a small dict."""

import pytest

from planner.engine.contract import RequestError, estimate_request_from_dict
from tests.engine.conftest import H100, LLAMA3_8B, NDR

CATALOG = {"meta-llama-3-8b": LLAMA3_8B, "nvidia-h100-sxm5-80gb": H100, "ib-ndr-400": NDR}


def resolve(field):
    def inner(slug):
        if slug not in CATALOG:
            raise RequestError(field, f"unknown {field} {slug!r}")
        return CATALOG[slug]

    return inner


def parse(**data):
    base = {
        "task": "train",
        "model": "meta-llama-3-8b",
        "accelerator": "nvidia-h100-sxm5-80gb",
        "count": 8,
    }
    return estimate_request_from_dict(
        {**base, **data},
        resolve_model=resolve("model"),
        resolve_accelerator=resolve("accelerator"),
        resolve_fabric=resolve("fabric"),
    )


def error_of(**data) -> RequestError:
    with pytest.raises(RequestError) as excinfo:
        parse(**data)
    return excinfo.value


def test_documented_defaults_are_filled():
    req = parse()
    assert (req.precision, req.seq_len, req.global_batch, req.method) == (
        "bf16",
        2048,
        None,  # chosen with the layout, by the model's size
        "full",
    )
    assert req.tokens == pytest.approx(20 * LLAMA3_8B.params)  # Chinchilla default
    assert req.parallelism is None and req.zero_stage is None  # searched


@pytest.mark.parametrize(
    ("data", "field", "words"),
    [
        ({"count": -1}, "count", "at least 1"),
        ({"count": 2.5}, "count", "whole number"),
        ({"count": "eight"}, "count", "number"),
        ({"task": "dream"}, "task", "one of"),
        ({"model": "gpt-9"}, "model", "unknown"),
        ({"accelerator": None}, "accelerator", "required"),
        ({"precision": "fp4"}, "precision", "one of"),
        ({"precision": "int8"}, "precision", "inference"),
        ({"parallelism": {"tp": 3, "dp": 2}}, "parallelism", "must equal count"),
        (
            {
                "parallelism": {"tp": 8, "pp": 1, "dp": 1},
                "model": {
                    "params": 1e9,
                    "layers": 4,
                    "hidden": 1200,
                    "heads": 12,
                    "ffn": 4800,
                    "vocab": 1000,
                },
            },
            "parallelism.tp",
            "divide",
        ),
        ({"parallelism": {"tp": 1, "dp": 8}, "global_batch": 12}, "global_batch", "multiple"),
        # Without a global batch, one of those the search would try must suit the layout: with
        # micro-batches of 5, none of 1,024-2,048 sequences divides over 8 ranks.
        ({"parallelism": {"tp": 1, "dp": 8}, "micro_batch": 5}, "global_batch", "is needed"),
        ({"method": "lora"}, "method", "finetune"),
        ({"efficiency": {"eta_sched": 1.5}}, "efficiency.eta_sched", "at most 1"),
        ({"efficiency": {"eta_magic": 0.5}}, "efficiency.eta_magic", "not a known field"),
        ({"inference": {"batch": 0}}, "inference.batch", "at least 1"),
        # false, 0 or [] are not "left out": only a missing key or null takes the defaults.
        ({"reliability": False}, "reliability", "object"),
        ({"efficiency": []}, "efficiency", "object"),
        ({"fabric": "token-ring"}, "fabric", "unknown"),
        ({"wibble": 1}, "wibble", "not a known field"),
        (
            {
                "model": {
                    "params": 1e9,
                    "layers": 4,
                    "hidden": 1024,
                    "heads": 16,
                    "kv_heads": 5,
                    "ffn": 4096,
                    "vocab": 1000,
                }
            },
            "model.kv_heads",
            "divide",
        ),
        (
            {"accelerator": {"memory_gib": 24, "memory_bw_gb_s": 900}},
            "accelerator.tflops",
            "required",
        ),
    ],
)
def test_bad_input_names_the_field(data, field, words):
    error = error_of(**data)
    assert error.field == field
    assert words in error.message


def test_a_given_global_batch_is_kept_and_serving_needs_none():
    assert parse(global_batch=96).global_batch == 96
    assert parse(task="inference").global_batch == 1


def test_a_fixed_layout_without_a_global_batch_leaves_the_batch_to_the_search():
    req = parse(parallelism={"tp": 1, "dp": 8})
    assert req.global_batch is None and req.parallelism is not None


def test_precision_the_card_lacks_is_refused():
    from dataclasses import replace
    from types import MappingProxyType

    CATALOG["old-card"] = replace(
        H100, tflops=MappingProxyType({"fp32": 19.5, "bf16": 312}), name="old-card"
    )
    error = error_of(accelerator="old-card", precision="fp8")
    assert (error.field, error.message) == ("precision", "old-card has no fp8 support")


def test_inline_items_are_accepted():
    req = parse(
        model={
            "params": 8.03e9,
            "layers": 32,
            "hidden": 4096,
            "heads": 32,
            "kv_heads": 8,
            "ffn": 14336,
            "vocab": 128256,
        },
        accelerator={
            "memory_gib": 80,
            "memory_bw_gb_s": 3350,
            "tflops": {"bf16": 989, "fp8": 1979},
            "tdp_w": 700,
            "scale_up_gb_s": 450,
        },
        fabric={"per_gpu_gb_s": 50, "latency_us": 3},
    )
    assert (
        req.model.kv_heads == 8
        and req.accelerator.peak_tflops("fp8") == 1979
        and req.fabric.per_gpu_gb_s == 50
    )


def test_the_stack_defaults_by_task_and_scale_and_a_given_one_is_kept():
    finetune = parse(task="finetune", count=4)
    assert (finetune.framework, finetune.param_dtype) == ("hf", "fp32")
    assert finetune.framework_reason == "stack.default.finetune_few"
    pretrain = parse(task="train", count=64)
    assert (pretrain.framework, pretrain.param_dtype) == ("megatron", None)
    lora = parse(task="finetune", count=4, method="lora")
    assert lora.param_dtype is None
    assert parse(task="inference", count=1).framework == "vllm"
    given = parse(task="train", count=8, framework="torchtitan", compile=True)
    assert (given.framework, given.compile, given.framework_reason) == ("torchtitan", True, None)


def test_a_framework_that_does_not_run_the_task_is_refused():
    assert error_of(task="inference", count=1, framework="megatron").field == "framework"
    assert error_of(task="train", count=8, framework="vllm").field == "framework"
    assert error_of(task="train", count=8, framework="pytorch").field == "framework"


def test_lora_takes_rank_and_targets_and_lora_rank_stays_an_alias():
    default = parse(task="finetune", method="lora")
    assert (default.lora_rank, default.lora_targets) == (
        16,
        ("q", "k", "v", "o", "gate", "up", "down"),
    )
    given = parse(task="finetune", method="lora", lora={"rank": 8, "targets": ["q", "v"]})
    assert (given.lora_rank, given.lora_targets) == (8, ("q", "v"))
    assert parse(task="finetune", method="lora", lora_rank=64).lora_rank == 64
    assert parse(task="finetune", lora_rank=8, lora={"rank": 8}).lora_rank == 8


@pytest.mark.parametrize(
    ("data", "field", "words"),
    [
        ({"lora": {"targets": ["q", "qkv"]}}, "lora.targets[1]", "one of"),
        ({"lora": {"targets": ["q", "q"]}}, "lora.targets", "twice"),
        ({"lora": {"targets": []}}, "lora.targets", "at least one"),
        ({"lora": {"rank": 0}}, "lora.rank", "at least 1"),
        ({"lora": {"rank": 8}, "lora_rank": 16}, "lora_rank", "lora.rank"),
    ],
)
def test_bad_lora_names_its_field(data, field, words):
    error = error_of(task="finetune", method="lora", **data)
    assert error.field == field
    assert words in error.message


def test_a_lora_on_maps_the_model_lacks_is_refused():
    gelu = {
        "params": 125e6,
        "layers": 12,
        "hidden": 768,
        "heads": 12,
        "ffn": 3072,
        "vocab": 50257,
        "gated_mlp": False,
    }
    error = error_of(task="finetune", method="lora", model=gelu, lora={"targets": ["gate"]})
    assert error.field == "lora.targets"
    assert parse(task="finetune", method="lora", model=gelu, lora={"targets": ["gate", "up"]})
