"""LoRA and QLoRA: the adapters' parameters, states, activations and time follow the rank and
the linear maps the question adapts."""

import dataclasses

from planner.engine.estimate import estimate
from planner.engine.memory import training_memory
from planner.engine.specs import ParallelSpec
from planner.engine.step import training_step
from tests.engine.conftest import H100, LLAMA3_8B, train

LAYOUT = {"tp": 1, "pp": 1, "dp": 1, "cp": 1, "vp": 1, "micro_batch": 4, "zero_stage": 0}


def _lora(method="lora", **kw):
    req = train(LLAMA3_8B, H100, count=1, method=method, seq_len=2048, **kw)
    return dataclasses.replace(
        req,
        task="finetune",
        per_node=1,
        global_batch=4,
        micro_batch=4,
        parallelism=ParallelSpec(micro_batch=4),
    )


def _memory(req, rc=0):
    mem = training_memory(req, **LAYOUT, recompute_code=rc)
    return {k: float(v) for k, v in mem.items()}


def _step_s(req):
    return float(training_step(req, **LAYOUT, recompute_code=0).step_s)


def test_fewer_targets_train_fewer_parameters_and_keep_fewer_states():
    everything = _memory(_lora())
    attention = _memory(_lora(lora_targets=("q", "k", "v", "o")))
    q_and_v = _memory(_lora(lora_targets=("q", "v")))
    assert everything["optimizer"] > attention["optimizer"] > q_and_v["optimizer"] > 0
    assert everything["gradients"] > attention["gradients"] > q_and_v["gradients"] > 0
    # Adam's two fp32 moments and an fp32 master copy (12 bytes) only for the adapters.
    full = _memory(_lora(method="full"))
    assert q_and_v["optimizer"] < full["optimizer"] / 1000


def test_a_frozen_map_keeps_no_input_for_a_weight_gradient():
    everything = _memory(_lora())
    no_mlp = _memory(_lora(lora_targets=("q", "k", "v", "o")))
    # The down projection's input (2 x seq x batch x ffn bytes per layer) is no longer kept.
    down_inputs = 32 * 2 * 2048 * 4 * LLAMA3_8B.ffn
    assert everything["activations"] - no_mlp["activations"] > 0.9 * down_inputs
    # Under full recompute only each layer's input is kept, whatever the targets.
    assert (
        _memory(_lora(), rc=2)["activations"]
        == _memory(_lora(lora_targets=("q", "v")), rc=2)["activations"]
    )


def test_a_higher_rank_costs_memory_and_time():
    low, high = _lora(lora_rank=8), _lora(lora_rank=256)
    assert _memory(high)["optimizer"] > _memory(low)["optimizer"]
    assert _step_s(high) > _step_s(low)


def test_a_frozen_base_skips_the_weight_gradients_of_backward():
    lora, full = _step_s(_lora()), _step_s(_lora(method="full"))
    # Forward + input gradients + the adapters' small GEMMs against forward + two backward
    # GEMMs: about two thirds of the full step's GEMM time.
    assert 0.55 * full < lora < 0.8 * full


def test_qlora_answers_with_the_targets_it_was_given():
    fewer = estimate(_lora(method="qlora", lora_targets=("q", "v")), advise=False)
    more = estimate(_lora(method="qlora"), advise=False)
    assert fewer.memory["optimizer_gib"] < more.memory["optimizer_gib"]
    assert fewer.throughput["tokens_per_s"] > more.throughput["tokens_per_s"]
