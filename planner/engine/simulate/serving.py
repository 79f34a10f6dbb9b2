"""Discrete-event simulation of LLM serving with continuous batching under a paged KV cache
(the scheduler is described in `scheduler`), its summary (throughput, TTFT/TPOT/end-to-end
percentiles, SLO attainment, the queue over time), and the fewest replicas that meet an SLO.

Arrivals and lengths are drawn up front from the seed alone (`arrivals`), so runs that differ
only in replicas see the same requests (common random numbers).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from planner.engine.simulate import scheduler
from planner.engine.simulate.arrivals import draw_requests
from planner.engine.simulate.serving_spec import ServingSpec, Slo
from planner.engine.version import MODEL_VERSION

Progress = Callable[[float], None] | None

MAX_QUEUE_POINTS = 500
PERCENTILES = (50, 90, 99)


@dataclass(frozen=True)
class ServingResult:
    requests: int
    completed: int
    rejected: int
    replicas: int
    duration_s: float
    throughput_rps: float
    output_tokens_per_s: float
    ttft_ms: dict[str, float | None]
    tpot_ms: dict[str, float | None]
    e2e_ms: dict[str, float | None]
    slo: dict[str, float | None]
    queue: dict[str, Any]  # t_s, waiting, running: sampled series; arrivals_end_s
    mean_decode_batch: float
    max_running: int
    events: int

    @property
    def attainment(self) -> float:
        """The share of all requests that met every SLO bound."""
        share = self.slo["attainment"]
        assert share is not None  # always a figure; only the bounds themselves may be None
        return share

    def as_dict(self) -> dict[str, Any]:
        out = dataclasses.asdict(self)
        out["model_version"] = MODEL_VERSION
        return out


def simulate_serving(spec: ServingSpec, *, progress: Progress = None) -> ServingResult:
    """Draw the requests, run the event loop and summarise."""
    report = progress or (lambda _fraction: None)
    arrivals, prompts, outputs = draw_requests(spec)
    trace = scheduler.run(spec, arrivals, prompts, outputs, report)
    report(1.0)
    return _result(spec=spec, arrivals=arrivals, outputs=outputs, trace=trace)


# Summary ------------------------------------------------------------------------------------


def _percentiles(x: npt.NDArray[np.float64], scale: float = 1000.0) -> dict[str, float | None]:
    """p50, p90, p99 and the mean, in milliseconds by default; None where nothing completed."""
    out: dict[str, float | None]
    if len(x) == 0:
        out = {f"p{q}": None for q in PERCENTILES}
        out["mean"] = None
        return out
    p = np.percentile(x, PERCENTILES) * scale
    out = {f"p{q}": round(float(v), 4) for q, v in zip(PERCENTILES, p, strict=True)}
    out["mean"] = round(float(x.mean() * scale), 4)
    return out


def _queue(trace: scheduler.Trace) -> dict[str, Any]:
    """The sampled queue, thinned to at most MAX_QUEUE_POINTS points."""
    samples = trace.samples or [(0.0, 0, 0)]
    stride = max(1, -(-len(samples) // MAX_QUEUE_POINTS))
    samples_t, samples_w, samples_r = (list(x) for x in zip(*samples[::stride], strict=True))
    return {
        "t_s": [round(x, 3) for x in samples_t],
        "waiting": samples_w,
        "running": samples_r,
        "arrivals_end_s": round(trace.arrivals_end_s, 3),
    }


def _slo(
    spec: ServingSpec,
    *,
    ttft: npt.NDArray[np.float64],
    tpot: npt.NDArray[np.float64],
    multi: npt.NDArray[np.bool_],
    n: int,
) -> dict[str, float | None]:
    """Shares of all requests that completed within each bound; rejected requests count
    against attainment."""
    completed = len(ttft)
    meets_ttft = np.ones(completed, dtype=bool)
    meets_tpot = np.ones(completed, dtype=bool)
    if spec.ttft_slo_ms is not None:
        meets_ttft = ttft * 1000 <= spec.ttft_slo_ms
    if spec.tpot_slo_ms is not None:
        # A one-token answer has no time per output token; it meets any TPOT bound.
        tpot_all = np.zeros(completed)
        tpot_all[multi] = tpot
        meets_tpot = tpot_all * 1000 <= spec.tpot_slo_ms

    def share(ok: npt.NDArray[np.bool_]) -> float:
        return round(float(ok.sum()) / n, 6) if n else 1.0

    return {
        "ttft_ms": spec.ttft_slo_ms,
        "tpot_ms": spec.tpot_slo_ms,
        "attainment": share(meets_ttft & meets_tpot),
        "ttft_attainment": share(meets_ttft),
        "tpot_attainment": share(meets_tpot),
    }


def _result(
    *,
    spec: ServingSpec,
    arrivals: npt.NDArray[np.float64],
    outputs: npt.NDArray[np.int64],
    trace: scheduler.Trace,
) -> ServingResult:
    first_token, finished = trace.first_token, trace.finished
    done = ~np.isnan(finished)
    n, completed = len(arrivals), int(done.sum())
    ttft = first_token[done] - arrivals[done]
    e2e = finished[done] - arrivals[done]
    out = outputs[done]
    multi = out > 1
    tpot = (finished[done][multi] - first_token[done][multi]) / (out[multi] - 1)
    span = float(finished[done].max() - arrivals[0]) if completed else 0.0
    return ServingResult(
        requests=n,
        completed=completed,
        rejected=trace.rejected,
        replicas=spec.replicas,
        duration_s=round(span, 6),
        throughput_rps=round(completed / span, 6) if span > 0 else 0.0,
        output_tokens_per_s=round(float(out.sum()) / span, 3) if span > 0 else 0.0,
        ttft_ms=_percentiles(ttft),
        tpot_ms=_percentiles(tpot),
        e2e_ms=_percentiles(e2e),
        slo=_slo(spec, ttft=ttft, tpot=tpot, multi=multi, n=n),
        queue=_queue(trace),
        mean_decode_batch=round(trace.mean_decode_batch, 4),
        max_running=trace.max_running,
        events=trace.events,
    )


# Capacity search ----------------------------------------------------------------------------


@dataclass(frozen=True)
class ReplicaSearch:
    replicas: int | None  # None: even max_replicas misses the SLO
    attainment: float | None
    tried: tuple[tuple[int, float], ...]  # (replicas, attainment) pairs in the order run


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
