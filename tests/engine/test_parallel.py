"""The layout search: which layouts are candidates, which one is chosen, and the serving layout."""

import dataclasses

import numpy as np
import pytest

from planner.engine.batch import searched_batches
from planner.engine.parallel import (
    candidate_layouts,
    evaluate,
    fixed_layout,
    smallest_fitting_tp,
)
from planner.engine.specs import GIB, ParallelSpec
from tests.engine.conftest import (
    A100,
    H100,
    LLAMA3_8B,
    LLAMA3_70B,
    LLAMA31_405B,
    RTX3090,
    serve,
    train,
)


def test_every_candidate_layout_uses_every_device_exactly_once():
    # tp x pp x dp (context parallelism is not searched) covers the 64 devices, no more.
    layouts = candidate_layouts(train(LLAMA3_70B, count=64, global_batch=512))
    assert len(layouts) > 0
    assert np.all(layouts.tp * layouts.pp * layouts.dp * layouts.cp == 64)


def test_tensor_parallelism_stays_inside_a_server_and_divides_the_heads():
    # Llama 3 70B has 64 heads; eight devices per server cap tp at 8.
    layouts = candidate_layouts(train(LLAMA3_70B, count=64, global_batch=512))
    assert set(layouts.tp.tolist()) == {1, 2, 4, 8}
    assert np.all(LLAMA3_70B.heads % layouts.tp == 0)


def test_micro_batches_divide_the_global_batch_over_data_parallel_ranks():
    # Each data-parallel rank runs a whole number of micro-batches per step.
    layouts = candidate_layouts(train(LLAMA3_8B, count=8, global_batch=48))
    assert np.all(48 % (layouts.dp * layouts.micro_batch) == 0)
    assert not np.any((layouts.dp == 8) & (layouts.micro_batch == 4))  # 8 x 4 does not divide 48


def test_zero_is_not_searched_where_there_is_nothing_to_shard_over():
    # A single data-parallel rank holds all of the states: ZeRO stages 1-3 would change nothing.
    layouts = candidate_layouts(train(LLAMA3_8B, count=8, global_batch=64))
    assert np.all(layouts.zero_stage[layouts.dp == 1] == 0)
    assert set(layouts.zero_stage[layouts.dp > 1].tolist()) == {0, 1, 2, 3}


