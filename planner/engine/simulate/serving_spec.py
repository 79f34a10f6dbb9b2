"""What a serving simulation is asked: the arrival process, the prompt and output lengths, one
replica's step times and KV-cache budget, the scheduler's limits and the SLO."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from planner.engine.arrays import Ints
from planner.engine.replica import BLOCK_TOKENS, StepModel

MAX_BATCH = 256  # vLLM's default max_num_seqs
# vLLM v0 without chunked prefill sets max_num_batched_tokens to max(max_model_len, 2048): 8,192
# for a model served at an 8k context.
MAX_PREFILL_TOKENS = 8192


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

    def draw(self, rng: np.random.Generator, n: int) -> Ints:
        """`n` token counts."""
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
        counts: Ints = np.clip(np.rint(x), 1, self.hi or np.inf).astype(np.int64)
        return counts


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
