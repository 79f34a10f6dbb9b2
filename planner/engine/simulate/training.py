"""Monte Carlo of a training campaign under failures, checkpoints, throttling and stragglers.

The model (one trial): the job needs `work_s` seconds of failure-free compute. It is cut into
segments of `checkpoint_interval_s` of useful work, each followed by a checkpoint write of
`checkpoint_write_s` (none after the last segment: the job ends there). Failures arrive as a
Poisson process of rate N x lambda while the job runs (computing or writing); each one throws
away everything since the last completed checkpoint, a write in progress included, then costs
`detect_s + restart_s` of downtime during which no further failure is counted (first-order, as in
Young 1974 and Daly 2006). By memorylessness the time to the next failure is exponential after
every restart, so a trial is a sequence of "rounds": draw one failure time, finish as many whole
segments as fit before it, lose the rest. The rounds run for all trials at once in numpy; the
loop is over rounds (a few hundred for a month on 16k GPUs), not over events of each trial.

Throttling and stragglers stretch compute time, not checkpoint writes. Stragglers are a fixed
slowdown; throttle episodes arrive as a Poisson process over each trial's failure-free compute
time, last an exponential time each, and lose `throttle_slowdown` of throughput while they last.
Each trial's episodes are folded into one stretch factor of its compute time, so re-executed work
after a failure is stretched alike (an approximation that keeps the rounds vectorised).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from planner.engine.efficiency import young_daly_interval_s
from planner.engine.version import MODEL_VERSION

DAY_S = 86_400.0
HOUR_S = 3_600.0
PERCENTILES = (50, 90, 99)
# The interval search: log-spaced between 0.1x and 10x Young/Daly; 25 points put 1.0x in the
# middle and step by 21 %, then a smooth fit around the best point refines between grid points.
GRID_SPAN = 10.0
GRID_POINTS = 25
GRID_FIT_HALF_WIDTH = 4  # grid points each side of the best one used by the fit
MIN_GRID_TRIALS = 500
HISTOGRAM_BINS = 40
EXACT_SUM_MAX = 32  # failures in one trial's segments whose lost work is drawn one by one
MIN_SEGMENT_SUCCESS = 1e-12  # floor on the chance that one attempt at a segment completes

Progress = Callable[[float], None] | None


@dataclass(frozen=True, kw_only=True)
class CampaignSpec:
    """One training campaign. Rates are per GPU-hour and per hour; durations in seconds.

    Default failure rate: Llama 3 saw 419 unexpected interruptions in 54 days on 16,384 H100s
    (Dubey et al. 2024, section 3.3.4), 419 / (54 x 24 x 16,384) = 2e-5 per GPU-hour."""

    devices: int
    work_s: float
    checkpoint_write_s: float
    failures_per_gpu_hour: float = 2.0e-5
    detect_s: float = 60.0
    restart_s: float = 600.0
    checkpoint_interval_s: float | None = None  # None: Young/Daly
    throttle_episodes_per_hour: float = 0.0
    throttle_slowdown: float = 0.0  # share of throughput lost during an episode
    throttle_mean_s: float = 0.0
    straggler_slowdown: float = 0.0  # share of throughput lost to the slowest ranks, always
    trials: int = 10_000
    grid_trials: int | None = None  # None: max(500, trials // 5); 0: skip the interval search
    seed: int = 0

    def __post_init__(self) -> None:
        if self.devices < 1:
            raise ValueError("devices must be at least 1")
        if self.work_s <= 0:
            raise ValueError("work_s must be positive")
        if self.trials < 1:
            raise ValueError("trials must be at least 1")
        for name in (
            "checkpoint_write_s",
            "failures_per_gpu_hour",
            "detect_s",
            "restart_s",
            "throttle_episodes_per_hour",
            "throttle_mean_s",
        ):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must not be negative")
        for name in ("throttle_slowdown", "straggler_slowdown"):
            if not 0 <= getattr(self, name) < 1:
                raise ValueError(f"{name} must lie in [0, 1)")
        if self.checkpoint_interval_s is not None and self.checkpoint_interval_s <= 0:
            raise ValueError("checkpoint_interval_s must be positive")
        if self.failures_per_gpu_hour > 0 and self.checkpoint_write_s <= 0:
            raise ValueError("checkpoint_write_s must be positive when failures occur")

    @property
    def failure_rate_per_s(self) -> float:
        return self.devices * self.failures_per_gpu_hour / HOUR_S

    @property
    def mtbf_s(self) -> float:
        rate = self.failure_rate_per_s
        return 1 / rate if rate > 0 else math.inf

    @property
    def young_daly_s(self) -> float:
        """sqrt(2 x write time x MTBF); infinite (never checkpoint) without failures."""
        if math.isinf(self.mtbf_s):
            return math.inf
        return young_daly_interval_s(self.checkpoint_write_s, self.mtbf_s)

    @property
    def interval_s(self) -> float:
        """The interval simulated: the given one, else Young/Daly, never longer than the job."""
        chosen = self.checkpoint_interval_s or self.young_daly_s
        return min(chosen, self.work_s) if chosen > 0 else self.work_s


@dataclass(frozen=True)
class CampaignResult:
    trials: int
    work_s: float
    completion_s: dict[str, float]  # p50, p90, p99, mean
    completion_days: dict[str, float]
    goodput: float  # work_s / mean completion
    lost_s: dict[str, float]  # mean seconds by cause
    failures_mean: float
    checkpoint_interval_s: float
    young_daly_interval_s: float | None
    best_interval_s: float | None
    best_completion_s: float | None
    interval_grid: dict[str, Any] = field(default_factory=dict)  # interval_s, mean_completion_s
    histogram: dict[str, list[float] | list[int]] = field(
        default_factory=dict
    )  # days edges and counts
    mtbf_s: float | None = None
    events: int = 0  # failures and completed checkpoints over all trials

    def as_dict(self) -> dict[str, Any]:
        out = {k: getattr(self, k) for k in self.__dataclass_fields__}
        out["model_version"] = MODEL_VERSION
        return out


def _finite(x: float) -> float | None:
    return None if math.isinf(x) else float(x)


def _segments(work_s: float, interval_s: npt.ArrayLike) -> npt.NDArray[np.int64]:
    """Segments of useful work; a checkpoint follows all but the last."""
    return np.maximum(1, np.ceil(work_s / np.asarray(interval_s, dtype=float) - 1e-9)).astype(
        np.int64
    )


def _stretch(
    spec: CampaignSpec, rng: np.random.Generator, trials: int
) -> tuple[np.ndarray, np.ndarray]:
    """Per-trial factor on compute time, 1/(1 - straggler) x (1 + throttled share of time x
    throttle slowdown), and the number of throttle episodes of each trial."""
    straggled = 1 / (1 - spec.straggler_slowdown)
    base = np.full(trials, straggled)
    if spec.throttle_episodes_per_hour <= 0 or spec.throttle_slowdown <= 0:
        return base, np.zeros(trials, dtype=np.int64)
    compute_s = spec.work_s * straggled
    episodes = rng.poisson(spec.throttle_episodes_per_hour * compute_s / HOUR_S, size=trials)
    throttled_s = np.zeros(trials)
    some = episodes > 0
    # The sum of n exponential durations is Gamma(n, mean).
    throttled_s[some] = rng.gamma(episodes[some], max(spec.throttle_mean_s, 1e-12))
    extra = spec.throttle_slowdown * np.minimum(throttled_s, compute_s) / compute_s
    return base * (1 + extra), episodes


def _lost_sum(
    rng: np.random.Generator, counts: npt.NDArray[np.int64], rate: float, length: np.ndarray
) -> np.ndarray:
    """Per entry, the sum of `counts` failure times drawn from Exp(rate) conditioned to fall
    within a segment of `length` seconds: the work each failure throws away. Up to
    EXACT_SUM_MAX failures are drawn one by one (inverse CDF); more are summed by the central
    limit theorem, with the truncated exponential's mean 1/rate - L/(e^(rate L) - 1) and
    variance 1/rate^2 - L^2 e^(rate L)/(e^(rate L) - 1)^2, held within [0, counts x L]."""
    out = np.zeros(counts.shape)
    few = (counts > 0) & (counts <= EXACT_SUM_MAX)
    if few.any():
        reps = counts[few]
        within = np.repeat(length[few], reps)
        u = rng.random(len(within))
        draws = -np.log1p(u * np.expm1(-rate * within)) / rate
        starts = np.concatenate(([0], np.cumsum(reps)[:-1]))
        out[few] = np.add.reduceat(draws, starts)
    many = counts > EXACT_SUM_MAX
    if many.any():
        n, seg = counts[many], length[many]
        grown = np.expm1(rate * seg)
        mean = 1 / rate - seg / grown
        var = np.maximum(1 / rate**2 - seg**2 * (grown + 1) / grown**2, 0.0)
        out[many] = np.clip(rng.normal(n * mean, np.sqrt(n * var)), 0.0, n * seg)
    return out


def _rounds(
    *,
    intervals: np.ndarray,
    stretch: np.ndarray,
    spec: CampaignSpec,
    rng: np.random.Generator,
    progress: Callable[[float], None],
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Completion time, lost work and failures, shape (len(intervals), len(stretch)).

    Row r simulates interval r; column t is trial t. A segment of wall time L is attempted
    until one attempt runs a whole L without a failure, which happens with probability
    p = exp(-rate L); the failures before that are geometric, and over a trial's k equal
    segments negative binomial (k, p). So each trial draws its failure count per kind of
    segment (the equal ones, and the shorter last one) and the work those failures lose
    (`_lost_sum`), instead of one round per failure: the cost is the same for a thousand
    failures as for one, and a campaign on 131k GPUs costs no more per trial than on 1k."""
    progress(0.0)
    rows, cols = len(intervals), len(stretch)
    shape = (rows, cols)
    segments = _segments(spec.work_s, intervals)
    seg_wall = intervals[:, None] * stretch[None, :] + spec.checkpoint_write_s
    last_wall = (spec.work_s - (segments - 1) * intervals)[:, None] * stretch[None, :]
    regular = np.broadcast_to((segments - 1)[:, None], shape)
    failures_regular = np.zeros(shape, dtype=np.int64)
    failures_last = np.zeros(shape, dtype=np.int64)
    lost = np.zeros(shape)
    rate = spec.failure_rate_per_s
    if rate > 0:
        # A segment many times the mean time between failures almost never completes; the
        # floor keeps its success probability a number numpy can draw from.
        p_seg = np.maximum(np.exp(-rate * seg_wall), MIN_SEGMENT_SUCCESS)
        p_last = np.maximum(np.exp(-rate * last_wall), MIN_SEGMENT_SUCCESS)
        some = regular > 0
        failures_regular[some] = rng.negative_binomial(regular[some], p_seg[some])
        failures_last = rng.geometric(p_last) - 1
        lost = _lost_sum(rng, failures_regular, rate, seg_wall)
        lost += _lost_sum(rng, failures_last, rate, last_wall)
    failures = failures_regular + failures_last
    down = spec.detect_s + spec.restart_s
    completion = regular * seg_wall + last_wall + lost + failures * down
    progress(1.0)
    return completion, lost, failures


