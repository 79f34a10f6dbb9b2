import dataclasses
import json
import math
from collections import deque

import numpy as np
import pytest

from planner.engine import MODEL_VERSION
from planner.engine.inference import inference_time
from planner.engine.replica import StepModel, kv_budget_tokens_from_engine, step_model_from_engine
from planner.engine.shapes import kv_cache_bytes
from planner.engine.simulate.arrivals import draw_requests
from planner.engine.simulate.serving import replicas_for_slo, simulate_serving
from planner.engine.simulate.serving_spec import LengthDist, ServingSpec, Slo
from planner.engine.specs import GIB
from tests.engine.conftest import LLAMA3_8B, serve

# A replica shaped like Llama 3 8B on one H100: a decode step reads 16 GB of weights at about
# 2.7 TB/s (6.7 ms) plus the KV cache; a prefill runs at about 50k tokens/s.
H100_8B = StepModel(
    prefill_fixed_s=0.002,
    prefill_per_token_s=2e-5,
    prefill_floor_s=0.006,
    decode_fixed_s=0.0067,
    decode_per_seq_s=1e-5,
    decode_per_token_s=5e-8,
)
CHAT = {
    "prompt": LengthDist.lognormal(512, 0.8, hi=4096),
    "output": LengthDist.lognormal(128, 0.8, hi=1024),
}


def chat(**kw) -> ServingSpec:
    kw.setdefault("kv_budget_tokens", 100_000)
    if "duration_s" not in kw:
        kw.setdefault("n_requests", 4_000)
    return ServingSpec(step=H100_8B, **CHAT, **kw)


def single_stage(rate: float, service_s: float, **kw) -> ServingSpec:
    """One server, batch of one, one-token answers: each request is one prefill of fixed time."""
    return ServingSpec(
        rate_per_s=rate,
        step=StepModel(
            prefill_fixed_s=service_s,
            prefill_per_token_s=0.0,
            decode_fixed_s=0.0,
            decode_per_token_s=0.0,
        ),
        kv_budget_tokens=10_000,
        max_batch=1,
        prompt=LengthDist.fixed(100),
        output=LengthDist.fixed(1),
        **kw,
    )


