import dataclasses

import pytest

from planner.engine.shapes import (
    lora_params_per_layer,
    model_flops_per_token,
    param_split,
    params_on_busiest_device,
    stage_layers,
    trainable_params_on_busiest_device,
)
from planner.engine.specs import ModelSpec
from tests.engine.conftest import LLAMA2_7B, LLAMA31_405B, MIXTRAL


def test_model_flops_per_token_matches_nemo_accounting():
    # NeMo's table: GPT3-5B at 736 model TFLOP/s from 22,521 tokens/s/GPU (32.7 GFLOP/token);
    # Llama2-70B at 759 TFLOP/s from 1,707 tokens/s/GPU (444.6 GFLOP/token).
    gpt3_5b = ModelSpec(
        params=0,
        layers=24,
        hidden=4096,
        heads=32,
        kv_heads=32,
        ffn=16384,
        vocab=50304,
        gated_mlp=False,
    )
    llama2_70b = ModelSpec(
        params=0, layers=80, hidden=8192, heads=64, kv_heads=8, ffn=28672, vocab=32000
    )
    assert model_flops_per_token(gpt3_5b, 2048) == pytest.approx(736e12 / 22521, rel=0.01)
    assert model_flops_per_token(llama2_70b, 4096) == pytest.approx(759e12 / 1707, rel=0.01)


def test_moe_counts_only_the_active_experts():
    dense_equivalent = dataclasses.replace(MIXTRAL, experts=1, active_experts=1)
    per_token = model_flops_per_token(MIXTRAL, 4096)
    assert per_token < 0.4 * model_flops_per_token(
        dataclasses.replace(dense_equivalent, ffn=MIXTRAL.ffn * 8), 4096
    )
    assert per_token == pytest.approx(
        model_flops_per_token(dataclasses.replace(dense_equivalent, ffn=MIXTRAL.ffn * 2), 4096),
        rel=0.01,
    )


def test_lora_adds_rank_wide_matrices_to_each_linear_map_it_adapts():
    # PEFT's print_trainable_parameters on Llama-2-7B: 39,976,960 at rank 16 on all seven
    # linear maps (q, k, v, o of 4096 x 4096; gate, up of 4096 x 11008; down of 11008 x 4096),
    # 4,194,304 at rank 8 on q and v.
    assert lora_params_per_layer(LLAMA2_7B, rank=16) * 32 == 39_976_960
    assert lora_params_per_layer(LLAMA2_7B, rank=8, targets=("q", "v")) * 32 == 4_194_304
    assert lora_params_per_layer(LLAMA2_7B, rank=64) == 4 * lora_params_per_layer(
        LLAMA2_7B, rank=16
    )


def test_lora_on_an_moe_adapts_every_expert_of_the_maps_it_targets():
    attention_only = lora_params_per_layer(MIXTRAL, rank=16, targets=("q", "k", "v", "o"))
    with_mlp = lora_params_per_layer(MIXTRAL, rank=16)
    one_expert_mlp = 16 * 3 * (MIXTRAL.hidden + MIXTRAL.ffn)
    assert with_mlp - attention_only == MIXTRAL.experts * one_expert_mlp


def test_lora_trains_only_the_adapters_of_a_stage_split_by_tensor_parallelism():
    # Four pipeline stages of 8 layers each, adapters split over two tensor-parallel ranks.
    adapters = trainable_params_on_busiest_device(
        LLAMA2_7B, method="lora", lora_rank=16, tp=2, pp=4, dp=1
    )
    assert float(adapters) == 1_249_280 * 8 / 2
    full = trainable_params_on_busiest_device(
        LLAMA2_7B, method="full", lora_rank=16, tp=2, pp=4, dp=1
    )
    assert float(full) > 100 * float(adapters)


@pytest.mark.parametrize(
    ("layers", "pp", "most", "first", "last"),
    [
        (126, 16, 8, 7, 7),  # Llama 3 405B (Dubey et al. 2024, section 3.3.2)
        (80, 16, 5, 5, 5),  # even: every stage alike
        (61, 2, 31, 31, 30),  # one place empty: the last stage, which runs the head, gives it
        (80, 32, 3, 2, 2),  # many empty: the first and last give up one each
        (32, 1, 32, 32, 32),  # no pipeline
    ],
)
def test_stages_hold_whole_layers_and_the_ends_make_room_for_embedding_and_head(
    layers, pp, most, first, last
):
    stages = stage_layers(layers, pp)
    assert (float(stages.most), float(stages.first), float(stages.last)) == (most, first, last)
    # Every layer has a place: the first, the last and full stages in between.
    places = most if pp == 1 else first + last + (pp - 2) * most
    assert places >= layers


def test_the_busiest_405b_device_holds_a_full_stage_not_the_embedding_stage():
    # 126 layers on 16 stages: 8 layers (about 3.2B parameters each) outweigh 7 plus the 2.1B
    # embedding; the untied head sits on the last stage beside 7 layers.
    split = param_split(LLAMA31_405B)
    held = float(params_on_busiest_device(LLAMA31_405B, tp=8, pp=16, dp=128))
    assert held == pytest.approx(8 * split.per_layer / 8)
    assert 7 * split.per_layer + split.embedding_one < 8 * split.per_layer
