"""Laws any sane estimate obeys, checked over many random questions (hypothesis)."""

import dataclasses

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from planner.engine.estimate import estimate
from planner.engine.memory import fp8_weight_copy_bytes, training_memory
from planner.engine.specs import ParallelSpec
from tests.engine.conftest import (
    A100,
    H100,
    LLAMA2_7B,
    LLAMA3_8B,
    LLAMA3_70B,
    MIXTRAL,
    TINY,
    serve,
    train,
)

models = st.sampled_from([TINY, LLAMA2_7B, LLAMA3_8B, LLAMA3_70B, MIXTRAL])
accelerators = st.sampled_from([A100, H100])
counts = st.sampled_from([8, 16, 32, 64])
seq_lens = st.sampled_from([512, 2048, 4096])
PROFILE = settings(max_examples=40, deadline=None)


@PROFILE
@given(model=models, acc=accelerators, count=counts, seq_len=seq_lens, extra_gib=st.floats(1, 200))
def test_more_memory_per_device_never_hurts(model, acc, count, seq_len, extra_gib):
    req = train(model, acc, count=count, seq_len=seq_len, global_batch=256)
    bigger = dataclasses.replace(
        req, accelerator=dataclasses.replace(acc, memory_gib=acc.memory_gib + extra_gib)
    )
    small, big = estimate(req), estimate(bigger)
    assert big.memory["fits"] or not small.memory["fits"]
    if small.memory["fits"]:
        assert big.throughput["tokens_per_s"] >= small.throughput["tokens_per_s"] * (1 - 1e-9)


@PROFILE
@given(model=models, batch=st.integers(1, 64), prompt=st.integers(16, 4096))
def test_higher_precision_never_needs_less_memory_to_serve(model, batch, prompt):
    def replica_gib(precision):
        # A wider precision may spread over more devices; compare what one replica needs.
        answer = estimate(
            serve(model, H100, count=8, batch=batch, prompt=prompt, precision=precision)
        )
        return answer.memory["per_device_gib"] * answer.parallelism["tp"]

    needs = [replica_gib(p) for p in ("fp32", "bf16", "int8", "int4")]
    assert needs == sorted(needs, reverse=True)


@PROFILE
@given(
    model=models,
    tp=st.sampled_from([1, 2, 4, 8]),
    mb=st.sampled_from([1, 2, 4]),
    zero=st.integers(0, 3),
)
def test_higher_precision_never_needs_less_memory_to_train(model, tp, mb, zero):
    # Like for like: mixed precision's fp32 master copy (18 bytes per parameter against pure
    # fp32's 16) is a recipe choice, not a precision, so both recipes here keep none.
    layout = {
        "tp": tp,
        "pp": 1,
        "dp": 8,
        "cp": 1,
        "vp": 1,
        "micro_batch": mb,
        "zero_stage": zero,
        "recompute_code": 1,
    }

    def memory(precision):
        req = train(model, H100, count=8 * tp, precision=precision, master_weights="none")
        return req, float(training_memory(req, **layout)["total"])

    fp32, bf16 = memory("fp32")[1], memory("bf16")[1]
    fp8_req, fp8 = memory("fp8")
    assert fp32 >= bf16
    # FP8 saves the linear maps' inputs in one byte but keeps two FP8 copies of their weights
    # (Transformer Engine's cache): it never needs more than bf16 plus those copies.
    one = np.ones(1)
    copies = fp8_weight_copy_bytes(fp8_req, tp=one * tp, pp=one, dp=one * 8, ep=None)
    assert fp8 <= bf16 + float(copies[0]) / (8 if zero >= 3 else 1) + 1.0


@PROFILE
@given(
    model=models,
    acc=accelerators,
    tp=st.sampled_from([1, 2, 8]),
    dp=st.sampled_from([1, 2, 4, 8, 16]),
    mb=st.sampled_from([1, 2]),
)
def test_more_data_parallel_devices_never_lower_total_throughput(model, acc, tp, dp, mb):
    """Fixed per-device batch: doubling dp doubles the global batch."""

    def tokens_per_s(dp_):
        layout = ParallelSpec(
            tp=tp, pp=1, dp=dp_, micro_batch=mb, zero_stage=1 if dp_ > 1 else 0, recompute="full"
        )
        req = train(model, acc, count=tp * dp_, global_batch=dp_ * mb * 4, parallelism=layout)
        return estimate(req).throughput["tokens_per_s"]

    assert tokens_per_s(2 * dp) >= tokens_per_s(dp)


@PROFILE
@given(
    model=models,
    tp=st.sampled_from([1, 2, 4, 8]),
    pp=st.sampled_from([1, 2, 4]),
    mb=st.sampled_from([1, 2, 4]),
    seq_len=seq_lens,
    attention=st.sampled_from(["flash", "materialized"]),
)
def test_recompute_never_raises_memory(model, tp, pp, mb, seq_len, attention):
    req = train(
        model, H100, count=tp * pp * 2, seq_len=seq_len, global_batch=64, attention=attention
    )
    layout = {"tp": tp, "pp": pp, "dp": 2, "cp": 1, "vp": 1, "micro_batch": mb, "zero_stage": 1}
    none, selective, full = (
        float(training_memory(req, **layout, recompute_code=rc)["total"]) for rc in (0, 1, 2)
    )
    assert none >= selective >= full


