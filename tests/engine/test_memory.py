import dataclasses

import pytest

from planner.engine.activations import activation_bytes_per_layer
from planner.engine.estimate import estimate
from planner.engine.memory import (
    CUDA_VISIBLE_SHARE,
    sharding_buffers,
    training_memory,
)
from planner.engine.parallel import candidate_layouts
from planner.engine.shapes import kv_cache_bytes, param_split
from planner.engine.specs import GIB, ParallelSpec
from tests.engine.conftest import (
    GPT3_175B,
    H100,
    LLAMA2_7B,
    LLAMA3_8B,
    LLAMA3_70B,
    LLAMA31_405B,
    RTX3090,
    serve,
    train,
)

ONE_DEVICE = {
    "tp": 1,
    "pp": 1,
    "dp": 1,
    "cp": 1,
    "vp": 1,
    "micro_batch": 1,
    "zero_stage": 0,
    "recompute_code": 1,
}


def test_mixed_precision_adamw_costs_18_bytes_per_parameter():
    # bf16 weights (2) + fp32 main gradients (4) + fp32 master weights and two moments (12):
    # Megatron's layout. ZeRO's paper counts 16 with fp16 gradients.
    mem = training_memory(train(LLAMA2_7B, count=1), **ONE_DEVICE)
    states = float(mem["weights"] + mem["gradients"] + mem["optimizer"])
    assert states / LLAMA2_7B.params == pytest.approx(18, rel=0.01)


def test_zero_stages_shard_what_they_promise():
    req = train(LLAMA2_7B, count=8)
    by_stage = {
        z: training_memory(req, **{**ONE_DEVICE, "dp": 8, "zero_stage": z}) for z in range(4)
    }
    assert float(by_stage[1]["optimizer"]) == pytest.approx(float(by_stage[0]["optimizer"]) / 8)
    assert float(by_stage[1]["gradients"]) == float(by_stage[0]["gradients"])
    assert float(by_stage[2]["gradients"]) == pytest.approx(float(by_stage[0]["gradients"]) / 8)
    assert float(by_stage[3]["weights"]) < float(by_stage[2]["weights"]) / 4


def test_activations_match_korthikanti_for_gpt():
    # Korthikanti et al. 2022, equation 2: sbh(34 + 5as/h) bytes per layer, no parallelism.
    s, b, h, a = 2048, 1, GPT3_175B.hidden, GPT3_175B.heads
    got = float(
        activation_bytes_per_layer(
            GPT3_175B,
            seq_len=s,
            micro_batch=b,
            tp=1,
            cp=1,
            recompute_code=0,
            attention="materialized",
        )
    )
    assert got == pytest.approx(s * b * h * (34 + 5 * a * s / h))
    # With tensor and sequence parallelism everything divides by t (their equation 5).
    split = float(
        activation_bytes_per_layer(
            GPT3_175B,
            seq_len=s,
            micro_batch=b,
            tp=8,
            cp=1,
            recompute_code=0,
            attention="materialized",
        )
    )
    assert split == pytest.approx(got / 8)
    # Selective recompute drops the 5as/h term; full recompute keeps only the layer input 2sbh.
    sel = float(
        activation_bytes_per_layer(
            GPT3_175B,
            seq_len=s,
            micro_batch=b,
            tp=1,
            cp=1,
            recompute_code=1,
            attention="materialized",
        )
    )
    full = float(
        activation_bytes_per_layer(
            GPT3_175B,
            seq_len=s,
            micro_batch=b,
            tp=1,
            cp=1,
            recompute_code=2,
            attention="materialized",
        )
    )
    assert sel == pytest.approx(34 * s * b * h)
    assert full == pytest.approx(2 * s * b * h)


def test_flash_attention_does_not_store_the_score_matrix():
    kw = {"seq_len": 8192, "micro_batch": 1, "tp": 1, "cp": 1, "recompute_code": 0}
    flash = float(activation_bytes_per_layer(LLAMA3_8B, attention="flash", **kw))
    materialized = float(activation_bytes_per_layer(LLAMA3_8B, attention="materialized", **kw))
    assert materialized > 10 * flash


