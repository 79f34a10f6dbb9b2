"""Accuracy of the engine per source group of the validation table: the published training
runs (planner/validation/public.py), the published inference runs
(planner/validation/public_inference.py) and the runs measured on an H200
(planner/validation/measured.py), each job and metric counted apart (training throughput,
training memory, decode, prefill), with the `fits` verdicts."""

from __future__ import annotations

from planner.validation.groups import (
    MIN_GROUP_ROWS,
    REASON_ABOVE,
    GroupAccuracy,
    group_accuracy,
    observations,
    unexplained,
)
from planner.validation.measured import METRICS, MeasuredOutcome
from planner.validation.public import Outcome
from planner.validation.public_inference import InferenceOutcome

LABELS = {
    "tokens_per_s": "train tokens/s",
    "peak_reserved_gib": "train peak memory",
    "tpot_s": "decode time/token",
    "prefill_s": "prefill time",
}


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f} %"


def _verdict(group: GroupAccuracy) -> str:
    if not group.judged:
        return f"not judged (< {MIN_GROUP_ROWS} held-out)"
    return "meets 8 %" if group.meets else "misses 8 %"


def source_table(
    public: list[Outcome],
    measured: list[MeasuredOutcome],
    inference: list[InferenceOutcome] | None = None,
) -> str:
    """Accuracy per source group (one source's rows of one job and metric), with row counts,
    the held-out median and worst, and whether each group of at least eight held-out rows
    meets the 8 % bar; then the fits verdicts and the rows off by more than 25 % that carry no
    written reason."""
    found = observations(public, measured, inference or [])
    head = (
        f"{'source':<52} {'job':<9} {'metric':<10} {'rows':>4} {'held':>4} "
        f"{'median':>8} {'held med':>8} {'held max':>8}  bar"
    )
    lines = [head, "-" * (len(head) + 28)]
    groups = group_accuracy(found)
    for g in groups:
        lines.append(
            f"{g.source[:52]:<52} {g.job:<9} {g.metric:<10} {g.rows:>4} {g.held_out_rows:>4} "
            f"{_pct(g.median):>8} {_pct(g.held_out_median):>8} {_pct(g.held_out_worst):>8}  "
            f"{_verdict(g)}"
        )
    lines.append("-" * (len(head) + 28))
    judged = [g for g in groups if g.judged]
    meeting = [g for g in judged if g.meets]
    lines.append(
        f"groups of >= {MIN_GROUP_ROWS} held-out rows meeting a median of 8 %: "
        f"{len(meeting)} of {len(judged)}"
        + "".join(f"\n  misses: {g.source} / {g.job} {g.metric}" for g in judged if not g.meets)
    )
    verdicts = [o for o in measured if o.fits_agrees is not None]
    wrong = [o.case.id for o in verdicts if not o.fits_agrees]
    lines.append(
        f"fits verdicts on measured runs: {len(verdicts) - len(wrong)} of {len(verdicts)} right"
        + (f"; wrong: {', '.join(wrong)}" if wrong else "")
    )
    bare = unexplained(found)
    lines.append(
        f"rows off by more than {100 * REASON_ABOVE:.0f} % without a written reason: "
        + (", ".join(f"{o.row} {o.metric} {100 * o.error:+.1f} %" for o in bare) or "none")
    )
    return "\n".join(lines)


def inference_table(inference: list[InferenceOutcome]) -> str:
    head = (
        f"{'row':<5} {'split':<11} {'source':<46} {'question':<34}"
        f" {'measured':>10} {'predicted':>10} {'error':>8}"
    )
    lines = [head, "-" * len(head)]
    for o in inference:
        r = o.case.request
        question = (
            f"{r.model.name} {r.accelerator.name} {r.precision} "
            f"b{r.inference.batch} ctx{r.inference.prompt_len}"
        )
        lines.append(
            f"{o.case.id:<5} {o.case.split:<11} {o.case.source[:46]:<46} {question[:34]:<34} "
            f"{_fmt(o.case.measured_tpot_s):>10} {_fmt(o.predicted_tpot_s):>10} "
            f"{100 * o.error:>+7.1f}%"
        )
        if o.case.reason:
            lines.append(f"      reason: {o.case.reason}")
    return "\n".join(lines)


def measured_table(measured: list[MeasuredOutcome]) -> str:
    head = (
        f"{'row':<5} {'split':<11} {'stack':<28} {'question':<34} {'metric':<18}"
        f" {'measured':>10} {'predicted':>10} {'error':>8}"
    )
    lines = [head, "-" * len(head)]
    for o in measured:
        c = o.case
        r = c.request
        if c.kind == "train":
            p = r.parallelism
            recompute = p.recompute if p is not None else "-"
            question = f"{r.model.name} mb{r.micro_batch} recompute={recompute}"
        else:
            question = f"{r.model.name} b{r.inference.batch} ctx{r.inference.prompt_len}"
        for metric in METRICS[c.kind]:
            if metric not in c.measured:
                continue
            measured_value, predicted = c.measured[metric], o.predicted[metric]
            err = o.error(metric)
            lines.append(
                f"{c.id:<5} {c.split:<11} {c.stack[:28]:<28} {question[:34]:<34} "
                f"{LABELS.get(metric, metric)[:18]:<18} {_fmt(measured_value):>10} "
                f"{_fmt(predicted):>10} {(f'{100 * err:+.1f}%' if err is not None else ''):>8}"
            )
        if c.reason:
            lines.append(f"      reason: {c.reason}")
    return "\n".join(lines)


def _fmt(value: float | bool) -> str:
    if isinstance(value, bool):
        return "fits" if value else "no fit"
    return f"{value:,.4g}"
