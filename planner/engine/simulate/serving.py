"""Discrete-event simulation of LLM serving with continuous batching under a paged KV cache.

Each replica runs a vLLM-like scheduler (vLLM v0's default, chunked prefill off). At every step
boundary it either
- runs one prefill step for waiting requests taken first come, first served, as many as fit the
  free KV blocks, the batch limit and the prefill token budget (a prompt longer than the budget
  goes alone), or, when the head of the queue cannot be admitted,
- runs one decode step for all running requests.
A request is admitted only when blocks for its whole prompt plus output fit the free KV budget,
so a running request never runs out of cache and nothing is preempted (vLLM reserves blocks as
tokens arrive and preempts on exhaustion; reserving up front is the conservative version). A
request whose prompt plus output exceeds a replica's whole budget is rejected.

The prefill produces the first token (TTFT ends there); each decode step produces one more.
Between events the running batch is constant and a decode step's time grows linearly with the
context it reads, so a run of k decode steps has a closed form (an arithmetic series) and the
simulation jumps from event to event: arrivals, ends of prefill steps, the next completion, and
the step boundary after an arrival that can be admitted. Arrivals go to the replica with the
fewest outstanding requests (join the shortest queue, waiting plus running).

Arrivals and lengths are drawn up front with numpy from the seed alone, so runs that differ only
in replicas see the same requests (common random numbers).
"""

from __future__ import annotations

import dataclasses
import heapq
import math
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from planner.engine.version import MODEL_VERSION

Progress = Callable[[float], None] | None

BLOCK_TOKENS = 16  # vLLM's default KV block size
MAX_BATCH = 256  # vLLM's default max_num_seqs
# vLLM v0 without chunked prefill sets max_num_batched_tokens to max(max_model_len, 2048): 8,192
# for a model served at an 8k context.
MAX_PREFILL_TOKENS = 8192
QUEUE_SAMPLES = 400  # samples over the arrival window; the drain after it adds more
MAX_QUEUE_POINTS = 500
PERCENTILES = (50, 90, 99)
PROGRESS_EVERY = 1 << 14  # arrivals between progress reports

_IDLE, _PREFILL, _DECODE = 0, 1, 2


@dataclass(frozen=True)
class LengthDist:
    """Token counts: "fixed" (value), "uniform" (lo..hi inclusive) or "lognormal" (the
    distribution's mean and the sigma of its logarithm), rounded and clipped to [1, hi] when hi
    is set."""

    kind: Literal["fixed", "uniform", "lognormal"] = "fixed"
    value: float = 512
    lo: int = 1
    hi: int | None = None
    sigma: float = 1.0

    @classmethod
    def fixed(cls, value: int) -> LengthDist:
        return cls("fixed", value=value)

    @classmethod
    def uniform(cls, lo: int, hi: int) -> LengthDist:
        return cls("uniform", lo=lo, hi=hi)

    @classmethod
    def lognormal(cls, mean: float, sigma: float, hi: int | None = None) -> LengthDist:
        return cls("lognormal", value=mean, sigma=sigma, hi=hi)

    def draw(self, rng: np.random.Generator, n: int) -> np.ndarray:
        if self.kind == "fixed":
            x = np.full(n, float(self.value))
        elif self.kind == "uniform":
            x = rng.integers(self.lo, (self.hi or self.lo) + 1, size=n).astype(float)
        elif self.kind == "lognormal":
            # E[exp(N(mu, s^2))] = exp(mu + s^2/2): choose mu so the mean is `value`.
            mu = math.log(self.value) - self.sigma**2 / 2
            x = rng.lognormal(mu, self.sigma, size=n)
        else:
            raise ValueError(f"unknown length distribution {self.kind!r}")
        return np.clip(np.rint(x), 1, self.hi or np.inf).astype(np.int64)