def _best_interval(grid: np.ndarray, means: np.ndarray) -> tuple[float, float]:
    """Refine the grid's best point: least squares of c0 + c1/x + c2 x + c3 x^2 (Young's
    expansion plus the next term) over the neighbouring points, minimised on a fine grid
    between the best point's neighbours. Falls back to the grid point if the fit is not convex."""
    best = int(np.argmin(means))
    lo, hi = max(0, best - GRID_FIT_HALF_WIDTH), min(len(grid), best + GRID_FIT_HALF_WIDTH + 1)
    x, y = grid[lo:hi], means[lo:hi]
    if len(x) < 5:
        return float(grid[best]), float(means[best])
    scale = grid[best]
    u = x / scale
    basis = np.stack([np.ones_like(u), 1 / u, u, u**2], axis=1)
    coef, *_ = np.linalg.lstsq(basis, y, rcond=None)
    fine = np.geomspace(grid[max(0, best - 1)], grid[min(len(grid) - 1, best + 1)], 201) / scale
    fitted = coef[0] + coef[1] / fine + coef[2] * fine + coef[3] * fine**2
    if coef[1] <= 0:
        return float(grid[best]), float(means[best])
    i = int(np.argmin(fitted))
    return float(fine[i] * scale), float(fitted[i])


def _stats(x: npt.NDArray[np.float64], scale: float = 1.0) -> dict[str, float]:
    p = np.percentile(x, PERCENTILES) / scale
    out = {f"p{q}": round(float(v), 6) for q, v in zip(PERCENTILES, p, strict=True)}
    out["mean"] = round(float(x.mean() / scale), 6)
    return out