def test_kv_cache_is_half_a_mebibyte_per_token_for_llama2_7b():
    # 2 x 32 layers x 32 heads x 128 dims x 2 bytes = 512 KiB per token (vLLM docs, Llama-2-7B).
    assert kv_cache_bytes(LLAMA2_7B, tokens=1, batch=1, kv_precision="bf16") == 512 * 1024
    # Llama 3 8B keeps 8 KV heads (GQA): a quarter of that.
    assert kv_cache_bytes(LLAMA3_8B, tokens=1, batch=1, kv_precision="bf16") == 128 * 1024
    assert kv_cache_bytes(LLAMA3_8B, tokens=1, batch=1, kv_precision="fp8") == 64 * 1024


def test_serving_memory_counts_weights_and_kv_for_the_whole_batch():
    answer = estimate(serve(LLAMA3_8B, batch=32, prompt=4096, output=1024))
    # 8.03e9 bf16 weights ~ 15 GiB; 32 x 5120 tokens x 128 KiB = 20 GiB of KV cache.
    assert answer.memory["weights_gib"] == pytest.approx(8.03e9 * 2 / GIB, rel=0.02)
    assert answer.memory["kv_cache_gib"] == pytest.approx(20.0, rel=0.01)


def test_int4_weights_include_their_group_scales():
    def total_weights(precision):
        answer = estimate(serve(LLAMA3_70B, count=8, precision=precision))
        return answer.memory["weights_gib"] * answer.parallelism["tp"]

    # 4.125 bits per weight for the layers; embeddings stay 16-bit.
    assert 0.25 < total_weights("int4") / total_weights("bf16") < 0.32


def changes_offered(warning) -> list[str]:
    """The changes a "does not fit" warning offers: each option's code, or the method or
    precision it names."""
    return [next(iter(option.params.values()), option.code) for option in warning.params["options"]]


def test_full_finetune_of_7b_does_not_fit_a_3090_but_qlora_does():
    # The seeds: a 24 GB RTX 3090 cannot hold a 7B full fine-tune's optimizer states, while
    # QLoRA runs with batch 8.
    full = estimate(train(LLAMA2_7B, RTX3090, count=1, global_batch=8, seq_len=512))
    qlora = estimate(
        dataclasses.replace(
            train(LLAMA2_7B, RTX3090, count=1, global_batch=8, seq_len=512),
            task="finetune",
            method="qlora",
        )
    )
    assert not full.memory["fits"] and full.bottleneck.code == "bottleneck.memory_capacity"
    assert full.warnings[0].code.startswith("fit.does_not_fit")
    # A pre-training job is not told to fine-tune.
    assert not {"LoRA", "QLoRA"} & set(changes_offered(full.warnings[0]))
    assert qlora.memory["fits"]
    # NF4 base of 6.7B parameters ~ 3.5 GiB plus 16-bit embeddings.
    assert qlora.memory["weights_gib"] < 4.5


def test_finetune_warning_names_only_the_changes_that_make_it_fit():
    req = dataclasses.replace(
        train(LLAMA2_7B, RTX3090, count=1, global_batch=8, seq_len=512), task="finetune"
    )
    warning = estimate(req).warnings[0]
    assert warning.code == "fit.does_not_fit.would_fit"
    assert "QLoRA" in changes_offered(warning)
    assert "fit.option.zero3" not in changes_offered(warning)  # one device: nothing to shard
    # 7B x 18 bytes per parameter over two 24 GiB cards still does not fit.
    assert "fit.option.twice_the_devices" not in changes_offered(warning)


def test_serving_warning_offers_quantisation_that_fits():
    answer = estimate(serve(LLAMA3_70B, RTX3090, count=2, batch=1, prompt=512))
    assert not answer.memory["fits"]
    assert answer.warnings[0].code == "fit.does_not_fit.would_fit"
    assert "int4" in changes_offered(answer.warnings[0])


def test_pipeline_stage_keeps_micro_batches_in_flight():
    req = train(LLAMA3_70B, count=64, global_batch=512, seq_len=4096)
    base = {"tp": 8, "dp": 2, "cp": 1, "micro_batch": 1, "zero_stage": 1, "recompute_code": 1}
    one = training_memory(req, pp=4, vp=1, **base)["activations"]
    interleaved = training_memory(req, pp=4, vp=2, **base)["activations"]
    assert float(interleaved) > float(one)


