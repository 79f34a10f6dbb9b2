"""Every compared figure of the validation table as one observation (its row, source, job,
metric, framework, split and signed error), and the accuracy of each source group.

A source group is one source's rows of one job and one metric: training throughput, training
memory, decode and prefill are counted apart, as the issue's bar (median error at most 8 % on
the held-out rows of each group of at least eight rows) asks."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from planner.validation.measured import MeasuredOutcome
from planner.validation.public import Outcome
from planner.validation.public_inference import InferenceOutcome

JOBS = ("training", "inference")
# What the engine's answer is judged on, by the figure a row measures.
METRICS = ("throughput", "memory", "decode", "prefill")
MEASURED_METRICS = {
    "tokens_per_s": "throughput",
    "peak_reserved_gib": "memory",
    "tpot_s": "decode",
    "prefill_s": "prefill",
}
# The bar for a source group.
MIN_GROUP_ROWS = 8
TARGET_MEDIAN = 0.08
# A row off by more than this carries a written reason.
REASON_ABOVE = 0.25


@dataclass(frozen=True)
class Observation:
    row: str
    source: str
    job: str
    metric: str
    framework: str
    split: str
    error: float
    reason: str = ""

    @property
    def held_out(self) -> bool:
        return self.split == "held_out"


def job_of(task: str) -> str:
    """Pre-training and fine-tuning are both training jobs; serving is inference."""
    return "inference" if task == "inference" else "training"


def _framework(request) -> str:
    return request.framework or "megatron"


def observations(
    public: Iterable[Outcome] = (),
    measured: Iterable[MeasuredOutcome] = (),
    inference: Iterable[InferenceOutcome] = (),
) -> list[Observation]:
    found = [
        Observation(
            o.case.id,
            o.case.source,
            "training",
            "throughput",
            _framework(o.case.request),
            o.case.split,
            o.error,
            o.case.reason,
        )
        for o in public
    ]
    for m in measured:
        for figure, metric in MEASURED_METRICS.items():
            error = m.error(figure)
            if error is not None:
                job = job_of(m.case.request.task)
                found.append(
                    Observation(
                        m.case.id,
                        m.case.source,
                        job,
                        metric,
                        m.case.band_framework,
                        m.case.split,
                        error,
                        m.case.reason,
                    )
                )
    found += [
        Observation(
            i.case.id,
            i.case.source,
            "inference",
            "decode",
            i.case.framework,
            i.case.split,
            i.error,
            i.case.reason,
        )
        for i in inference
    ]
    return found


def percentile(values: Sequence[float], share: float) -> float:
    """The `share` quantile (0-1) of `values`, linear between the two nearest ranks."""
    if not values:
        raise ValueError("percentile of no values")
    ordered = sorted(values)
    position = share * (len(ordered) - 1)
    low, high = math.floor(position), math.ceil(position)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


@dataclass(frozen=True)
class GroupAccuracy:
    source: str
    job: str
    metric: str
    rows: int
    held_out_rows: int
    median: float
    worst: float
    held_out_median: float | None
    held_out_worst: float | None

    @property
    def judged(self) -> bool:
        """A group the bar applies to: at least eight held-out rows."""
        return self.held_out_rows >= MIN_GROUP_ROWS

    @property
    def meets(self) -> bool | None:
        if not self.judged or self.held_out_median is None:
            return None
        return self.held_out_median <= TARGET_MEDIAN


def group_accuracy(found: Iterable[Observation]) -> list[GroupAccuracy]:
    """Each source's accuracy per job and metric, in a stable order."""
    by_group: dict[tuple[str, str, str], list[Observation]] = defaultdict(list)
    for o in found:
        by_group[(o.source, o.job, o.metric)].append(o)
    result = []
    for (source, job, metric), rows in sorted(by_group.items()):
        errors = [abs(o.error) for o in rows]
        held = [abs(o.error) for o in rows if o.held_out]
        result.append(
            GroupAccuracy(
                source=source,
                job=job,
                metric=metric,
                rows=len(rows),
                held_out_rows=len(held),
                median=percentile(errors, 0.5),
                worst=max(errors),
                held_out_median=percentile(held, 0.5) if held else None,
                held_out_worst=max(held) if held else None,
            )
        )
    return result


def unexplained(found: Iterable[Observation]) -> list[Observation]:
    """Rows off by more than 25 % with no written reason."""
    return [o for o in found if abs(o.error) > REASON_ABOVE and not o.reason]