def _lost_time(
    spec: CampaignSpec, *, stretch: np.ndarray, lost: np.ndarray, failures: np.ndarray
) -> dict[str, float]:
    """Mean seconds lost per trial, by cause."""
    checkpoints = int(_segments(spec.work_s, spec.interval_s)) - 1
    straggled = 1 / (1 - spec.straggler_slowdown)
    return {
        "checkpointing": checkpoints * spec.checkpoint_write_s,
        "lost_work": float(lost.mean()),
        "detection_restart": float(failures.mean()) * (spec.detect_s + spec.restart_s),
        "throttling": float(spec.work_s * (stretch - straggled).mean()),
        "stragglers": spec.work_s * (straggled - 1),
    }


def _interval_search(
    spec: CampaignSpec, rng: np.random.Generator, progress: Callable[[float], None]
) -> tuple[dict[str, Any], float, float]:
    """Mean completion over a log grid of intervals around Young/Daly, on fewer trials, and
    the best interval refined between grid points: (grid, best interval, its completion)."""
    grid_trials = spec.grid_trials or max(MIN_GRID_TRIALS, spec.trials // 5)
    young_daly = spec.young_daly_s
    grid = np.geomspace(young_daly / GRID_SPAN, young_daly * GRID_SPAN, GRID_POINTS)
    grid = np.minimum(grid, spec.work_s)
    grid_stretch, _ = _stretch(spec, rng, grid_trials)
    grid_completion, _, _ = _rounds(
        intervals=grid, stretch=grid_stretch, spec=spec, rng=rng, progress=progress
    )
    means = grid_completion.mean(axis=1)
    best_s, best_completion = _best_interval(grid, means)
    grid_result = {
        "interval_s": [round(float(v), 3) for v in grid],
        "mean_completion_s": [round(float(v), 3) for v in means],
        "trials": grid_trials,
    }
    return grid_result, best_s, best_completion


def simulate_campaign(spec: CampaignSpec, *, progress: Progress = None) -> CampaignResult:
    """Run `spec.trials` trials at the chosen interval, then the interval search."""
    report = progress or (lambda _fraction: None)
    main_rng, grid_rng = (
        np.random.default_rng(s) for s in np.random.SeedSequence(spec.seed).spawn(2)
    )
    searching = spec.failure_rate_per_s > 0 and spec.grid_trials != 0
    main_share = 0.6 if searching else 1.0

    stretch, _ = _stretch(spec, main_rng, spec.trials)
    interval = spec.interval_s
    completion, lost, failures = _rounds(
        intervals=np.array([interval]),
        stretch=stretch,
        spec=spec,
        rng=main_rng,
        progress=lambda f: report(main_share * f),
    )
    completion, lost, failures = completion[0], lost[0], failures[0]
    lost_s = _lost_time(spec, stretch=stretch, lost=lost, failures=failures)

    grid_result: dict[str, Any] = {}
    best_s = best_completion = None
    if searching:
        grid_result, best_s, best_completion = _interval_search(
            spec, grid_rng, lambda f: report(main_share + (1 - main_share) * f)
        )
    report(1.0)

    counts, edges = np.histogram(completion / DAY_S, bins=HISTOGRAM_BINS)
    checkpoints = int(_segments(spec.work_s, interval)) - 1
    return CampaignResult(
        trials=spec.trials,
        work_s=spec.work_s,
        completion_s=_stats(completion),
        completion_days=_stats(completion, DAY_S),
        goodput=round(spec.work_s / float(completion.mean()), 6),
        lost_s={k: round(v, 3) for k, v in lost_s.items()},
        failures_mean=round(float(failures.mean()), 4),
        checkpoint_interval_s=round(interval, 3),
        young_daly_interval_s=_finite(spec.young_daly_s),
        best_interval_s=best_s,
        best_completion_s=best_completion,
        interval_grid=grid_result,
        histogram={"days_edges": edges.round(6).tolist(), "counts": counts.tolist()},
        mtbf_s=_finite(spec.mtbf_s),
        events=int(failures.sum()) + checkpoints * spec.trials,
    )