@dataclass(frozen=True)
class StepModel:
    """Step times of one replica. prefill_s(tokens) = max(floor, fixed + per_token x tokens);
    decode_s(batch, context) = fixed + per_seq x batch + per_token x total context tokens."""

    prefill_fixed_s: float
    prefill_per_token_s: float
    decode_fixed_s: float
    decode_per_token_s: float
    decode_per_seq_s: float = 0.0
    prefill_floor_s: float = 0.0  # weights read once per step, however short the prompts
    tp: int = 1

    def prefill_s(self, tokens: float) -> float:
        return max(self.prefill_floor_s, self.prefill_fixed_s + self.prefill_per_token_s * tokens)

    def decode_s(self, batch: int, context_tokens: float) -> float:
        return (
            self.decode_fixed_s
            + self.decode_per_seq_s * batch
            + self.decode_per_token_s * context_tokens
        )


@dataclass(frozen=True, kw_only=True)
class ServingSpec:
    """Arrivals: "poisson" at rate_per_s, or "bursty": a two-state Markov-modulated Poisson
    process with the same mean rate, `burst_ratio` times faster in the high state than in the low
    one, in the high state `burst_share` of the time, staying there `burst_mean_s` on average."""

    rate_per_s: float
    step: StepModel
    kv_budget_tokens: int  # per replica: free memory / KV bytes per token; used in blocks
    prompt: LengthDist = field(default_factory=lambda: LengthDist.fixed(512))
    output: LengthDist = field(default_factory=lambda: LengthDist.fixed(128))
    arrival: Literal["poisson", "bursty"] = "poisson"
    burst_ratio: float = 4.0
    burst_share: float = 0.2
    burst_mean_s: float = 10.0
    replicas: int = 1
    max_batch: int = MAX_BATCH
    max_prefill_tokens: int = MAX_PREFILL_TOKENS
    block_tokens: int = BLOCK_TOKENS
    n_requests: int | None = None
    duration_s: float | None = None
    ttft_slo_ms: float | None = None
    tpot_slo_ms: float | None = None
    seed: int = 0

    def __post_init__(self) -> None:
        if self.rate_per_s <= 0:
            raise ValueError("rate_per_s must be positive")
        if (self.n_requests is None) == (self.duration_s is None):
            raise ValueError("give exactly one of n_requests and duration_s")
        if self.replicas < 1 or self.max_batch < 1 or self.block_tokens < 1:
            raise ValueError("replicas, max_batch and block_tokens must be at least 1")
        if self.arrival not in ("poisson", "bursty"):
            raise ValueError(f"unknown arrival process {self.arrival!r}")
        if self.arrival == "bursty" and not (0 < self.burst_share < 1 and self.burst_ratio >= 1):
            raise ValueError("bursty arrivals need 0 < burst_share < 1 and burst_ratio >= 1")


@dataclass(frozen=True)
class Slo:
    ttft_ms: float | None = None
    tpot_ms: float | None = None


@dataclass(frozen=True)
class ServingResult:
    requests: int
    completed: int
    rejected: int
    replicas: int
    duration_s: float
    throughput_rps: float
    output_tokens_per_s: float
    ttft_ms: dict
    tpot_ms: dict
    e2e_ms: dict
    slo: dict
    queue: dict  # t_s, waiting, running: sampled series; arrivals_end_s
    mean_decode_batch: float
    max_running: int
    events: int

    @property
    def attainment(self) -> float:
        return self.slo["attainment"]

    def as_dict(self) -> dict:
        out = dataclasses.asdict(self)
        out["model_version"] = MODEL_VERSION
        return out


# Arrivals and lengths ----------------------------------------------------------------------


def _poisson_times(rng: np.random.Generator, rate: float, n: int) -> np.ndarray:
    return np.cumsum(rng.standard_exponential(n) / rate)


