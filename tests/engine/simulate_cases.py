"""Serving simulations whose answers were recorded from the event loop as it was before it was
compiled (tests/engine/data/serving_recorded.json): the compiled loop, and the same source run
as plain Python, must give them again."""

from planner.engine.replica import StepModel
from planner.engine.simulate.serving_spec import LengthDist, ServingSpec
from tests.engine.test_simulate_serving import CHAT as CHAT_LENGTHS
from tests.engine.test_simulate_serving import H100_8B

CHAT = {**CHAT_LENGTHS, "step": H100_8B}
STEP = H100_8B

CASES = {
    # One replica, light load: mostly idle arrivals prefilled alone.
    "one-replica-light": ServingSpec(
        rate_per_s=5.0,
        kv_budget_tokens=100_000,
        n_requests=3_000,
        seed=1,
        ttft_slo_ms=300.0,
        tpot_slo_ms=20.0,
        **CHAT,
    ),
    # Eight replicas near capacity: the least-loaded choice, ties, cut decode runs.
    "eight-replicas-busy": ServingSpec(
        rate_per_s=300.0,
        kv_budget_tokens=60_000,
        replicas=8,
        n_requests=20_000,
        seed=2,
        ttft_slo_ms=500.0,
        tpot_slo_ms=50.0,
        **CHAT,
    ),
    # Overloaded, a tight KV budget and a small batch limit: long queues and a long drain.
    "overloaded-tight": ServingSpec(
        rate_per_s=120.0,
        kv_budget_tokens=12_000,
        replicas=2,
        max_batch=16,
        max_prefill_tokens=2048,
        n_requests=6_000,
        seed=3,
        ttft_slo_ms=1000.0,
        **CHAT,
    ),
    # Bursty arrivals over a fixed duration; prompts larger than the cache are rejected.
    "bursty-rejects": ServingSpec(
        rate_per_s=40.0,
        kv_budget_tokens=3_000,
        replicas=3,
        arrival="bursty",
        duration_s=300.0,
        seed=4,
        prompt=LengthDist.uniform(16, 4000),
        output=LengthDist.uniform(1, 400),
        step=STEP,
    ),
    # One-token answers and fixed lengths: ties between events at equal times.
    "fixed-one-token": ServingSpec(
        rate_per_s=50.0,
        kv_budget_tokens=8_192,
        replicas=5,
        prompt=LengthDist.fixed(256),
        output=LengthDist.fixed(1),
        n_requests=5_000,
        seed=5,
        step=StepModel(
            prefill_fixed_s=0.01,
            prefill_per_token_s=0.0,
            decode_fixed_s=0.005,
            decode_per_token_s=0.0,
        ),
    ),
    # Decode cost flat in context (no per-token term): the run cut by division, not the root.
    "flat-decode": ServingSpec(
        rate_per_s=60.0,
        kv_budget_tokens=40_000,
        replicas=4,
        n_requests=5_000,
        seed=6,
        prompt=LengthDist.fixed(300),
        output=LengthDist.uniform(2, 200),
        step=StepModel(
            prefill_fixed_s=0.003,
            prefill_per_token_s=1e-5,
            decode_fixed_s=0.008,
            decode_per_seq_s=2e-5,
            decode_per_token_s=0.0,
        ),
    ),
}
