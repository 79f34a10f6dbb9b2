"""Accuracy of the engine per source group of the validation table: the published training
runs (planner/validation/public.py), the published inference runs
(planner/validation/public_inference.py) and the runs measured on an H200
(planner/validation/measured.py), each job and metric counted apart (training throughput,
training memory, decode, prefill), with the `fits` verdicts."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from planner.validation.groups import (
    MIN_GROUP_ROWS,
    REASON_ABOVE,
    GroupAccuracy,
    group_accuracy,
    observations,
    unexplained,
)
from planner.validation.measured import METRICS, MeasuredOutcome, run_all_measured
from planner.validation.public import Outcome, run_all, summary
from planner.validation.public_inference import InferenceOutcome, run_all_inference

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


# A column: its title and the width and alignment its cells are written in ("<5", ">10").
Column = tuple[str, str]
# The columns every row table ends with.
FIGURES: tuple[Column, ...] = (("measured", ">10"), ("predicted", ">10"), ("error", ">8"))
# A validation row in a table: its lines of cells (one a compared figure) and its reason.
Entry = tuple[list[tuple[str, ...]], str]


def _table(columns: Sequence[Column], entries: Iterable[Entry]) -> list[str]:
    """The titles, a rule as wide, then each row's lines, with its written reason below them
    where it has one."""

    def line(cells: Sequence[str]) -> str:
        return " ".join(format(c, spec) for c, (_title, spec) in zip(cells, columns, strict=True))

    head = line([title for title, _spec in columns])
    lines = [head, "-" * len(head)]
    for cell_lines, reason in entries:
        lines.extend(line(cells) for cells in cell_lines)
        if reason:
            lines.append(f"      reason: {reason}")
    return lines


def _error(error: float | None) -> str:
    return "" if error is None else f"{100 * error:+.1f}%"


def public_table(public: list[Outcome]) -> str:
    """The published training runs, row by row, and their median and largest error."""
    columns = (("row", "<5"), ("source", "<34"), ("model", "<16"), *FIGURES)
    entries: list[Entry] = []
    for o in public:
        cells = (
            o.case.id,
            o.case.source[:34],
            o.case.model_name[:16],
            f"{o.case.measured_tokens_per_s_per_device:,.1f}",
            f"{o.predicted_tokens_per_s_per_device:,.1f}",
            _error(o.error),
        )
        entries.append(([cells], o.case.reason))
    lines = _table(columns, entries)
    s = summary(public)
    lines.append("-" * len(lines[0]))
    lines.append(
        f"{s['rows']} rows, tokens/s per device: median |error| {100 * s['median_abs_error']:.1f} %, "
        f"max {100 * s['max_abs_error']:.1f} %"
    )
    return "\n".join(lines)


def inference_table(inference: list[InferenceOutcome]) -> str:
    columns = (("row", "<5"), ("split", "<11"), ("source", "<46"), ("question", "<34"), *FIGURES)
    entries: list[Entry] = []
    for o in inference:
        r = o.case.request
        question = (
            f"{r.model.name} {r.accelerator.name} {r.precision} "
            f"b{r.inference.batch} ctx{r.inference.prompt_len}"
        )
        cells = (
            o.case.id,
            o.case.split,
            o.case.source[:46],
            question[:34],
            _fmt(o.case.measured_tpot_s),
            _fmt(o.predicted_tpot_s),
            _error(o.error),
        )
        entries.append(([cells], o.case.reason))
    return "\n".join(_table(columns, entries))


def measured_table(measured: list[MeasuredOutcome]) -> str:
    columns = (
        ("row", "<5"),
        ("split", "<11"),
        ("stack", "<28"),
        ("question", "<34"),
        ("metric", "<18"),
        *FIGURES,
    )
    entries: list[Entry] = []
    for o in measured:
        c = o.case
        r = c.request
        if c.kind == "train":
            p = r.parallelism
            recompute = p.recompute if p is not None else "-"
            question = f"{r.model.name} mb{r.micro_batch} recompute={recompute}"
        else:
            question = f"{r.model.name} b{r.inference.batch} ctx{r.inference.prompt_len}"
        figures = [
            (
                c.id,
                c.split,
                c.stack[:28],
                question[:34],
                LABELS.get(metric, metric)[:18],
                _fmt(c.measured[metric]),
                _fmt(o.predicted[metric]),
                _error(o.error(metric)),
            )
            for metric in METRICS[c.kind]
            if metric in c.measured
        ]
        entries.append((figures, c.reason))
    return "\n".join(_table(columns, entries))


def _fmt(value: float | bool) -> str:
    if isinstance(value, bool):
        return "fits" if value else "no fit"
    return f"{value:,.4g}"


def validation_report(*, summary_only: bool = False) -> str:
    """Every validation row replayed through the engine: each table's rows (unless only the
    summary is asked for), then the accuracy per source group and the fits verdicts."""
    public, measured, inference = run_all(), run_all_measured(), run_all_inference()
    groups = source_table(public, measured, inference)
    if summary_only:
        return groups
    tables = [public_table(public), measured_table(measured), inference_table(inference)]
    return "\n\n".join([*tables, groups])