def reference(spec: ServingSpec) -> tuple[np.ndarray, np.ndarray]:
    """One replica stepped one scheduler step at a time, the obvious way: first-token and
    finish times of every request."""
    arrivals, prompts, outputs = draw_requests(spec)
    blocks = -(-(prompts + outputs) // spec.block_tokens)
    free = spec.kv_budget_tokens // spec.block_tokens
    step = spec.step
    first, done = np.full(len(arrivals), np.nan), np.full(len(arrivals), np.nan)
    waiting, running, t, i = deque(), [], 0.0, 0
    while i < len(arrivals) or waiting or running:
        while i < len(arrivals) and arrivals[i] <= t:
            waiting.append(i)
            i += 1
        if waiting and len(running) < spec.max_batch and blocks[waiting[0]] <= free:
            batch, tokens = [], 0
            while (
                waiting
                and len(running) + len(batch) < spec.max_batch
                and blocks[waiting[0]] <= free
                and not (batch and tokens + prompts[waiting[0]] > spec.max_prefill_tokens)
            ):
                rid = waiting.popleft()
                batch.append(rid)
                tokens += prompts[rid]
                free -= blocks[rid]
            t += step.prefill_s(tokens)
            for rid in batch:
                first[rid] = t
                if outputs[rid] == 1:
                    done[rid], free = t, free + blocks[rid]
                else:
                    running.append([rid, 1])
        elif running:
            context = sum(prompts[rid] + made for rid, made in running)
            t += step.decode_s(len(running), context)
            for entry in running:
                entry[1] += 1
            for rid, made in running:
                if made == outputs[rid]:
                    done[rid], free = t, free + blocks[rid]
            running = [entry for entry in running if entry[1] < outputs[entry[0]]]
        else:
            t = arrivals[i]
    return first - arrivals, done - arrivals


def test_event_jumps_match_a_step_by_step_reference():
    # Bursty arrivals near capacity and a small KV budget exercise every path: prefill batches,
    # decode runs cut short by arrivals, admission blocked by the cache.
    spec = chat(
        rate_per_s=12.0, arrival="bursty", kv_budget_tokens=12_000, n_requests=1_500, seed=4
    )
    ttft, e2e = reference(spec)
    result = simulate_serving(spec)
    # Equal to the rounding of the result (0.1 us): the same schedule, step for step.
    assert result.completed == 1_500
    assert result.ttft_ms["mean"] == pytest.approx(1000 * ttft.mean(), abs=1e-3)
    assert result.ttft_ms["p99"] == pytest.approx(1000 * np.percentile(ttft, 99), abs=1e-3)
    assert result.e2e_ms["mean"] == pytest.approx(1000 * e2e.mean(), abs=1e-3)
    assert result.e2e_ms["p90"] == pytest.approx(1000 * np.percentile(e2e, 90), abs=1e-3)


def test_single_stage_queue_matches_pollaczek_khinchine():
    # M/D/1: mean wait = rho S / (2 (1 - rho)) (Pollaczek-Khinchine); rho 0.6, S 100 ms: 75 ms.
    service_s, rho = 0.1, 0.6
    result = simulate_serving(single_stage(rho / service_s, service_s, n_requests=100_000))
    wait_s = result.ttft_ms["mean"] / 1000 - service_s
    assert wait_s == pytest.approx(rho * service_s / (2 * (1 - rho)), rel=0.05)


def test_throughput_equals_the_arrival_rate_below_capacity():
    result = simulate_serving(chat(rate_per_s=8.0, replicas=2, n_requests=6_000))
    assert result.throughput_rps == pytest.approx(8.0, rel=0.03)
    assert result.output_tokens_per_s == pytest.approx(8.0 * 128, rel=0.05)
    assert result.completed == 6_000


def test_above_capacity_queues_grow_and_slo_attainment_falls():
    slo = {"ttft_slo_ms": 2_000.0, "tpot_slo_ms": 60.0}
    capacity = simulate_serving(chat(rate_per_s=500.0, n_requests=4_000)).throughput_rps
    calm = simulate_serving(chat(rate_per_s=0.5 * capacity, **slo))
    flooded = simulate_serving(chat(rate_per_s=1.5 * capacity, **slo))
    queue = flooded.queue
    # While requests arrive, the queue grows; after the last arrival it drains.
    pairs = zip(queue["t_s"], queue["waiting"], strict=True)
    waiting = [w for t, w in pairs if t <= queue["arrivals_end_s"]]
    quarter = len(waiting) // 4
    assert np.mean(waiting[-quarter:]) > 3 * np.mean(waiting[:quarter]) + 10
    assert max(queue["waiting"]) > 0.25 * 4_000 * (1 - 1 / 1.5)
    assert flooded.throughput_rps == pytest.approx(capacity, rel=0.1)
    assert calm.attainment > 0.95
    assert flooded.attainment < 0.5


def test_more_replicas_never_reduce_attainment():
    # One replica serves about 42 requests/s; 150/s needs four.
    slo = {"ttft_slo_ms": 500.0, "tpot_slo_ms": 30.0}
    attained = [
        simulate_serving(chat(rate_per_s=150.0, replicas=r, seed=2, **slo)).attainment
        for r in range(1, 7)
    ]
    assert attained == sorted(attained)
    assert attained[0] < 0.5 < 0.99 < attained[-1]


def test_kv_budget_limits_the_running_batch():
    # 100 + 100 tokens take 13 blocks of 16; a budget of 52 blocks holds four requests.
    fixed = {"prompt": LengthDist.fixed(100), "output": LengthDist.fixed(100)}
    tight = ServingSpec(
        rate_per_s=50.0, step=H100_8B, kv_budget_tokens=52 * 16, n_requests=500, **fixed
    )
    roomy = dataclasses.replace(tight, kv_budget_tokens=10_000 * 16)
    assert simulate_serving(tight).max_running == 4
    assert simulate_serving(roomy).max_running > 4
    capped = dataclasses.replace(roomy, max_batch=8)
    assert simulate_serving(capped).max_running == 8


def test_requests_larger_than_the_whole_cache_are_rejected():
    spec = ServingSpec(
        rate_per_s=1.0,
        step=H100_8B,
        kv_budget_tokens=1_000,
        prompt=LengthDist.uniform(100, 2_000),
        output=LengthDist.fixed(10),
        n_requests=200,
        ttft_slo_ms=10_000.0,
    )
    result = simulate_serving(spec)
    assert 0 < result.rejected < 200
    assert result.completed + result.rejected == 200
    assert result.attainment == pytest.approx(result.completed / 200)


def test_bursty_arrivals_keep_the_mean_rate_and_lengthen_the_tail():
    # Bursts last 10 s and recur every 50 s: the mean settles over many of them.
    long = chat(rate_per_s=20.0, arrival="bursty", duration_s=50_000.0, seed=5)
    arrivals, _, _ = draw_requests(long)
    assert len(arrivals) / 50_000 == pytest.approx(20.0, rel=0.03)
    assert np.all(np.diff(arrivals) >= 0)
    bursty = dataclasses.replace(long, duration_s=1_000.0)
    poisson = dataclasses.replace(bursty, arrival="poisson")
    assert len(draw_requests(poisson)[0]) / 1_000 == pytest.approx(20.0, rel=0.05)
    assert simulate_serving(bursty).ttft_ms["p99"] > simulate_serving(poisson).ttft_ms["p99"]


def test_lognormal_lengths_have_the_requested_mean():
    x = LengthDist.lognormal(512, 0.8).draw(np.random.default_rng(0), 200_000)
    assert x.mean() == pytest.approx(512, rel=0.02)
    assert x.min() >= 1


def test_replicas_for_slo_finds_the_fewest_that_meet_it():
    spec = chat(rate_per_s=1.0, n_requests=2_000, seed=3)
    slo = Slo(ttft_ms=500.0, tpot_ms=30.0)
    search = replicas_for_slo(spec, 100.0, slo, 64)
    # One replica serves about 42 requests/s: 100/s needs three.
    assert search.replicas == 3
    assert search.attainment >= 0.99
    tried = dict(search.tried)
    assert tried[2] < 0.99
    assert replicas_for_slo(spec, 100.0, slo, 2).replicas is None


def test_seeded_runs_are_deterministic_and_serialise():
    spec = chat(rate_per_s=10.0, n_requests=1_000, seed=9, ttft_slo_ms=300.0)
    first = simulate_serving(spec).as_dict()
    assert first == simulate_serving(spec).as_dict()
    assert first["model_version"] == MODEL_VERSION
    assert len(first["queue"]["t_s"]) <= 500
    json.dumps(first, allow_nan=False)


def test_progress_rises_to_one():
    seen = []
    simulate_serving(chat(rate_per_s=10.0, n_requests=20_000), progress=seen.append)
    assert seen == sorted(seen)
    assert seen[0] == 0.0
    assert seen[-1] == 1.0


def test_step_model_agrees_with_the_engine():
    req = serve(model=LLAMA3_8B, prompt=1_000, output=0)
    model = step_model_from_engine(req)
    for batch in (8, 32):
        at = dataclasses.replace(req, inference=dataclasses.replace(req.inference, batch=batch))
        engine = inference_time(at, tp=model.tp)
        assert model.decode_s(batch, batch * 1_000) == pytest.approx(engine.decode_step_s, rel=0.05)
        assert model.prefill_s(batch * 1_000) == pytest.approx(engine.prefill_s, rel=0.10)
    # A short prompt still reads every weight once.
    assert model.prefill_s(1) >= model.decode_fixed_s * 0.5


def test_kv_budget_fills_the_memory_left_after_weights():
    req = serve(model=LLAMA3_8B)
    tokens = kv_budget_tokens_from_engine(req, tp=1)
    per_token = kv_cache_bytes(LLAMA3_8B, tokens=1, batch=1, kv_precision="bf16")
    # 80 GiB less 16 GB of weights and runtime overhead leaves room for several hundred
    # thousand tokens at 128 KiB each (32 layers x 8 KV heads x 128 x 2 x 2 bytes).
    assert per_token == 128 * 1024
    assert 300_000 < tokens < 80 * GIB / per_token
    assert math.isfinite(tokens)


def test_spec_needs_one_of_count_or_duration():
    with pytest.raises(ValueError, match="exactly one"):
        ServingSpec(rate_per_s=1.0, step=H100_8B, kv_budget_tokens=1_000)