def test_llama_3_405b_fits_its_interleaved_layout_without_recompute():
    # Llama 3 trained 405B on 8K sequences without activation checkpointing, TP 8 x PP 16 x DP
    # 128, 16 micro-batches a step, its first stage one layer short to hold the warm-up
    # micro-batches (Dubey et al. 2024, section 3.3.2 and Table 4). Interleaving 8 virtual
    # stages holds 1 + 15/128 times the micro-batches of plain 1F1B (Narayanan et al. 2021).
    req = train(LLAMA31_405B, count=16384, global_batch=2048, seq_len=8192)
    base = {"tp": 8, "pp": 16, "dp": 128, "cp": 1, "micro_batch": 1, "zero_stage": 2}
    plain = training_memory(req, vp=1, recompute_code=0, **base)
    interleaved = training_memory(req, vp=8, recompute_code=0, **base)
    per_layer = activation_bytes_per_layer(
        LLAMA31_405B,
        seq_len=8192,
        micro_batch=1,
        tp=8,
        cp=1,
        recompute_code=0,
        attention="flash",
    )
    logits = float(plain["activations"]) - 7 * 16 * float(per_layer)
    assert 0 < logits < GIB  # 8,192 tokens x 128,256 / 8 in bf16 and fp32
    assert float(interleaved["activations"]) - logits == pytest.approx(
        7 * 16 * (1 + 15 / 128) * float(per_layer)
    )
    assert float(interleaved["total"]) <= 80 * GIB


def test_fixed_layout_is_reported_back():
    layout = ParallelSpec(tp=2, pp=2, dp=2, micro_batch=2, zero_stage=1, recompute="full")
    answer = estimate(train(LLAMA3_8B, count=8, global_batch=64, parallelism=layout))
    assert answer.parallelism["tp"] == 2 and answer.parallelism["recompute"] == "full"
    assert answer.search["evaluated"] == 1


def _one_card_hf(model=LLAMA3_8B, accelerator=H100, **kw):
    layout = ParallelSpec(micro_batch=2, recompute=kw.pop("recompute", "none"))
    req = train(model, accelerator, count=1, seq_len=2048, global_batch=2, micro_batch=2, **kw)
    return dataclasses.replace(req, per_node=1, parallelism=layout)


def test_fits_is_judged_against_the_memory_cuda_exposes_not_the_datasheet():
    # One H200 (141 GB on the datasheet) shows 139.80 GiB to CUDA (measurements/h200-2026-12-03).
    need = estimate(_one_card_hf(framework="hf", param_dtype="fp32"), advise=False).memory
    need_gib = need["per_device_gib"]
    just_above = dataclasses.replace(H100, memory_gib=need_gib * 1.005)
    roomy = dataclasses.replace(H100, memory_gib=need_gib * 1.05)
    tight = estimate(_one_card_hf(accelerator=just_above, framework="hf", param_dtype="fp32"))
    assert not tight.memory["fits"]
    assert tight.memory["capacity_gib"] == pytest.approx(
        need_gib * 1.005 * CUDA_VISIBLE_SHARE, 1e-3
    )
    ok = estimate(_one_card_hf(accelerator=roomy, framework="hf", param_dtype="fp32"))
    assert ok.memory["fits"]


def _peak(req, rc=0):
    mem = training_memory(
        req, tp=1, pp=1, dp=1, cp=1, vp=1, micro_batch=2, zero_stage=0, recompute_code=rc
    )
    return {k: float(v) for k, v in mem.items()}


def test_hugging_face_keeps_a_training_kv_cache_unless_told_or_checkpointing():
    cached = _peak(_one_card_hf(framework="hf", param_dtype="fp32"))
    off = _peak(_one_card_hf(framework="hf", param_dtype="fp32", use_cache=False))
    per_layer = 2048 * 2 * LLAMA3_8B.kv_dim * 6  # keys fp32, values bf16
    assert cached["activations"] - off["activations"] == pytest.approx(32 * per_layer, rel=1e-6)
    # Gradient checkpointing turns the cache off in transformers.
    full_cached = _peak(_one_card_hf(framework="hf", param_dtype="fp32"), rc=2)
    full_off = _peak(_one_card_hf(framework="hf", param_dtype="fp32", use_cache=False), rc=2)
    assert full_cached["total"] == full_off["total"]
    # Megatron builds no such cache.
    assert _peak(_one_card_hf(framework="megatron", use_cache=True)) == _peak(
        _one_card_hf(framework="megatron", use_cache=False)
    )


