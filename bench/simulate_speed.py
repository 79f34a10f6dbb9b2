"""How fast the simulations run. Prints a table.

    .venv/bin/python bench/simulate_speed.py

Pure engine, no Django. Targets: 10,000 trials of a 30-day campaign on 16,384 GPUs in under
5 s; a million served requests in under 30 s, on one core. Wall time counts whatever else the
machine runs; CPU time is this process's own. Events: failures plus completed checkpoints
(training; what a step-by-step loop visits one by one), arrivals plus step boundaries acted on
(serving).
"""

from __future__ import annotations

import math
import random
import sys
import time
from pathlib import Path
from types import MappingProxyType

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from planner.engine.replica import kv_budget_tokens_from_engine, step_model_from_engine
from planner.engine.simulate.serving import simulate_serving
from planner.engine.simulate.serving_spec import LengthDist, ServingSpec
from planner.engine.simulate.training import CampaignSpec, simulate_campaign
from planner.engine.specs import (
    AcceleratorSpec,
    EstimateRequest,
    FabricSpec,
    InferenceSpec,
    ModelSpec,
)

DAY_S = 86_400.0
LLAMA3_8B = ModelSpec(
    params=8.03e9, layers=32, hidden=4096, heads=32, kv_heads=8, ffn=14336, vocab=128256
)
H100 = AcceleratorSpec(
    memory_gib=80,
    memory_bw_gb_s=3350,
    tflops=MappingProxyType({"bf16": 989.4, "fp8": 1978.9}),
    tdp_w=700,
    scale_up_gb_s=450,
    scale_up_domain=8,
)
# Llama 3 405B's pre-training (Dubey et al. 2024): 16,384 H100s, 2e-5 failures per GPU-hour.
# A checkpoint of bf16 weights plus fp32 master weights and Adam moments, 405e9 x 14 bytes,
# written at an aggregate 20 GB/s.
CAMPAIGN = {
    "devices": 16_384,
    "work_s": 30 * DAY_S,
    "checkpoint_write_s": 405e9 * 14 / 20e9,
    "throttle_episodes_per_hour": 0.5,
    "throttle_slowdown": 0.2,
    "throttle_mean_s": 600.0,
    "straggler_slowdown": 0.02,
}
NAIVE_TRIALS = 200


def timed(fn):
    wall, cpu = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - wall, time.process_time() - cpu


def naive_trial(spec: CampaignSpec, rng: random.Random) -> tuple[float, int]:
    """The same model, one segment and one failure at a time in plain Python."""
    straggled = 1 / (1 - spec.straggler_slowdown)
    compute_s = spec.work_s * straggled
    throttled, clock = 0.0, rng.expovariate(spec.throttle_episodes_per_hour / 3_600)
    while clock < compute_s:
        throttled += rng.expovariate(1 / spec.throttle_mean_s)
        clock += rng.expovariate(spec.throttle_episodes_per_hour / 3_600)
    stretch = straggled * (1 + spec.throttle_slowdown * min(throttled, compute_s) / compute_s)
    interval = spec.interval_s
    segments = max(1, math.ceil(spec.work_s / interval - 1e-9))
    last = spec.work_s - (segments - 1) * interval
    rate, down = spec.failure_rate_per_s, spec.detect_s + spec.restart_s
    elapsed, done, events = 0.0, 0, 0
    to_failure = rng.expovariate(rate)
    while done < segments:
        seg = (
            interval * stretch + spec.checkpoint_write_s if done < segments - 1 else last * stretch
        )
        events += 1
        if to_failure >= seg:
            elapsed += seg
            to_failure -= seg
            done += 1
        else:
            elapsed += to_failure + down
            to_failure = rng.expovariate(rate)
    return elapsed, events


def main() -> None:
    rows = []
    spec = CampaignSpec(**CAMPAIGN, trials=10_000, grid_trials=0, seed=1)
    result, wall, cpu = timed(lambda: simulate_campaign(spec))
    rows.append(
        ("training: 10,000 trials, 30 d, 16,384 GPUs", spec.trials, wall, cpu, result.events, 5)
    )
    searched = CampaignSpec(**CAMPAIGN, trials=10_000, seed=1)
    with_search, wall, cpu = timed(lambda: simulate_campaign(searched))
    rows.append(("  same, plus 25-interval search (2,000 each)", spec.trials, wall, cpu, None, 5))

    rng = random.Random(1)
    naive, wall, cpu = timed(lambda: [naive_trial(spec, rng) for _ in range(NAIVE_TRIALS)])
    naive_events = sum(e for _, e in naive)
    scale = spec.trials / NAIVE_TRIALS
    rows.append(
        (
            f"  naive Python loop ({NAIVE_TRIALS} trials, x{scale:.0f})",
            spec.trials,
            wall * scale,
            cpu * scale,
            naive_events * scale,
            None,
        )
    )

    request = EstimateRequest(
        task="inference",
        model=LLAMA3_8B,
        accelerator=H100,
        count=8,
        fabric=FabricSpec(per_gpu_gb_s=50, latency_us=2),
        inference=InferenceSpec(prompt_len=512, output_len=256),
    )
    serving = ServingSpec(
        rate_per_s=200.0,
        step=step_model_from_engine(request),
        kv_budget_tokens=kv_budget_tokens_from_engine(request),
        replicas=8,
        prompt=LengthDist.lognormal(512, 0.8, hi=8192),
        output=LengthDist.lognormal(256, 0.8, hi=4096),
        n_requests=1_000_000,
        ttft_slo_ms=500.0,
        tpot_slo_ms=50.0,
        seed=1,
    )
    served, wall, cpu = timed(lambda: simulate_serving(serving))
    rows.append(
        ("serving: 1,000,000 requests, 8 replicas", 1_000_000, wall, cpu, served.events, 30)
    )

    print(
        f"{'case':<46} {'wall s':>8} {'cpu s':>8} {'items/s':>11} {'events/s':>12} {'target s':>9}"
    )
    for name, items, wall, cpu, events, target in rows:
        rate = f"{events / cpu:>12,.0f}" if events else f"{'':>12}"
        print(f"{name:<46} {wall:>8.2f} {cpu:>8.2f} {items / cpu:>11,.0f} {rate} {target or '':>9}")
    print()
    print(
        f"training: {result.completion_days['mean']:.2f} days mean, p99 "
        f"{result.completion_days['p99']:.2f}; goodput {result.goodput:.3f}; "
        f"{result.failures_mean:.0f} failures; interval {result.checkpoint_interval_s:.0f} s "
        f"(best {with_search.best_interval_s:.0f} s); naive mean "
        f"{sum(c for c, _ in naive) / len(naive) / DAY_S:.2f} days"
    )
    print(
        f"serving: {served.throughput_rps:.1f} requests/s, {served.output_tokens_per_s:,.0f} "
        f"output tokens/s, TTFT p99 {served.ttft_ms['p99']:.0f} ms, TPOT p99 "
        f"{served.tpot_ms['p99']:.1f} ms, mean decode batch {served.mean_decode_batch:.1f}, "
        f"SLO attainment {served.attainment:.4f}"
    )


if __name__ == "__main__":
    main()
