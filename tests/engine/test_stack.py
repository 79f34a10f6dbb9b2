"""The software stack in the question: the same job on the same card under Megatron's fused
kernels, eager Hugging Face, torch.compile and a serving engine."""

import dataclasses

import pytest

from planner.engine.estimate import estimate
from planner.engine.memory import training_memory
from planner.engine.specs import ParallelSpec
from planner.engine.stack import default_framework, default_param_dtype, stack_of
from tests.engine.conftest import H100, LLAMA3_8B, TINY, serve, train

ONE_GPU = ParallelSpec(micro_batch=4, recompute="none", sequence_parallel=False)


def _one_gpu(model, **stack):
    req = train(model, H100, count=1, seq_len=2048, global_batch=4)
    return dataclasses.replace(req, per_node=1, micro_batch=4, parallelism=ONE_GPU, **stack)


def _tokens_per_s(req):
    return estimate(req, advise=False).throughput["tokens_per_s"]


def test_eager_hugging_face_trains_slower_than_megatron_and_compile_wins_back_part():
    megatron = _tokens_per_s(_one_gpu(TINY, framework="megatron"))
    eager = _tokens_per_s(_one_gpu(TINY, framework="hf"))
    compiled = _tokens_per_s(_one_gpu(TINY, framework="hf", compile=True))
    # H200 report (planner/validation/measurements/h200-2026-12-03): a 160M model eager at
    # about half the fused prediction, compiled at about 0.8 of it.
    assert eager < compiled < megatron


def test_a_small_model_loses_more_to_eager_kernels_than_a_large_one():
    def ratio(model):
        return _tokens_per_s(_one_gpu(model, framework="hf")) / _tokens_per_s(
            _one_gpu(model, framework="megatron")
        )

    assert ratio(TINY) < ratio(LLAMA3_8B)


def test_fp32_parameters_under_autocast_cost_sixteen_bytes_per_parameter():
    def states(param_dtype):
        # Megatron keeps its gradient buffer between steps, so all three are held at once.
        req = _one_gpu(TINY, framework="megatron", param_dtype=param_dtype)
        mem = training_memory(
            req, tp=1, pp=1, dp=1, cp=1, vp=1, micro_batch=4, zero_stage=0, recompute_code=0
        )
        return float(mem["weights"] + mem["gradients"] + mem["optimizer"]) / TINY.params

    # fp32 weights 4 + fp32 gradients 4 + Adam moments 8 = 16; bf16 weights with an fp32
    # master copy: 2 + 4 + 8 + 4 = 18 (Rajbhandari et al. 2020, section 3.1, counts 16 with
    # fp16 gradients).
    assert abs(states("fp32") - 16) < 0.5
    assert abs(states(None) - 18) < 0.5


def test_eager_stacks_hold_more_for_the_loss_than_fused_ones():
    def total(framework):
        req = _one_gpu(TINY, framework=framework)
        mem = training_memory(
            req, tp=1, pp=1, dp=1, cp=1, vp=1, micro_batch=4, zero_stage=0, recompute_code=0
        )
        return float(mem["activations"])

    assert total("hf") > total("megatron")


def test_generate_decodes_slower_than_a_serving_engine():
    req = serve(LLAMA3_8B, H100, count=1, batch=8, prompt=2048)
    engine = estimate(dataclasses.replace(req, framework="vllm")).inference["tpot_ms"]
    generate = estimate(dataclasses.replace(req, framework="hf")).inference["tpot_ms"]
    assert generate > 2 * engine


def test_a_request_without_a_stack_keeps_megatron_for_training_and_graphs_for_serving():
    assert stack_of(train(TINY, H100, count=8)).kernels.name == "fused"
    assert stack_of(serve(TINY, H100, count=1)).cuda_graphs


