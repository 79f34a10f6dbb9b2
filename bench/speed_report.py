"""The engine's speed, each figure beside a reference measured in the same run, with the ratio,
and the fitted scaling exponents. `make bench` runs it.

    .venv/bin/python bench/speed_report.py

Pure engine, no Django. CPU seconds of this process (time.process_time), so a shared machine
slows the wall clock more than these figures; read the ratios, which both sides share.

- serving: the compiled event loop against a plain step-by-step heapq loop carried here (one heap
  event per arrival, per prefill step and per decode step of each replica), on the same requests;
  and a million requests against one CPU-second.
- campaign: the training Monte Carlo from 1k to 131k GPUs; exponent of time against GPUs.
- plan: a 70B training plan over synthetic catalogs of 2 to 16 cards (each in an 8-way server);
  exponent of time against catalog size.
- the curated catalog's 70B training plan: its builds' estimates made in one pass
  (planner.engine.many) against the same builds estimated one by one (needs the catalog in the
  database: `make bench` loads it);
- one fixed-layout estimate against llm-analysis's analysis of the same question, where
  llm-analysis is installed (not a flopfit dependency: `make bench-peers` puts it in .venv-peers;
  the line says so when it is missing).
"""

from __future__ import annotations

import dataclasses
import heapq
import json
import math
import os
import subprocess
import sys
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path
from types import MappingProxyType
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

# The models, card, fabric and campaign the other benchmarks measure.
from engine_search import H100, NDR, request
from simulate_speed import CAMPAIGN, LLAMA3_8B

from planner.engine.estimate import estimate
from planner.engine.facility import ServerFacilitySpec
from planner.engine.many import estimate_many
from planner.engine.recommend import recommend
from planner.engine.recommend.builds import build_plan, estimates_needed
from planner.engine.recommend.plan import AcceleratorOption, PlanQuestion, ServerOption
from planner.engine.replica import kv_budget_tokens_from_engine, step_model_from_engine
from planner.engine.simulate.arrivals import draw_requests
from planner.engine.simulate.serving import simulate_serving
from planner.engine.simulate.serving_spec import LengthDist, ServingSpec
from planner.engine.simulate.training import CampaignSpec, simulate_campaign
from planner.engine.specs import EstimateRequest, InferenceSpec, ParallelSpec

NAIVE_REQUESTS = 50_000
SERVING_SIZES = (125_000, 250_000, 500_000, 1_000_000)
CLUSTERS = (1_024, 4_096, 16_384, 65_536, 131_072)
CATALOG_SIZES = (2, 4, 8, 16)


def cpu(fn: Callable[[], Any], repeat: int = 1) -> tuple[Any, float]:
    """The result and the least CPU seconds over `repeat` runs."""
    best, out = math.inf, None
    for _ in range(repeat):
        start = time.process_time()
        out = fn()
        best = min(best, time.process_time() - start)
    return out, best


def paired(ours: Callable[[], Any], theirs: Callable[[], Any], rounds: int) -> tuple[float, float]:
    """The least CPU seconds of each over `rounds` rounds, the two taking turns, so that a busy
    spell on a shared machine falls on both rather than on one."""
    best_ours, best_theirs = math.inf, math.inf
    for _ in range(rounds):
        best_ours = min(best_ours, cpu(ours)[1])
        best_theirs = min(best_theirs, cpu(theirs)[1])
    return best_ours, best_theirs


def exponent(sizes: tuple[int, ...], seconds: list[float]) -> float:
    """The slope of log(time) against log(size), least squares."""
    slope = np.polyfit(np.log(sizes), np.log(seconds), 1)[0]
    return float(slope)


# Serving -------------------------------------------------------------------------------------