def _mmpp_times(rng: np.random.Generator, spec: ServingSpec, horizon_s: float) -> np.ndarray:
    """Alternate exponential sojourns in the high and low states until `horizon_s`, then place
    a Poisson number of uniform arrivals in each sojourn."""
    share, ratio = spec.burst_share, spec.burst_ratio
    low_rate = spec.rate_per_s / (share * ratio + 1 - share)
    high_mean = spec.burst_mean_s
    low_mean = high_mean * (1 - share) / share
    pairs = int(horizon_s / (high_mean + low_mean) * 1.5) + 16
    sojourn = np.empty(2 * pairs)
    sojourn[0::2] = rng.exponential(low_mean, pairs)
    sojourn[1::2] = rng.exponential(high_mean, pairs)
    rates = np.tile([low_rate, low_rate * ratio], pairs)
    starts = np.concatenate(([0.0], np.cumsum(sojourn)[:-1]))
    counts = rng.poisson(rates * sojourn)
    times = np.repeat(starts, counts) + rng.random(counts.sum()) * np.repeat(sojourn, counts)
    times.sort()
    return times[times < horizon_s]


def draw_requests(spec: ServingSpec) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Arrival times (sorted, seconds), prompt and output lengths."""
    rng = np.random.default_rng(spec.seed)
    if spec.arrival == "poisson":
        if spec.n_requests is not None:
            times = _poisson_times(rng, spec.rate_per_s, spec.n_requests)
        else:
            n = int(spec.rate_per_s * spec.duration_s * 1.2 + 10 * math.sqrt(spec.rate_per_s))
            times = _poisson_times(rng, spec.rate_per_s, n + 16)
            while times[-1] < spec.duration_s:
                more = _poisson_times(rng, spec.rate_per_s, len(times))
                times = np.concatenate((times, times[-1] + more))
            times = times[times < spec.duration_s]
    else:
        horizon = (
            spec.duration_s or spec.n_requests / spec.rate_per_s * 1.3 + 10 * spec.burst_mean_s
        )
        times = _mmpp_times(rng, spec, horizon)
        while spec.n_requests is not None and len(times) < spec.n_requests:
            horizon *= 2
            times = _mmpp_times(rng, spec, horizon)
        if spec.n_requests is not None:
            times = times[: spec.n_requests]
    n = len(times)
    return times, spec.prompt.draw(rng, n), spec.output.draw(rng, n)


# The simulation -----------------------------------------------------------------------------


class _Replica:
    __slots__ = (
        "base",
        "batch",
        "decode_a",
        "dstep",
        "kv_free",
        "mode",
        "n",
        "run_steps",
        "running",
        "t0",
        "version",
        "waiting",
    )

    def __init__(self, kv_blocks: int) -> None:
        self.waiting: deque[int] = deque()
        self.running: list[tuple[int, int]] = []  # (decode step it finishes at, request)
        self.n = 0  # running requests
        self.base = 0  # sum of (prompt + 1 - decode step joined) over running requests
        self.dstep = 0  # decode steps done
        self.kv_free = kv_blocks
        self.mode = _IDLE
        self.batch: list[int] = []  # requests in the prefill step under way
        self.t0 = 0.0  # start of the decode run under way
        self.decode_a = 0.0  # its first step's time
        self.run_steps = 0  # its length in steps
        self.version = 0  # bumps whenever the scheduled boundary changes


def _percentiles(x: np.ndarray, scale: float = 1000.0) -> dict:
    if len(x) == 0:
        return {f"p{q}": None for q in PERCENTILES} | {"mean": None}
    p = np.percentile(x, PERCENTILES) * scale
    out = {f"p{q}": round(float(v), 4) for q, v in zip(PERCENTILES, p, strict=True)}
    out["mean"] = round(float(x.mean() * scale), 4)
    return out


def simulate_serving(spec: ServingSpec, *, progress: Progress = None) -> ServingResult:
    """Run the event loop (one function, state in locals: the hot path of a million-request
    run) and summarise."""
    report = progress or (lambda _fraction: None)
    arrivals, prompts, outputs = draw_requests(spec)
    n = len(arrivals)
    block = spec.block_tokens
    kv_blocks = spec.kv_budget_tokens // block
    blocks_np = -(-(prompts + outputs) // block)
    arr_t, prompt_of, output_of, blocks_of = (
        arrivals.tolist(),
        prompts.tolist(),
        outputs.tolist(),
        blocks_np.tolist(),
    )
    first_token = [math.nan] * n
    finished = [math.nan] * n
    contrib = [0] * n

    step = spec.step
    p_fixed, p_tok, p_floor = step.prefill_fixed_s, step.prefill_per_token_s, step.prefill_floor_s
    d_fixed, d_seq, d_tok = step.decode_fixed_s, step.decode_per_seq_s, step.decode_per_token_s
    max_batch, max_prefill = spec.max_batch, spec.max_prefill_tokens
    reps = [_Replica(kv_blocks) for _ in range(spec.replicas)]
    load = [0] * spec.replicas  # outstanding requests per replica
    events: list[tuple[float, int, int]] = []
    push, pop = heapq.heappush, heapq.heappop
    n_waiting = n_running = max_running = decode_steps = batch_steps = rejected = 0

    # Queue samples: every `dt` over the arrival window, continuing through the drain.
    horizon = arr_t[-1] if n else 0.0
    dt = horizon / QUEUE_SAMPLES if horizon > 0 else 1.0
    samples: list[tuple[float, int, int]] = []  # time, waiting, running
    next_sample = 0.0
    n_events = 0
    i = 0
    single = spec.replicas == 1
    inf = math.inf
    while True:
        t_arr = arr_t[i] if i < n else inf
        if events and events[0][0] <= t_arr:
            # A step boundary of replica r.
            t, r, version = pop(events)
            rep = reps[r]
            if version != rep.version:
                continue
            n_events += 1
            while t >= next_sample:
                samples.append((next_sample, n_waiting, n_running))
                next_sample += dt
            if rep.mode == _PREFILL:
                dstep = rep.dstep
                running = rep.running
                for rid in rep.batch:
                    first_token[rid] = t
                    out = output_of[rid]
                    if out <= 1:
                        finished[rid] = t
                        rep.kv_free += blocks_of[rid]
                        load[r] -= 1
                        n_running -= 1
                    else:
                        push(running, (dstep + out - 1, rid))
                        c = prompt_of[rid] + 1 - dstep
                        contrib[rid] = c
                        rep.base += c
                        rep.n += 1
                if rep.n > max_running:
                    max_running = rep.n
            else:  # the end of a decode run
                k = rep.run_steps
                decode_steps += k
                batch_steps += k * rep.n
                dstep = rep.dstep = rep.dstep + k
                running = rep.running
                while running and running[0][0] <= dstep:
                    rid = pop(running)[1]
                    finished[rid] = t
                    rep.kv_free += blocks_of[rid]
                    rep.base -= contrib[rid]
                    rep.n -= 1
                    load[r] -= 1
                    n_running -= 1
            # Next: a prefill step if the head of the queue fits, else a decode run up to the
            # next completion, else idle.
            waiting = rep.waiting
            n_run = rep.n
            if waiting and n_run < max_batch and blocks_of[waiting[0]] <= rep.kv_free:
                batch, tokens, room, free = [], 0, max_batch - n_run, rep.kv_free
                while waiting and room and blocks_of[waiting[0]] <= free:
                    head = waiting[0]
                    if batch and tokens + prompt_of[head] > max_prefill:
                        break
                    waiting.popleft()
                    batch.append(head)
                    tokens += prompt_of[head]
                    free -= blocks_of[head]
                    room -= 1
                rep.kv_free = free
                rep.batch = batch
                rep.mode = _PREFILL
                n_waiting -= len(batch)
                n_running += len(batch)
                rep.version = version = version + 1
                duration = p_fixed + p_tok * tokens
                push(events, (t + (duration if duration > p_floor else p_floor), r, version))
            elif n_run:
                k = running[0][0] - dstep
                a = d_fixed + d_seq * n_run + d_tok * (rep.base + n_run * dstep)
                rep.mode, rep.t0, rep.decode_a, rep.run_steps = _DECODE, t, a, k
                rep.version = version = version + 1
                push(events, (t + k * a + d_tok * n_run * k * (k - 1) / 2, r, version))
            else:
                rep.mode = _IDLE
            continue
        if i >= n:
            break
        # An arrival.
        t = t_arr
        n_events += 1
        while t >= next_sample:
            samples.append((next_sample, n_waiting, n_running))
            next_sample += dt
        if not i % PROGRESS_EVERY:
            report(0.99 * i / n)
        rid = i
        i += 1
        if blocks_of[rid] > kv_blocks:
            rejected += 1
            continue
        r = 0 if single else load.index(min(load))
        rep = reps[r]
        load[r] += 1
        mode = rep.mode
        if mode == _IDLE:
            # Idle means nothing runs and nothing waits: prefill this request alone, now.
            rep.kv_free -= blocks_of[rid]
            rep.batch = [rid]
            rep.mode = _PREFILL
            n_running += 1
            rep.version += 1
            duration = p_fixed + p_tok * prompt_of[rid]
            push(events, (t + (duration if duration > p_floor else p_floor), r, rep.version))
            continue
        n_waiting += 1
        waiting = rep.waiting
        was_empty = not waiting
        waiting.append(rid)
        if mode == _DECODE and was_empty and rep.n < max_batch and blocks_of[rid] <= rep.kv_free:
            # Cut the decode run at the first step boundary at or after t: the smallest j
            # with j a + c j (j - 1) / 2 >= t - t0, where c = per-token cost x batch.
            a, c, elapsed = rep.decode_a, d_tok * rep.n, t - rep.t0
            if c > 0:
                half = a - c / 2
                j = math.ceil((-half + math.sqrt(half * half + 2 * c * elapsed)) / c)
            else:
                j = math.ceil(elapsed / a) if a > 0 else 0
            j = max(j, 0)
            while j * a + c * j * (j - 1) / 2 < elapsed:
                j += 1
            while j > 0 and (j - 1) * a + c * (j - 1) * (j - 2) / 2 >= elapsed:
                j -= 1
            if j < rep.run_steps:
                rep.run_steps = j
                rep.version += 1
                push(events, (rep.t0 + j * a + c * j * (j - 1) / 2, r, rep.version))
    report(1.0)

    samples = samples or [(0.0, 0, 0)]
    stride = max(1, -(-len(samples) // MAX_QUEUE_POINTS))
    samples_t, samples_w, samples_r = (list(x) for x in zip(*samples[::stride], strict=True))
    return _result(
        spec=spec,
        arrivals=arrivals,
        outputs=outputs,
        first_token=np.array(first_token),
        finished=np.array(finished),
        rejected=rejected,
        queue={
            "t_s": [round(x, 3) for x in samples_t],
            "waiting": samples_w,
            "running": samples_r,
            "arrivals_end_s": round(horizon, 3),
        },
        mean_decode_batch=batch_steps / max(decode_steps, 1),
        max_running=max_running,
        events=n_events,
    )


def _result(
    *,
    spec: ServingSpec,
    arrivals: np.ndarray,
    outputs: np.ndarray,
    first_token: np.ndarray,
    finished: np.ndarray,
    rejected: int,
    queue: dict,
    mean_decode_batch: float,
    max_running: int,
    events: int,
) -> ServingResult:
    done = ~np.isnan(finished)
    n, completed = len(arrivals), int(done.sum())
    ttft = first_token[done] - arrivals[done]
    e2e = finished[done] - arrivals[done]
    out = outputs[done]
    multi = out > 1
    tpot = (finished[done][multi] - first_token[done][multi]) / (out[multi] - 1)
    span = float(finished[done].max() - arrivals[0]) if completed else 0.0
    meets_ttft = np.ones(completed, dtype=bool)
    meets_tpot = np.ones(completed, dtype=bool)
    if spec.ttft_slo_ms is not None:
        meets_ttft = ttft * 1000 <= spec.ttft_slo_ms
    if spec.tpot_slo_ms is not None:
        # A one-token answer has no time per output token; it meets any TPOT bound.
        tpot_all = np.zeros(completed)
        tpot_all[multi] = tpot
        meets_tpot = tpot_all * 1000 <= spec.tpot_slo_ms
    # Rejected requests count against attainment.
    share = (lambda ok: round(float(ok.sum()) / n, 6)) if n else (lambda ok: 1.0)
    return ServingResult(
        requests=n,
        completed=completed,
        rejected=rejected,
        replicas=spec.replicas,
        duration_s=round(span, 6),
        throughput_rps=round(completed / span, 6) if span > 0 else 0.0,
        output_tokens_per_s=round(float(out.sum()) / span, 3) if span > 0 else 0.0,
        ttft_ms=_percentiles(ttft),
        tpot_ms=_percentiles(tpot),
        e2e_ms=_percentiles(e2e),
        slo={
            "ttft_ms": spec.ttft_slo_ms,
            "tpot_ms": spec.tpot_slo_ms,
            "attainment": share(meets_ttft & meets_tpot),
            "ttft_attainment": share(meets_ttft),
            "tpot_attainment": share(meets_tpot),
        },
        queue=queue,
        mean_decode_batch=round(mean_decode_batch, 4),
        max_running=max_running,
        events=events,
    )


# Capacity search ----------------------------------------------------------------------------


@dataclass(frozen=True)
class ReplicaSearch:
    replicas: int | None  # None: even max_replicas misses the SLO
    attainment: float | None
    tried: tuple  # (replicas, attainment) pairs in the order run


def replicas_for_slo(
    spec: ServingSpec,
    target_rate: float,
    slo: Slo,
    max_replicas: int = 256,
    *,
    attainment: float = 0.99,
    progress: Progress = None,
) -> ReplicaSearch:
    """Fewest replicas whose SLO attainment at `target_rate` reaches `attainment`: double from
    one until a count passes, then bisect between the last failure and the first pass.
    Attainment is taken as non-decreasing in replicas (common random numbers make it so in
    practice)."""
    if max_replicas < 1:
        raise ValueError("max_replicas must be at least 1")
    report = progress or (lambda _fraction: None)
    base = dataclasses.replace(
        spec, rate_per_s=target_rate, ttft_slo_ms=slo.ttft_ms, tpot_slo_ms=slo.tpot_ms
    )
    tried: list[tuple[int, float]] = []
    budget = 2 * math.ceil(math.log2(max_replicas)) + 2

    def attained(replicas: int) -> float:
        value = simulate_serving(dataclasses.replace(base, replicas=replicas)).attainment
        tried.append((replicas, value))
        report(min(0.99, len(tried) / budget))
        return value

    lo, hi, hi_value = 0, None, None
    count = 1
    while count <= max_replicas:
        value = attained(count)
        if value >= attainment:
            hi, hi_value = count, value
            break
        lo = count
        if count == max_replicas:
            break
        count = min(2 * count, max_replicas)
    if hi is None:
        report(1.0)
        return ReplicaSearch(replicas=None, attainment=None, tried=tuple(tried))
    while hi - lo > 1:
        mid = (lo + hi) // 2
        value = attained(mid)
        if value >= attainment:
            hi, hi_value = mid, value
        else:
            lo = mid
    report(1.0)
    return ReplicaSearch(replicas=hi, attainment=hi_value, tried=tuple(tried))