def test_freed_gradients_and_activations_never_peak_together():
    # At the end of forward the activations are held and no gradients yet.
    hf = _peak(_one_card_hf(framework="hf", param_dtype="fp32", use_cache=False))
    assert hf["gradients"] == 0 and hf["activations"] > 0
    megatron = _peak(_one_card_hf(framework="megatron", param_dtype="fp32"))
    assert megatron["gradients"] > 0
    # A model with many parameters and a short sequence: the end of backward, gradients held
    # and activations gone, sets the peak.
    short = dataclasses.replace(
        _one_card_hf(framework="hf", param_dtype="fp32", use_cache=False), seq_len=16
    )
    peak = _peak(short)
    assert peak["gradients"] > 0 and peak["activations"] == 0
    parts = ("weights", "gradients", "optimizer", "activations", "kv_cache", "overhead")
    for mem in (hf, megatron, peak):
        assert mem["total"] == pytest.approx(sum(mem[k] for k in parts), rel=1e-9)


def test_autocast_keeps_sixteen_bit_copies_of_fp32_weights_for_backward():
    fp32 = _peak(_one_card_hf(framework="hf", param_dtype="fp32", use_cache=False))
    bf16 = _peak(_one_card_hf(framework="hf", param_dtype="bf16", use_cache=False))
    copies = fp32["activations"] - bf16["activations"]
    gemm_weights = LLAMA3_8B.params - LLAMA3_8B.vocab * LLAMA3_8B.hidden
    assert copies == pytest.approx(2 * gemm_weights, rel=0.01)


def _sharded(framework="fsdp", model=LLAMA3_8B, zero=3, dp=8):
    req = dataclasses.replace(train(model, H100, count=dp), framework=framework)
    mem = training_memory(
        req, tp=1, pp=1, dp=dp, cp=1, vp=1, micro_batch=1, zero_stage=zero, recompute_code=2
    )
    return req, {k: float(v) for k, v in mem.items()}


def _buffers(req, **layout):
    return tuple(float(part) for part in sharding_buffers(req, **layout))


def test_fsdp_keeps_two_gathered_layers_and_their_unsharded_gradients():
    req, _ = _sharded()
    per_layer = param_split(LLAMA3_8B).per_layer
    # Two layers' 16-bit weights gathered (current and prefetched), two layers' fp32 gradients
    # awaiting their reduce-scatter.
    assert _buffers(req, tp=1, zero=3) == pytest.approx((4 * per_layer, 8 * per_layer))
    assert _buffers(req, tp=2, zero=3) == pytest.approx((2 * per_layer, 4 * per_layer))
    assert _buffers(req, tp=1, zero=1) == (0.0, 0.0)
    # A wider model gathers wider layers.
    wide, _ = _sharded(model=LLAMA3_70B)
    assert sum(_buffers(wide, tp=1, zero=3)) > sum(_buffers(req, tp=1, zero=3))


def test_sharded_states_shrink_with_more_ranks_but_the_buffers_do_not():
    _, eight = _sharded(dp=8)
    _, sixty_four = _sharded(dp=64)
    assert sixty_four["optimizer"] < eight["optimizer"] / 7
    buffers = 12 * param_split(LLAMA3_8B).per_layer
    assert sixty_four["total"] > buffers


def test_deepspeed_keeps_its_reduce_and_gather_buckets():
    deepspeed, _ = _sharded(framework="deepspeed", zero=1)
    megatron, _ = _sharded(framework="megatron", zero=1)
    # reduce_bucket_size and allgather_bucket_size, 5e8 elements of 2 bytes each.
    assert _buffers(deepspeed, tp=1, zero=1) == (1e9, 1e9)
    assert _buffers(deepspeed, tp=1, zero=0) == (0.0, 0.0)
    assert _buffers(megatron, tp=1, zero=1) == (0.0, 0.0)


@pytest.mark.parametrize("method", ["full", "lora", "qlora"])
@pytest.mark.parametrize("framework", ["megatron", "fsdp", "hf"])
@pytest.mark.parametrize("param_dtype", [None, "fp32"])
def test_training_memory_is_the_same_in_fp16_as_in_bf16(method, framework, param_dtype):
    # Two-byte weights, activations and gathers alike, and the same autocast copies.
    req = dataclasses.replace(
        train(LLAMA3_8B, global_batch=None, count=16),
        method=method,
        framework=framework,
        param_dtype=param_dtype,
    )
    layouts = candidate_layouts(req).kwargs()
    bf16 = training_memory(dataclasses.replace(req, precision="bf16"), **layouts)
    fp16 = training_memory(dataclasses.replace(req, precision="fp16"), **layouts)
    assert {k: v.tolist() for k, v in bf16.items()} == {k: v.tolist() for k, v in fp16.items()}