def serving_spec(n: int) -> ServingSpec:
    request = EstimateRequest(
        task="inference",
        model=LLAMA3_8B,
        accelerator=H100,
        count=8,
        fabric=NDR,
        inference=InferenceSpec(prompt_len=512, output_len=256),
    )
    return ServingSpec(
        rate_per_s=200.0,
        step=step_model_from_engine(request),
        kv_budget_tokens=kv_budget_tokens_from_engine(request),
        replicas=8,
        prompt=LengthDist.lognormal(512, 0.8, hi=8192),
        output=LengthDist.lognormal(256, 0.8, hi=4096),
        n_requests=n,
        ttft_slo_ms=500.0,
        tpot_slo_ms=50.0,
        seed=1,
    )


def naive_serving(spec: ServingSpec) -> tuple[np.ndarray, np.ndarray]:
    """The same scheduler as planner.engine.simulate.scheduler, written the plain way: every
    arrival, prefill step and decode step is one event on a heapq. First-token and finish
    times of every request."""
    arrivals, prompts, outputs = draw_requests(spec)
    prompt, output = prompts.tolist(), outputs.tolist()
    blocks = (-(-(prompts + outputs) // spec.block_tokens)).tolist()
    kv_blocks = spec.kv_budget_tokens // spec.block_tokens
    step, n, replicas = spec.step, len(arrivals), spec.replicas
    first, finished = [math.nan] * n, [math.nan] * n
    waiting: list[deque[int]] = [deque() for _ in range(replicas)]
    running: list[list[list[int]]] = [[] for _ in range(replicas)]  # [request, tokens left]
    context = [0] * replicas  # tokens the decode batch reads
    free, load, busy = [kv_blocks] * replicas, [0] * replicas, [False] * replicas
    batch: list[list[int]] = [[] for _ in range(replicas)]
    events: list[tuple[float, int, int]] = [(t, -1, i) for i, t in enumerate(arrivals.tolist())]
    heapq.heapify(events)

    def start(r: int, t: float) -> None:
        queue, run = waiting[r], running[r]
        if queue and len(run) < spec.max_batch and blocks[queue[0]] <= free[r]:
            tokens, taken = 0, []
            while (
                queue
                and len(run) + len(taken) < spec.max_batch
                and blocks[queue[0]] <= free[r]
                and not (taken and tokens + prompt[queue[0]] > spec.max_prefill_tokens)
            ):
                rid = queue.popleft()
                taken.append(rid)
                tokens += prompt[rid]
                free[r] -= blocks[rid]
            batch[r] = taken
            duration = step.prefill_fixed_s + step.prefill_per_token_s * tokens
            heapq.heappush(events, (t + max(duration, step.prefill_floor_s), r, 0))
        elif run:
            batch[r] = []
            duration = (
                step.decode_fixed_s
                + step.decode_per_seq_s * len(run)
                + step.decode_per_token_s * context[r]
            )
            heapq.heappush(events, (t + duration, r, 1))
        else:
            busy[r] = False
            return
        busy[r] = True

    while events:
        t, r, what = heapq.heappop(events)
        if r < 0:  # an arrival
            rid = what
            if blocks[rid] > kv_blocks:
                continue
            r = load.index(min(load))
            load[r] += 1
            waiting[r].append(rid)
            if not busy[r]:
                start(r, t)
            continue
        if what == 0:  # a prefill step ends: first tokens
            for rid in batch[r]:
                first[rid] = t
                if output[rid] <= 1:
                    finished[rid], free[r] = t, free[r] + blocks[rid]
                    load[r] -= 1
                else:
                    running[r].append([rid, output[rid] - 1])
                    context[r] += prompt[rid] + 1
        else:  # a decode step ends: one more token each
            kept = []
            for entry in running[r]:
                entry[1] -= 1
                context[r] += 1
                if entry[1] == 0:
                    finished[entry[0]], free[r] = t, free[r] + blocks[entry[0]]
                    context[r] -= prompt[entry[0]] + output[entry[0]]
                    load[r] -= 1
                else:
                    kept.append(entry)
            running[r] = kept
        start(r, t)
    return np.array(first) - arrivals, np.array(finished) - arrivals


def serving_rows() -> tuple[list[tuple[str, float, str, float]], float]:
    small = serving_spec(NAIVE_REQUESTS)
    simulate_serving(serving_spec(1_000))  # load the compiled loop from numba's cache
    compiled, compiled_s = cpu(lambda: simulate_serving(small), repeat=3)
    (naive_ttft, _naive_e2e), naive_s = cpu(lambda: naive_serving(small))
    naive_p99 = float(np.nanpercentile(naive_ttft, 99) * 1000)
    print(
        f"  same requests, same answers: TTFT p99 {compiled.ttft_ms['p99']:.3f} ms compiled, "
        f"{naive_p99:.3f} ms step by step"
    )
    # Best of two: the first run of a size also pays the kernel for fresh pages.
    times = [cpu(lambda n=n: simulate_serving(serving_spec(n)), repeat=2)[1] for n in SERVING_SIZES]
    million = times[-1]
    rows = [
        (
            f"serving, {NAIVE_REQUESTS:,} requests: compiled loop",
            compiled_s,
            "plain heapq loop, step by step",
            naive_s,
        ),
        ("serving, 1,000,000 requests, 8 replicas", million, "one CPU-second", 1.0),
    ]
    return rows, exponent(SERVING_SIZES, times)


# Campaign ------------------------------------------------------------------------------------


def campaign_rows() -> tuple[list[tuple[str, float, str, float]], float]:
    times = []
    for devices in CLUSTERS:
        spec = CampaignSpec(
            **{**CAMPAIGN, "devices": devices}, trials=10_000, grid_trials=0, seed=1
        )
        times.append(cpu(lambda spec=spec: simulate_campaign(spec), repeat=3)[1])
    rows = [
        (
            f"campaign, 10,000 trials, {CLUSTERS[-1]:,} GPUs",
            times[-1],
            f"same on {CLUSTERS[2]:,} GPUs, x{CLUSTERS[-1] // CLUSTERS[2]}",
            times[2] * CLUSTERS[-1] / CLUSTERS[2],
        )
    ]
    return rows, exponent(CLUSTERS, times)


# Plans and estimates -------------------------------------------------------------------------


def catalog(cards: int) -> tuple[tuple[AcceleratorOption, ...], tuple[ServerOption, ...]]:
    """`cards` accelerators from 24 to 192 GiB with bandwidth and FLOPs to match, each sold in an
    8-way server with eight 400 Gbit/s ports."""
    options, servers = [], []
    for i in range(cards):
        memory = 24 * 2 ** (3 * i / max(cards - 1, 1))
        spec = dataclasses.replace(
            H100,
            memory_gib=round(memory),
            memory_bw_gb_s=round(3350 * memory / 80),
            tflops=MappingProxyType({"bf16": 989.4 * (memory / 80) ** 0.5}),
        )
        slug = f"card-{i}"
        options.append(AcceleratorOption(slug, spec, scale_up_link="NVLink"))
        servers.append(
            ServerOption(
                f"server-{i}",
                slots=8,
                fits=frozenset({slug}),
                facility={slug: ServerFacilitySpec(power_kw=10.2, units=8, kg=130)},
                nic_ports=8,
                nic_gbps=400,
            )
        )
    return tuple(options), tuple(servers)


def plan_exponent() -> float:
    workload = request(8, None)  # count and card replaced per build
    times = []
    for cards in CATALOG_SIZES:
        cards_, servers = catalog(cards)
        question = PlanQuestion(workload, cards_, servers, max_count=1024)
        times.append(cpu(lambda q=question: recommend(q))[1])
    return exponent(CATALOG_SIZES, times)


PEER_PYTHON = Path(__file__).resolve().parents[1] / ".venv-peers" / "bin" / "python"


def llm_analysis_seconds() -> tuple[float | None, str]:
    """CPU seconds of one llm-analysis training analysis of the same question, from
    bench/peers/llm_analysis_train.py run where llm-analysis is installed: this interpreter, or
    the peers' environment `make bench-peers` makes (llm-analysis is not a flopfit dependency)."""
    script = Path(__file__).resolve().parent / "peers" / "llm_analysis_train.py"
    try:
        import llm_analysis  # noqa: F401
    except ImportError:
        python = str(PEER_PYTHON) if PEER_PYTHON.exists() else None
    else:
        python = sys.executable
    if python is None:
        return None, "skipped: llm-analysis is not installed (make bench-peers installs it)"
    done = subprocess.run([python, str(script)], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        return None, "skipped: llm-analysis failed: " + done.stderr.strip().splitlines()[-1]
    return float(json.loads(done.stdout.strip().splitlines()[-1])["seconds"]), ""


def fixed_layout_row() -> tuple[str, float, str, float | None, str]:
    req = dataclasses.replace(request(64, 512), parallelism=ParallelSpec(tp=8, pp=4, dp=2))
    estimate(req, advise=False)
    # Taking turns with the peer's runs (each its least over three rounds of 200 calls).
    ours, peer, note = math.inf, math.inf, ""
    for _ in range(3):
        ours = min(ours, cpu(lambda: [estimate(req, advise=False) for _ in range(200)], 3)[1])
        seconds, note = llm_analysis_seconds()
        if seconds is None:
            break
        peer = min(peer, seconds)
    return (
        "one fixed-layout estimate (70B, 64 H100)",
        ours / 200,
        "llm-analysis, same question",
        None if note else peer,
        note,
    )


def catalog_plan_row() -> tuple[str, float, str, float | None, str]:
    """The curated catalog's 70B training plan (the plans page's default question, every server
    with every card it takes, in every count it is sold in): its estimates made in one pass
    (planner.engine.many), against the same builds estimated one by one."""
    name = "70B plan, whole catalog: estimates in one pass"
    reference = "same builds, estimate() one by one"
    try:
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")
        import django

        django.setup()
        from planner.plans.services import plan_question

        question, _currency, _limit = plan_question(
            data={"workload": {"task": "train", "model": "meta-llama-3-70b", "tokens": 2e12}}
        )
    except Exception as error:  # a benchmark line says why it could not run
        return name, math.nan, reference, None, f"skipped: no catalog ({error}); make loadprices"
    builds = list(estimates_needed(question, build_plan(question)).values())

    def one_by_one() -> list[Any]:
        out = []
        for req in builds:
            try:
                out.append(estimate(req, advise=False))
            except ValueError:
                out.append(None)
        return out

    one_by_one()
    estimate_many(builds)
    ours, theirs = paired(lambda: estimate_many(builds), one_by_one, rounds=7)
    return f"{name} ({len(builds)} builds)", ours, reference, theirs, ""


def main() -> None:
    print(f"{'figure':<52} {'cpu s':>9}   {'reference':<36} {'cpu s':>9} {'ratio':>8}")
    # The estimates first, in a fresh process as the peer's runs: after the simulations'
    # millions of objects, the collector's passes weigh on calls of a fraction of a millisecond.
    fixed = fixed_layout_row()
    plan = catalog_plan_row()
    serving, serving_exp = serving_rows()
    campaign, campaign_exp = campaign_rows()
    for name, ours, ref_name, ref in [*serving, *campaign]:
        print(f"{name:<52} {ours:>9.3f}   {ref_name:<36} {ref:>9.3f} {ref / ours:>7.1f}x")
    for name, ours, ref_name, ref, note in (plan, fixed):
        if ref is None:
            print(f"{name:<52} {ours:>9.5f}   {ref_name:<36} {'-':>9} {'-':>8}  {note}")
        else:
            print(f"{name:<52} {ours:>9.5f}   {ref_name:<36} {ref:>9.5f} {ref / ours:>7.1f}x")
    print()
    print("scaling exponents (log time against log size, least squares):")
    print(f"  plan time against catalog size {CATALOG_SIZES}: {plan_exponent():.2f}")
    print(f"  serving time against requests {SERVING_SIZES}: {serving_exp:.2f}")
    print(f"  campaign time against cluster size {CLUSTERS}: {campaign_exp:.2f} (at most 1.05)")


if __name__ == "__main__":
    main()
