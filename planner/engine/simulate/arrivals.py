"""Arrival times and request lengths of a serving simulation, drawn up front with numpy from the
seed alone, so runs that differ only in replicas see the same requests (common random numbers)."""

from __future__ import annotations

import math

import numpy as np

from planner.engine.arrays import Floats, Ints
from planner.engine.simulate.serving_spec import ServingSpec


def _poisson_times(rng: np.random.Generator, rate: float, n: int) -> Floats:
    times: Floats = np.cumsum(rng.standard_exponential(n) / rate)
    return times


def _mmpp_times(rng: np.random.Generator, spec: ServingSpec, horizon_s: float) -> Floats:
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
    kept: Floats = times[times < horizon_s]
    return kept


def _poisson_arrivals(rng: np.random.Generator, spec: ServingSpec) -> Floats:
    if spec.n_requests is not None:
        return _poisson_times(rng, spec.rate_per_s, spec.n_requests)
    duration = spec.duration_s
    assert duration is not None  # a ServingSpec has exactly one of n_requests and duration_s
    n = int(spec.rate_per_s * duration * 1.2 + 10 * math.sqrt(spec.rate_per_s))
    times = _poisson_times(rng, spec.rate_per_s, n + 16)
    while times[-1] < duration:
        more = _poisson_times(rng, spec.rate_per_s, len(times))
        times = np.concatenate((times, times[-1] + more))
    return times[times < duration]


def _bursty_arrivals(rng: np.random.Generator, spec: ServingSpec) -> Floats:
    if spec.duration_s:
        horizon = spec.duration_s
    else:
        assert spec.n_requests is not None  # a ServingSpec has one of the two
        horizon = spec.n_requests / spec.rate_per_s * 1.3 + 10 * spec.burst_mean_s
    times = _mmpp_times(rng, spec, horizon)
    while spec.n_requests is not None and len(times) < spec.n_requests:
        horizon *= 2
        times = _mmpp_times(rng, spec, horizon)
    if spec.n_requests is not None:
        times = times[: spec.n_requests]
    return times


def draw_requests(spec: ServingSpec) -> tuple[Floats, Ints, Ints]:
    """Arrival times (sorted, seconds), prompt and output lengths."""
    rng = np.random.default_rng(spec.seed)
    if spec.arrival == "poisson":
        times = _poisson_arrivals(rng, spec)
    else:
        times = _bursty_arrivals(rng, spec)
    n = len(times)
    return times, spec.prompt.draw(rng, n), spec.output.draw(rng, n)