def test_defaults_follow_the_task_and_the_scale():
    assert default_framework(task="train", count=1024)[0] == "megatron"
    assert default_framework(task="finetune", count=4)[0] == "hf"
    assert default_framework(task="finetune", count=64)[0] == "megatron"
    assert default_framework(task="inference", count=8)[0] == "vllm"
    assert default_param_dtype(framework="hf", task="finetune", method="full") == "fp32"
    assert default_param_dtype(framework="hf", task="finetune", method="lora") is None
    assert default_param_dtype(framework="megatron", task="train", method="full") is None


def _tpot_ms(req, **stack):
    return estimate(dataclasses.replace(req, **stack), advise=False).inference["tpot_ms"]


def test_generate_compiled_with_the_static_cache_replays_graphs_and_sheds_the_host_loop():
    req = serve(LLAMA3_8B, H100, count=1, batch=8, prompt=2048)
    compiled = stack_of(dataclasses.replace(req, framework="hf", compile=True))
    assert compiled.cuda_graphs and compiled.decode_host_s_per_layer == 0
    eager = _tpot_ms(req, framework="hf")
    assert _tpot_ms(req, framework="hf", compile=True) < eager / 3


def test_sdpa_reads_a_long_cache_slowly_at_batch_one_and_serving_engines_split_it():
    # One sequence: SDPA runs one block per KV head (8 for Llama-3-8B), so each extra
    # context token costs far more than under a serving engine's split-KV attention.
    def growth(framework, batch):
        short = serve(LLAMA3_8B, H100, count=1, batch=batch, prompt=1024, output=2)
        long = dataclasses.replace(
            short, inference=dataclasses.replace(short.inference, prompt_len=16384)
        )
        kw = {"framework": framework, "compile": framework == "hf"}
        return (_tpot_ms(long, **kw) - _tpot_ms(short, **kw)) / batch

    assert growth("hf", 1) > 4 * growth("vllm", 1)
    # With enough sequences the blocks fill the card: the cost per token per sequence falls.
    assert growth("hf", 16) < growth("hf", 1) / 4
    assert growth("hf", 16) == pytest.approx(growth("vllm", 16))


def test_fewer_kv_heads_mean_fewer_blocks_and_a_slower_long_cache_read():
    req = serve(LLAMA3_8B, H100, count=1, batch=1, prompt=16384, output=2)
    gqa = _tpot_ms(req, framework="hf", compile=True)
    # The same cache bytes read by twice the blocks (twice the heads, half the head size).
    wider = dataclasses.replace(
        LLAMA3_8B, kv_heads=2 * LLAMA3_8B.kv_heads, attention_head_dim=LLAMA3_8B.head_dim // 2
    )
    assert _tpot_ms(dataclasses.replace(req, model=wider), framework="hf", compile=True) < gqa


def test_one_sequence_streams_weights_through_matrix_vector_kernels_in_pytorch_only():
    one = serve(LLAMA3_8B, H100, count=1, batch=1, prompt=128, output=2)
    two = dataclasses.replace(one, inference=dataclasses.replace(one.inference, batch=2))
    hf = {"framework": "hf", "compile": True}
    # PyTorch: batch one runs faster kernels than the tiles batch two pads to.
    assert _tpot_ms(two, **hf) > 1.05 * _tpot_ms(one, **hf)
    # A serving engine keeps the tile figure: batch two costs barely more than one.
    assert _tpot_ms(two, framework="vllm") < 1.02 * _tpot_ms(one, framework="vllm")


def test_eager_generate_waits_on_its_host_until_the_device_takes_longer():
    def tpot(batch, prompt, **stack):
        req = serve(LLAMA3_8B, H100, count=1, batch=batch, prompt=prompt, output=2)
        return _tpot_ms(req, framework="hf", **stack)

    # Host-bound: the same time per step at batch 1 and 8.
    assert tpot(1, 512) == tpot(8, 512)
    # A long cache at a wide batch outlasts the host: the step grows with the context, and
    # more than the compiled static cache's, which does not copy the cache every step.
    assert tpot(32, 16384) > tpot(32, 8192) == tpot(8, 512)
    eager = tpot(64, 16384) - tpot(64, 8192)
    compiled = tpot(64, 16384, compile=True) - tpot(64, 8192, compile=True)
    assert eager > 2 * compiled
