"""Accuracy of the engine per source of the validation table: the published training runs
(planner/validation/public.py) and the runs measured on an H200 (planner/validation/measured.py),
each measured group counted apart (training throughput, training memory, decode, prefill), by
split and by software stack, with the `fits` verdicts."""

from __future__ import annotations

from collections import defaultdict

from planner.validation.measured import METRICS, MeasuredOutcome, group_summary
from planner.validation.public import Outcome, summary

LABELS = {
    "tokens_per_s": "train tokens/s",
    "peak_reserved_gib": "train peak memory",
    "tpot_s": "decode time/token",
    "prefill_s": "prefill time",
}


def _line(name: str, stats: dict[str, float] | None) -> str:
    if stats is None:
        return f"{name:<58} {'-':>5}"
    return (
        f"{name:<58} {stats['rows']:>5} {100 * stats['median_abs_error']:>8.1f} %"
        f" {100 * stats['max_abs_error']:>8.1f} %"
    )


def source_table(public: list[Outcome], measured: list[MeasuredOutcome]) -> str:
    head = f"{'source / group':<58} {'rows':>5} {'median':>10} {'worst':>10}"
    lines = [head, "-" * len(head)]
    by_source: dict[str, list[Outcome]] = defaultdict(list)
    for o in public:
        by_source[o.case.source].append(o)
    for source, rows in sorted(by_source.items()):
        lines.append(_line(f"{source[:44]} / train tokens/s", summary(rows)))
    lines.append(_line("all published rows / train tokens/s", summary(public) if public else None))
    for kind, metrics in METRICS.items():
        rows_of_kind = [o for o in measured if o.case.kind == kind]
        for metric in metrics:
            if metric == "fits":
                continue
            label = LABELS[metric]
            lines.append(_line(f"h200-measured / {label}", group_summary(rows_of_kind, metric)))
            for split in ("calibration", "held_out"):
                subset = [o for o in rows_of_kind if o.case.split == split]
                lines.append(_line(f"  {split}", group_summary(subset, metric)))
            for stack in sorted({o.case.stack for o in rows_of_kind}):
                subset = [o for o in rows_of_kind if o.case.stack == stack]
                lines.append(_line(f"  stack {stack}", group_summary(subset, metric)))
    verdicts = [o for o in measured if o.fits_agrees is not None]
    wrong = [o.case.id for o in verdicts if not o.fits_agrees]
    lines.append("-" * len(head))
    lines.append(
        f"fits verdicts on measured runs: {len(verdicts) - len(wrong)} of {len(verdicts)} right"
        + (f"; wrong: {', '.join(wrong)}" if wrong else "")
    )
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
    return "\n".join(lines)


def _fmt(value: float | bool) -> str:
    if isinstance(value, bool):
        return "fits" if value else "no fit"
    return f"{value:,.4g}"