frameworks = st.sampled_from(["megatron", "deepspeed", "fsdp", "torchtitan", "hf"])


@PROFILE
@given(model=models, acc=accelerators, framework=frameworks, seq_len=seq_lens)
def test_compile_never_predicts_slower(model, acc, framework, seq_len):
    req = dataclasses.replace(
        train(model, acc, count=8, seq_len=seq_len, global_batch=64), framework=framework
    )
    eager = estimate(req).throughput["tokens_per_s"]
    compiled = estimate(dataclasses.replace(req, compile=True)).throughput["tokens_per_s"]
    assert compiled >= eager * (1 - 1e-9)


serving_frameworks = st.sampled_from(["vllm", "sglang", "trt-llm", "hf", "llama.cpp"])


@PROFILE
@given(
    model=models,
    framework=serving_frameworks,
    batch=st.integers(1, 64),
    prompt=st.integers(16, 4096),
    precision=st.sampled_from(["bf16", "int8", "int4"]),
)
def test_compile_never_predicts_slower_serving(model, framework, batch, prompt, precision):
    req = serve(
        model, H100, count=8, batch=batch, prompt=prompt, precision=precision, framework=framework
    )
    # At the same group: compiled kernels leave less allocator slack, which can let a smaller
    # tensor-parallel group fit (more replicas, each slower to prefill).
    tp = estimate(req, advise=False).parallelism["tp"]
    req = dataclasses.replace(req, parallelism=ParallelSpec(tp=tp, dp=8 // tp))
    eager = estimate(req, advise=False).inference
    compiled = estimate(dataclasses.replace(req, compile=True), advise=False).inference
    assert compiled["tpot_ms"] <= eager["tpot_ms"] * (1 + 1e-9)
    assert compiled["ttft_ms"] <= eager["ttft_ms"] * (1 + 1e-9)


@PROFILE
@given(
    model=models,
    tp=st.sampled_from([1, 2, 4, 8]),
    prompt=st.integers(16, 8192),
    output=st.integers(1, 4096),
    extra_gib=st.floats(0, 200),
    kv=st.sampled_from(["bf16", "fp8"]),
)
def test_a_larger_kv_budget_never_lowers_the_decode_batch(model, tp, prompt, output, extra_gib, kv):
    # The question fixes the group, so more memory goes to the KV cache of the same replica.
    def most(memory_gib):
        card = dataclasses.replace(H100, memory_gib=memory_gib)
        req = serve(model, card, count=8, batch=1, prompt=prompt, output=output, kv=kv)
        req = dataclasses.replace(req, parallelism=ParallelSpec(tp=tp, dp=8 // tp))
        answer = estimate(req, advise=False).inference
        return answer["max_batch_per_replica"], answer["kv_budget_gib"]

    small_batch, small_budget = most(H100.memory_gib)
    big_batch, big_budget = most(H100.memory_gib + extra_gib)
    assert big_budget >= small_budget
    assert big_batch >= small_batch


@PROFILE
@given(
    model=models,
    rank=st.sampled_from([4, 16, 64]),
    targets=st.sets(st.sampled_from(["q", "k", "v", "o", "gate", "up", "down"]), min_size=1),
    extra=st.sampled_from(["q", "k", "v", "o", "gate", "up", "down"]),
)
def test_adapting_one_more_map_never_needs_less_memory_or_time(model, rank, targets, extra):
    req = train(model, H100, count=8, seq_len=2048, global_batch=64, method="lora", lora_rank=rank)
    layout = {"tp": 1, "pp": 1, "dp": 8, "cp": 1, "vp": 1, "micro_batch": 1, "zero_stage": 1}
    fewer = dataclasses.replace(req, lora_targets=tuple(sorted(targets)))
    more = dataclasses.replace(req, lora_targets=tuple(sorted(targets | {extra})))
    for rc in (0, 2):
        small = float(training_memory(fewer, **layout, recompute_code=rc)["total"])
        big = float(training_memory(more, **layout, recompute_code=rc)["total"])
        assert big >= small * (1 - 1e-12)
    assert estimate(more).throughput["tokens_per_s"] <= estimate(fewer).throughput[
        "tokens_per_s"
    ] * (1 + 1e-9)


@PROFILE
@given(dp=st.sampled_from([8, 16, 32]), ep=st.sampled_from([1, 2, 4, 8]))
def test_more_expert_parallel_ranks_never_hold_more_expert_weights(dp, ep):
    def weights(ep_):
        layout = ParallelSpec(tp=1, pp=1, dp=dp, micro_batch=1, zero_stage=1, ep=ep_)
        req = train(MIXTRAL, H100, count=dp, global_batch=dp * 4, parallelism=layout)
        return estimate(req, advise=False).memory["weights_gib"]

    assert weights(min(2 * ep, 8)) <= weights(ep)
