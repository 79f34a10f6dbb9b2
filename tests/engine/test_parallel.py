"""The layout search: which layouts are candidates, which one is chosen, and the serving layout."""

import numpy as np
import pytest

from planner.engine.parallel import (
    candidate_layouts,
    evaluate,
    fixed_layout,
    smallest_fitting_tp,
)
from planner.engine.specs import GIB, ParallelSpec
from tests.engine.conftest import H100, LLAMA3_8B, LLAMA3_70B, RTX3090, serve, train


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


def test_interleaving_is_offered_only_where_the_layers_split_evenly_into_virtual_stages():
    # 32 layers over pp stages of 2 virtual chunks each need 32 % (2 pp) == 0: pp 2..16 qualify,
    # pp 1 has no pipeline to interleave.
    layouts = candidate_layouts(train(LLAMA3_8B, count=32, global_batch=256))
    interleaved = layouts.vp == 2
    assert interleaved.any()
    assert np.all(layouts.pp[interleaved] > 1)
    assert np.all(LLAMA3_8B.layers % (2 * layouts.pp[interleaved]) == 0)


def test_a_request_that_fixes_zero_and_recompute_searches_only_the_rest():
    layouts = candidate_layouts(train(LLAMA3_8B, count=8, zero_stage=1, recompute="full"))
    assert set(layouts.zero_stage.tolist()) == {1}
    assert set(layouts.recompute_code.tolist()) == {2}  # full recompute's code


def test_a_fixed_layout_is_a_search_of_one_that_reads_back_as_its_spec():
    spec = ParallelSpec(tp=4, pp=2, dp=1, vp=2, micro_batch=2, zero_stage=0, recompute="full")
    layouts = fixed_layout(spec)
    assert len(layouts) == 1
    assert layouts.spec(0) == spec


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


def test_serving_uses_the_smallest_tensor_parallel_group_whose_shard_fits():
    # Llama 3 8B in bf16 is 16 GB: one 80 GiB card holds it.
    assert smallest_fitting_tp(serve(LLAMA3_8B, H100, count=8)) == 1
    # Llama 3 70B in bf16 is 141 GB (131 GiB): over one card's 80 GiB, under two's 160.
    assert smallest_fitting_tp(serve(LLAMA3_70B, H100, count=8)) == 2


def test_serving_falls_back_to_the_largest_group_when_no_shard_fits():
    # Two 24 GiB cards cannot hold 131 GiB of weights; the pair is the best there is.
    assert smallest_fitting_tp(serve(LLAMA3_70B, RTX3090, count=2)) == 2