def test_interleaving_is_offered_only_where_a_stages_layers_split_evenly_into_virtual_stages():
    # 32 layers: pp 2, 4, 8 and 16 leave 16, 8, 4 and 2 layers a stage, split into up to 8
    # virtual stages of whole layers; pp 1 has no pipeline to interleave.
    layouts = candidate_layouts(train(LLAMA3_8B, count=32, global_batch=256))
    interleaved = layouts.vp > 1
    assert interleaved.any()
    assert np.all(layouts.pp[interleaved] > 1)
    assert np.all((LLAMA3_8B.layers // layouts.pp[interleaved]) % layouts.vp[interleaved] == 0)
    assert set(layouts.vp[layouts.pp == 4].tolist()) == {1, 2, 4, 8}
    assert set(layouts.vp[layouts.pp == 16].tolist()) == {1, 2}
    assert set(layouts.vp[layouts.pp == 1].tolist()) == {1}


def test_126_layers_on_16_stages_interleave_up_to_8_virtual_stages():
    # Llama 3 405B's 126 layers do not divide by 16, but its stages hold at most 8 (the first
    # and last hold 7, beside the embedding and the head: Dubey et al. 2024, section 3.3.2), so
    # each device can run 8 one-layer virtual stages.
    layouts = candidate_layouts(train(LLAMA31_405B, count=1024, global_batch=1024, seq_len=8192))
    assert set(layouts.vp[layouts.pp == 16].tolist()) == {1, 2, 4, 8}
    # 126 over 4 stages leaves 32 a stage; over 2, 63, which no power of two divides.
    assert set(layouts.vp[layouts.pp == 4].tolist()) == {1, 2, 4, 8}
    assert set(layouts.vp[layouts.pp == 2].tolist()) == {1}


def test_a_request_that_fixes_zero_and_recompute_searches_only_the_rest():
    layouts = candidate_layouts(train(LLAMA3_8B, count=8, zero_stage=1, recompute="full"))
    assert set(layouts.zero_stage.tolist()) == {1}
    assert set(layouts.recompute_code.tolist()) == {2}  # full recompute's code


def test_a_fixed_layout_is_a_search_of_one_that_reads_back_as_its_spec():
    spec = ParallelSpec(tp=4, pp=2, dp=1, vp=2, micro_batch=2, zero_stage=0, recompute="full")
    layouts = fixed_layout(spec, (64,))
    assert len(layouts) == 1
    assert layouts.spec(0) == spec
    assert layouts.global_batch.tolist() == [64]


def test_a_fixed_layout_tries_each_global_batch_it_divides():
    spec = ParallelSpec(tp=8, pp=1, dp=4, micro_batch=2)
    layouts = fixed_layout(spec, (12, 16, 24, 32))
    assert layouts.global_batch.tolist() == [16, 24, 32]  # 12 is not a multiple of dp x mb = 8


def test_the_search_picks_the_fastest_layout_that_fits():
    req = train(LLAMA3_8B, count=8, global_batch=64)
    result = evaluate(req, candidate_layouts(req))
    fits = result.memory["total"] <= H100.memory_gib * GIB
    assert bool(fits[result.best])
    assert result.step.step_s[result.best] == pytest.approx(result.step.step_s[fits].min())


def test_when_nothing_fits_the_search_picks_the_layout_that_needs_least_memory():
    # Llama 3 70B's weights, gradients and Adam states alone take 70.6e9 x 18 bytes = 1.2 TiB,
    # far beyond two 24 GiB cards however they are split.
    req = train(LLAMA3_70B, RTX3090, count=2, global_batch=8)
    result = evaluate(req, candidate_layouts(req))
    assert not result.fits.any()
    assert result.best == int(np.argmin(result.memory["total"]))


@pytest.mark.parametrize(
    "req",
    [
        train(LLAMA3_8B, count=8, global_batch=None),
        train(LLAMA3_70B, A100, count=64, seq_len=4096, global_batch=None),
        train(LLAMA3_70B, count=24, seq_len=4096, global_batch=None),  # three servers
        train(LLAMA31_405B, count=1024, seq_len=8192, global_batch=None),
        dataclasses.replace(train(LLAMA3_8B, count=8, global_batch=None), task="finetune"),
    ],
)
def test_searching_the_batch_picks_what_searching_each_batch_apart_would(req):
    # The search sizes and times only the layouts that could win; trying each batch on its own
    # and keeping the fastest per sequence that fits must give the same answer.
    result = evaluate(req, candidate_layouts(req))
    apart = []
    for batch in searched_batches(req):
        one = dataclasses.replace(req, global_batch=batch)
        layouts = candidate_layouts(one)
        if len(layouts) == 0:
            continue
        found = evaluate(one, layouts)
        if found.fits[found.best]:
            apart.append(found.pick(found.step.step_s) / batch)
    chosen = result.pick(result.step.step_s) / result.layouts.global_batch[result.best]
    assert result.fits[result.best]
    assert chosen == pytest.approx(min(apart))


def test_a_searched_batch_is_the_largest_that_runs_fastest():
    req = train(LLAMA3_8B, count=8, seq_len=2048, global_batch=None)
    result = evaluate(req, candidate_layouts(req))
    # 2M-4M tokens at 2,048 a sequence: 1,024-2,048 sequences; the largest spreads the
    # optimizer step and the data-parallel reduction over the most tokens.
    assert searched_batches(req) == (1024, 1536, 2048)
    assert result.layouts.global_batch[result.best] == 2048


def test_serving_uses_the_smallest_tensor_parallel_group_whose_shard_fits():
    # Llama 3 8B in bf16 is 16 GB: one 80 GiB card holds it.
    assert smallest_fitting_tp(serve(LLAMA3_8B, H100, count=8)) == 1
    # Llama 3 70B in bf16 is 141 GB (131 GiB): over one card's 80 GiB, under two's 160.
    assert smallest_fitting_tp(serve(LLAMA3_70B, H100, count=8)) == 2


def test_serving_falls_back_to_the_largest_group_when_no_shard_fits():
    # Two 24 GiB cards cannot hold 131 GiB of weights; the pair is the best there is.
    assert smallest_fitting_tp(serve(LLAMA3_70B, RTX3090, count=2)) == 2
