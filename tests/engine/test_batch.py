"""The global batch by model size: the range published runs used, and the few batches in it the
layout search tries."""

import pytest

from planner.engine.batch import (
    FINETUNING,
    MAX_BATCHES,
    MI,
    batch_range,
    candidate_batches,
    searched_batches,
)
from planner.engine.specs import ModelSpec
from tests.engine.conftest import (
    GPT3_175B,
    LLAMA3_8B,
    LLAMA3_70B,
    LLAMA31_405B,
    MIXTRAL,
    TINY,
    train,
)


@pytest.mark.parametrize(
    ("model", "low_m", "high_m"),
    [
        # GPT-3 Small (125M) trained at 0.5M tokens (Brown et al. 2020, Table 2.1).
        (TINY, 0.5, 1),
        # GPT-3 6.7B and 13B at 2M; Llama 2 7B-70B at 4M (Touvron et al. 2023, Table 1).
        (LLAMA3_8B, 2, 4),
        (LLAMA3_70B, 2, 4),
        # GPT-3 175B at 3.2M; Gopher 280B 3M -> 6M (Hoffmann et al. 2022, Table 4).
        (GPT3_175B, 3, 6),
        # Llama 3 405B: 4M -> 8M -> 16M (Dubey et al. 2024, section 3.4.1).
        (LLAMA31_405B, 4, 16),
    ],
)
def test_the_pretraining_range_follows_the_published_runs_of_that_size(model, low_m, high_m):
    band = batch_range("train", model.params)
    assert (band.low, band.high) == (low_m * MI, high_m * MI)
    assert band.sources and band.citations


def test_the_range_never_shrinks_as_models_grow():
    sizes = [1e8, 5e8, 2e9, 8e9, 70e9, 175e9, 405e9, 1e12]
    bands = [batch_range("train", n) for n in sizes]
    assert [b.low for b in bands] == sorted(b.low for b in bands)
    assert [b.high for b in bands] == sorted(b.high for b in bands)


def test_a_mixture_of_experts_goes_by_its_total_parameters():
    # DeepSeek-V3's shape (catalog/data/models): 671B in all, 37.6B active. It trained at 12M ->
    # 60M tokens a step (DeepSeek-AI 2024, section 4.2), the range of its total size or above,
    # far from the 4M of dense models its active size.
    deepseek_v3 = ModelSpec(
        params=671_026_419_200,
        layers=61,
        hidden=7168,
        heads=128,
        kv_heads=128,
        ffn=2048,
        vocab=129280,
        experts=256,
        active_experts=8,
    )
    assert deepseek_v3.active_params < 100e9
    request = train(deepseek_v3, count=2048, seq_len=4096, global_batch=None)
    assert max(searched_batches(request)) * 4096 == 16 * MI
    assert batch_range("train", MIXTRAL.params) == batch_range("train", 46e9)


def test_fine_tuning_keeps_a_small_batch_of_sequences_whatever_the_size():
    # Llama 2-Chat SFT: 64 sequences (Touvron et al. 2023, section 3.1); Alpaca: 128.
    for model in (TINY, LLAMA3_8B, LLAMA31_405B):
        assert batch_range("finetune", model.params) is FINETUNING
    assert FINETUNING.tokens(4096) == (64 * 4096, 128 * 4096)


def test_the_search_tries_the_largest_few_batches_of_the_range():
    # 405B at 8,192 tokens a sequence: 4M-16M tokens is 512-2,048 sequences.
    band = batch_range("train", LLAMA31_405B.params)
    batches = candidate_batches(band, seq_len=8192, count=16384)
    assert batches == (768, 1024, 1536, 2048)
    assert len(batches) <= MAX_BATCHES
    assert all(band.holds(b, 8192) for b in batches)


def test_a_longer_sequence_means_fewer_sequences_for_the_same_tokens():
    band = batch_range("train", LLAMA3_70B.params)
    short = candidate_batches(band, seq_len=2048, count=64)
    long = candidate_batches(band, seq_len=8192, count=64)
    assert max(short) == 4 * max(long) == 2048  # 4M tokens either way


def test_the_clusters_odd_factor_gives_batches_it_divides_evenly():
    # 40 devices (five servers of eight): data parallelism of 5 needs a batch that 5 divides.
    band = batch_range("train", LLAMA3_8B.params)
    batches = candidate_batches(band, seq_len=4096, count=40)
    assert any(b % 5 == 0 for b in batches)
    assert all(band.holds(b, 4096) for b in batches)


def test_a_sequence_longer_than_the_range_allows_still_gets_one():
    band = batch_range("train", TINY.params)  # at most 1M tokens a step
    assert candidate_batches(band, seq_len=4 * MI, count=8) == (1,)
