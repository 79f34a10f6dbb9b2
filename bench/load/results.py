"""Locust's CSV turned into the table, the verdicts and the files under bench/results/."""

from __future__ import annotations

import csv
import json
from dataclasses import asdict, dataclass
from pathlib import Path

from mix import PAGE_GROUPS, RATE_ACHIEVED_SHARE, TARGETS

# A soak passes when each process group's memory grew less than this share.
MAX_MEMORY_GROWTH = 0.10


@dataclass(frozen=True)
class GroupStats:
    name: str
    requests: int
    failures: int
    rps: float
    target_rps: float | None
    p50_ms: float
    p95_ms: float
    p99_ms: float
    max_ms: float

    @property
    def error_rate(self) -> float:
        return self.failures / self.requests if self.requests else 0.0


def read_stats(stats_csv: Path, rates_rps: dict[str, float]) -> list[GroupStats]:
    """One row per endpoint group and the aggregate, from locust's `<prefix>_stats.csv`.
    Locust approximates percentiles: above 100 ms they are rounded to 10 ms, above 1 s to
    100 ms."""
    rows = []
    with stats_csv.open(newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            name = row["Name"]
            rows.append(
                GroupStats(
                    name=name,
                    requests=int(row["Request Count"]),
                    failures=int(row["Failure Count"]),
                    rps=float(row["Requests/s"]),
                    target_rps=sum(rates_rps.values())
                    if name == "Aggregated"
                    else rates_rps.get(name),
                    p50_ms=_ms(row["50%"]),
                    p95_ms=_ms(row["95%"]),
                    p99_ms=_ms(row["99%"]),
                    max_ms=_ms(row["Max Response Time"]),
                )
            )
    return rows


def _ms(text: str) -> float:
    return float(text) if text not in ("", "N/A") else float("nan")


@dataclass(frozen=True)
class Verdict:
    label: str
    passed: bool
    detail: str


def verdicts(stats: list[GroupStats]) -> list[Verdict]:
    by_name = {s.name: s for s in stats}
    out = []
    for target in TARGETS:
        problems, figures = [], []
        for group in target.groups:
            s = by_name.get(group)
            if s is None or not s.requests:
                problems.append(f"{group}: no requests")
                continue
            figures.append(f"{group} p95 {s.p95_ms:.0f} ms, {100 * s.error_rate:.2f}% errors")
            if not s.p95_ms < target.p95_ms:
                problems.append(f"{group} p95 {s.p95_ms:.0f} ms")
            if target.max_error_rate is not None and s.error_rate > target.max_error_rate:
                problems.append(f"{group} {s.failures} errors")
        wanted = sum(by_name[g].target_rps or 0 for g in target.groups if g in by_name)
        achieved = sum(by_name[g].rps for g in target.groups if g in by_name)
        figures.append(f"{achieved:.1f} of {wanted:.1f} req/s")
        if wanted and achieved < RATE_ACHIEVED_SHARE * wanted:
            problems.append(f"ran at {achieved:.1f} req/s, not {wanted:.1f}")
        out.append(
            Verdict(
                target.label,
                not problems,
                "; ".join(figures) + (f" -- missed: {', '.join(problems)}" if problems else ""),
            )
        )
    return out


def memory_verdicts(samples: list[dict], warmup_s: float) -> list[Verdict]:
    """Growth of each process group's summed RSS from the first sample after the warm-up to
    the last one."""
    after = [s for s in samples if s["t_s"] >= warmup_s]
    if len(after) < 2:
        return [Verdict("memory growth < 10%", False, "fewer than two samples after warm-up")]
    first, last = after[0], after[-1]
    out = []
    for group in first["groups"]:
        start, end = first["groups"][group]["rss_kib"], last["groups"][group]["rss_kib"]
        growth = (end - start) / start if start else float("inf")
        out.append(
            Verdict(
                f"{group} RSS growth < {100 * MAX_MEMORY_GROWTH:.0f}%",
                growth < MAX_MEMORY_GROWTH,
                f"{start / 1024:.0f} MiB at {first['t_s']:.0f} s -> {end / 1024:.0f} MiB at "
                f"{last['t_s']:.0f} s ({100 * growth:+.1f}%)",
            )
        )
    return out


def table(stats: list[GroupStats]) -> str:
    header = (
        f"| {'endpoint':<16} | {'requests':>8} | {'req/s':>6} | {'target':>6} | {'p50 ms':>6} | "
        f"{'p95 ms':>6} | {'p99 ms':>6} | {'max ms':>6} | {'errors':>7} |"
    )
    lines = [header, "|" + "|".join("-" * (len(c)) for c in header.split("|")[1:-1]) + "|"]
    order = {name: i for i, name in enumerate((*PAGE_GROUPS, "estimate", "simulation start"))}
    for s in sorted(stats, key=lambda s: order.get(s.name, len(order))):
        target = "" if s.target_rps is None else f"{s.target_rps:.1f}"
        lines.append(
            f"| {s.name:<16} | {s.requests:>8} | {s.rps:>6.1f} | {target:>6} | {s.p50_ms:>6.0f} | "
            f"{s.p95_ms:>6.0f} | {s.p99_ms:>6.0f} | {s.max_ms:>6.0f} | "
            f"{100 * s.error_rate:>6.2f}% |"
        )
    return "\n".join(lines)


def verdict_lines(items: list[Verdict]) -> str:
    return "\n".join(f"- {'PASS' if v.passed else 'FAIL'} {v.label}: {v.detail}" for v in items)


def memory_table(samples: list[dict]) -> str:
    groups = list(samples[0]["groups"]) if samples else []
    header = "| t (s) | " + " | ".join(f"{g} RSS MiB | {g} PSS MiB" for g in groups) + " |"
    lines = [header, "|" + "---|" * (1 + 2 * len(groups))]
    for s in samples:
        cells = []
        for g in groups:
            m = s["groups"][g]
            cells += [f"{m['rss_kib'] / 1024:.0f}", f"{m['pss_kib'] / 1024:.0f}"]
        lines.append(f"| {s['t_s']:.0f} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def markdown(report: dict) -> str:
    hw = report["hardware"]
    parts = [
        f"# Load run {report['started_at']} ({report['mode']}, {report['duration_s']:.0f} s)",
        "",
        f"Machine: {hw['cpu_model']}, {hw['cpus']} CPUs, {hw['memory_gib']:.1f} GiB; "
        f"Linux {hw['kernel']}; Python {hw['python']}; PostgreSQL {hw['postgresql']}; "
        f"Redis {hw['redis']}; locust {hw['locust']}; gunicorn {hw['gunicorn']} with "
        f"{report['gunicorn_workers']} sync workers; Celery worker concurrency "
        f"{report['celery_concurrency']}. Load average before the run: {hw['loadavg']}. "
        "Locust runs on the same machine.",
        "",
        f"Settings: {report['settings']}; throttle rates {report['throttle']}.",
        "",
        table([GroupStats(**s) for s in report["stats"]]),
        "",
        verdict_lines([Verdict(**v) for v in report["verdicts"]]),
        "",
        "Simulation rows by status when the load stopped: "
        + (", ".join(f"{k} {n}" for k, n in report["simulations"].items()) or "none"),
    ]
    if report.get("memory_verdicts"):
        parts += [
            "",
            f"Memory, sampled every {report['sample_every_s']:.0f} s (sums over each process "
            f"tree; growth measured from the end of the {report['warmup_s']:.0f} s warm-up):",
            "",
            verdict_lines([Verdict(**v) for v in report["memory_verdicts"]]),
            "",
            memory_table(report["memory_samples"]),
        ]
    return "\n".join(parts) + "\n"


def write(report: dict, out_dir: Path) -> tuple[Path, Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    stem = f"{report['mode']}-{report['started_at'].replace(':', '').replace('-', '')}"
    json_path, md_path = out_dir / f"{stem}.json", out_dir / f"{stem}.md"
    json_path.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    md_path.write_text(markdown(report), encoding="utf-8")
    return json_path, md_path


def as_dicts(items) -> list[dict]:
    return [asdict(i) for i in items]
