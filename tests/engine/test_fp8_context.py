"""FP8 as Transformer Engine's recipes price it, and context parallelism's ring exchange and
causal balance."""

import dataclasses
from types import MappingProxyType

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planner.engine.compute import attention_efficiency, fp8_recipe, hardware
from planner.engine.estimate import estimate
from planner.engine.specs import ParallelSpec
from planner.engine.step import causal_imbalance, context_exchange_s, layer_time, training_step
from tests.engine.conftest import H100, LLAMA2_7B, LLAMA3_8B, LLAMA3_70B, train
from tests.engine.contract.test_estimate import error_of, parse

B200 = dataclasses.replace(
    H100,
    memory_gib=180,
    memory_bw_gb_s=8000,
    tflops=MappingProxyType({"fp32": 75, "bf16": 2250, "fp16": 2250, "fp8": 4500}),
    scale_up_gb_s=900,
    name="b200",
    architecture="Blackwell",
)
HOPPER = dataclasses.replace(H100, architecture="Hopper")
LAYOUT = {"tp": 1, "pp": 1, "dp": 8, "cp": 1, "vp": 1, "micro_batch": 1, "zero_stage": 1}


def step_s(req, **layout):
    merged = {**LAYOUT, "recompute_code": 0, **layout}
    return float(training_step(req, **merged).step_s)


def test_transformer_engine_default_recipe_follows_the_card():
    assert fp8_recipe(train(precision="fp8", accelerator=HOPPER)) == "delayed"
    assert fp8_recipe(train(precision="fp8", accelerator=B200)) == "mxfp8"
    assert fp8_recipe(train(precision="bf16", accelerator=B200)) is None
    assert fp8_recipe(train(precision="fp8", accelerator=HOPPER, fp8_recipe="current")) == "current"


def test_current_scaling_reads_each_tensor_once_more_than_delayed_scaling():
    delayed = step_s(train(precision="fp8", seq_len=4096, fp8_recipe="delayed"))
    current = step_s(train(precision="fp8", seq_len=4096, fp8_recipe="current"))
    assert current > delayed


def test_mxfp8_gemms_run_a_little_below_per_tensor_ones():
    per_tensor = hardware(train(precision="fp8", accelerator=B200, fp8_recipe="current"))
    block = hardware(train(precision="fp8", accelerator=B200))
    assert 0.9 * per_tensor.gemm_eff < block.gemm_eff < per_tensor.gemm_eff


def test_the_output_head_stays_in_16_bits_under_fp8():
    hw = hardware(train(precision="fp8"))
    assert hw.gemm_peak == pytest.approx(2 * hw.other_peak, rel=1e-3)
    one = hw.gemm(8192, 4096, 128256).total
    assert hw.gemm_16bit(8192, 4096, 128256).total > 1.5 * one


@settings(max_examples=30, deadline=None)
@given(
    model=st.sampled_from([LLAMA2_7B, LLAMA3_8B, LLAMA3_70B]),
    acc=st.sampled_from([HOPPER, B200]),
    tp=st.sampled_from([1, 2, 8]),
    seq_len=st.sampled_from([2048, 4096, 8192]),
    recipe=st.sampled_from(["delayed", "current", None]),
)
def test_fp8_is_never_slower_than_bf16_on_the_same_layout(model, acc, tp, seq_len, recipe):
    layout = ParallelSpec(tp=tp, dp=8 // tp, micro_batch=1, zero_stage=1, recompute="none")
    bf16 = train(model, acc, seq_len=seq_len, global_batch=64, parallelism=layout)
    fp8 = dataclasses.replace(bf16, precision="fp8", fp8_recipe=recipe)
    assert estimate(fp8).throughput["tokens_per_s"] >= estimate(bf16).throughput["tokens_per_s"]


def test_flash_attention_keeps_more_of_the_peak_on_longer_blocks_and_newer_cards():
    assert attention_efficiency("", 2048) == pytest.approx(0.40)
    assert attention_efficiency("", 32768) > attention_efficiency("", 2048)
    assert attention_efficiency("Hopper", 8192) > attention_efficiency("Ampere", 8192)


def test_megatron_balances_causal_context_parallel_chunks_and_plain_pytorch_does_not():
    cp = np.array([1.0, 2.0, 8.0])
    assert np.allclose(causal_imbalance(train(framework="megatron"), cp), 1.0)
    assert np.allclose(causal_imbalance(train(framework="hf"), cp), [1.0, 1.5, 15 / 8])


def test_an_unbalanced_split_slows_the_attention_by_the_last_ranks_share():
    def attention_s(framework):
        req = train(framework=framework, seq_len=65536)
        one = np.array([1.0])
        layer = layer_time(
            req, hardware(req), tokens=one * 65536 / 4, tp=one, cp=one * 4, dp=one * 2, rc=one * 0
        )
        return float(layer.attention.total[0])

    assert attention_s("hf") == pytest.approx(attention_s("megatron") * 7 / 4)


def test_ring_exchange_hides_behind_attention_on_nvlink_and_shows_over_pcie():
    def exposed(acc, seq_len):
        req = train(LLAMA2_7B, acc, seq_len=seq_len)
        one = np.array([1.0])
        tokens, cp = one * seq_len / 8, one * 8
        layer = layer_time(req, hardware(req), tokens=tokens, tp=one, cp=cp, dp=one, rc=one * 0)
        return float(
            context_exchange_s(req, tokens=tokens, tp=one, cp=cp, attention=layer.attention)[0]
        )

    assert exposed(H100, 131072) == 0.0
    pcie = dataclasses.replace(H100, scale_up_gb_s=None, pcie_gb_s=4.0)
    assert exposed(pcie, 16384) > 0.0


def test_context_parallelism_across_nodes_costs_more_than_inside_one():
    req = train(LLAMA2_7B, count=64, seq_len=131072, global_batch=8)
    inside = step_s(req, tp=8, dp=1, cp=8)
    across = step_s(dataclasses.replace(req, per_node=2), tp=8, dp=1, cp=8)
    assert across >= inside


def test_the_question_refuses_a_recipe_the_card_or_precision_cannot_run():
    assert "MXFP8" in error_of(precision="fp8", fp8_recipe="mxfp8").message
    assert error_of(fp8_recipe="current").field == "fp8_recipe"
    assert parse(precision="fp8", fp8_recipe="current").fp8_recipe == "current"
    assert parse(precision="fp8").fp8_recipe is None  # the card's default, chosen by the engine


def test_only_megatron_runs_the_architectures_own_attention_kernels():
    from planner.engine.compute import attention_kernels

    assert attention_kernels(train(accelerator=HOPPER, framework="megatron")) == "Hopper"
    assert attention_kernels(train(accelerator=HOPPER, framework="torchtitan")) == ""


def test_fp8_keeps_weight_copies_and_saves_the_linear_inputs_in_one_byte():
    from planner.engine.memory import training_memory

    layout = {**LAYOUT, "recompute_code": 0, "micro_batch": 2}
    bf16 = training_memory(train(LLAMA3_8B, seq_len=8192), **layout)
    fp8 = training_memory(train(LLAMA3_8B, seq_len=8192, precision="fp8"), **layout)
    assert float(fp8["activations"]) < float(bf16["activations"])
    # Two one-byte copies of the ~7 billion layer weights, whole on every data-parallel rank.
    extra_gib = (float(fp8["weights"]) - float(bf16["weights"])) / 2**30
    assert 12 < extra_gib < 14
