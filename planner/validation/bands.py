"""The uncertainty band every estimate carries: the held-out error of the validation rows
closest to the question, computed from the rows by `manage.py bands` and kept in a versioned
data file (planner/validation/bands.json) with the rows and sources each band comes from.

A band is looked up by job (training or inference), metric (throughput, memory, decode,
prefill) and framework. The closest group with at least `MIN_BAND_ROWS` held-out rows answers:
the question's framework, else every framework of that job and metric; where no group has
enough held-out rows the band says it comes from calibration rows too."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from planner.engine.version import MODEL_VERSION
from planner.validation import measured, public, public_inference
from planner.validation.groups import METRICS, Observation, job_of, observations, percentile

BANDS_FILE = Path(__file__).resolve().parent / "bands.json"
# Bumped when the file's layout changes, so a reader never misreads an older one.
FORMAT_VERSION = 1
# Fewer held-out rows than this give no band of their own; the wider group answers.
MIN_BAND_ROWS = 3
# A pooled group: every framework (and, for the last resort, every job).
ANY_FRAMEWORK = ANY_JOB = "*"
# The figures each job's answer shows, by metric.
JOB_METRICS = {
    "training": ("throughput", "memory"),
    "inference": ("decode", "prefill", "memory"),
}


def row_files() -> tuple[Path, ...]:
    """The validation rows the bands are computed from."""
    return (public.DATA_FILE, measured.DATA_FILE, public_inference.DATA_FILE)


def rows_digest(paths: Iterable[Path] | None = None) -> str:
    """sha256 over the row files and the measurement reports they read."""
    digest = hashlib.sha256()
    files = list(paths if paths is not None else row_files())
    files += sorted(measured.MEASUREMENTS.rglob("*.json"))
    for path in files:
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def collect(
    public_file: Path = public.DATA_FILE,
    measured_file: Path = measured.DATA_FILE,
    inference_file: Path = public_inference.DATA_FILE,
) -> list[Observation]:
    """Replay every validation row through the engine."""
    return observations(
        public.run_all(public.load_cases(public_file)),
        measured.run_all_measured(measured.load_measured_cases(measured_file)),
        public_inference.run_all_inference(public_inference.load_inference_cases(inference_file)),
    )


def _band(rows: Sequence[Observation], held_out: bool) -> dict[str, Any]:
    errors = [abs(o.error) for o in rows]
    return {
        "rows": len(rows),
        "held_out": held_out,
        "p50": round(percentile(errors, 0.5), 4),
        "p90": round(percentile(errors, 0.9), 4),
        "row_ids": [o.row for o in rows],
        "sources": sorted({o.source for o in rows}),
    }


def compute_bands(found: Iterable[Observation]) -> list[dict[str, Any]]:
    """A band for each job, metric and framework with rows, and for each job and metric over
    every framework: from the held-out rows where there are `MIN_BAND_ROWS`, else from all."""
    found = list(found)
    keys: set[tuple[str, str, str]] = set()
    for o in found:
        keys |= {
            (o.job, o.metric, o.framework),
            (o.job, o.metric, ANY_FRAMEWORK),
            (ANY_JOB, o.metric, ANY_FRAMEWORK),
        }
    bands = []
    for job, metric, framework in sorted(keys):
        rows = [
            o
            for o in found
            if o.metric == metric
            and job in (ANY_JOB, o.job)
            and framework in (ANY_FRAMEWORK, o.framework)
        ]
        held = [o for o in rows if o.held_out]
        band = _band(held, True) if len(held) >= MIN_BAND_ROWS else _band(rows, False)
        bands.append({"job": job, "metric": metric, "framework": framework, **band})
    return bands


def build(found: Iterable[Observation], digest: str) -> dict[str, Any]:
    return {
        "format_version": FORMAT_VERSION,
        "engine_version": MODEL_VERSION,
        "rows_sha256": digest,
        "made_by": "manage.py bands",
        "bands": compute_bands(found),
    }


def write(data: dict[str, Any], path: Path = BANDS_FILE) -> None:
    path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


@cache
def _load(path: Path) -> dict[str, Any]:
    if not path.is_file():
        raise ValueError(f"bands: no band file at {path}; run manage.py bands")
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    if data.get("format_version") != FORMAT_VERSION:
        raise ValueError(f"bands: {path} has format {data.get('format_version')}; rebuild it")
    return data


@dataclass(frozen=True)
class Band:
    job: str
    metric: str
    framework: str
    rows: int
    held_out: bool
    p50: float
    p90: float
    sources: tuple[str, ...]

    def as_dict(self, engine_version: str) -> dict[str, Any]:
        return {
            "job": self.job,
            "metric": self.metric,
            "framework": None if self.framework == ANY_FRAMEWORK else self.framework,
            "rows": self.rows,
            "held_out": self.held_out,
            "p50_pct": round(100 * self.p50, 1),
            "p90_pct": round(100 * self.p90, 1),
            "sources": list(self.sources),
            "engine_version": engine_version,
        }


def band_for(job: str, metric: str, framework: str | None, path: Path = BANDS_FILE) -> Band | None:
    """The band of the closest group: the framework's own held-out rows, else every
    framework's held-out rows of the job and metric, else every row of the job and metric
    (then `held_out` is false), else the metric over every job (a serving memory figure
    judged by training memory rows, say); None where no row measures the metric."""
    if metric not in METRICS:
        raise ValueError(f"bands: metric must be one of {METRICS}")
    table = {(b["job"], b["metric"], b["framework"]): b for b in _load(path)["bands"]}
    closest = [
        table.get((job, metric, framework or "")),
        table.get((job, metric, ANY_FRAMEWORK)),
        table.get((ANY_JOB, metric, ANY_FRAMEWORK)),
    ]
    found = [b for b in closest if b is not None]
    chosen = next((b for b in found if b["held_out"]), found[0] if found else None)
    if chosen is None:
        return None
    return Band(
        chosen["job"],
        chosen["metric"],
        chosen["framework"],
        chosen["rows"],
        chosen["held_out"],
        chosen["p50"],
        chosen["p90"],
        tuple(chosen["sources"]),
    )


def uncertainty(task: str, framework: str | None, path: Path = BANDS_FILE) -> dict[str, Any]:
    """The answer's `uncertainty` section: a band for each figure the job's answer shows."""
    job = job_of(task)
    version = _load(path)["engine_version"]
    bands = {}
    for metric in JOB_METRICS[job]:
        found = band_for(job, metric, framework, path)
        bands[metric] = None if found is None else found.as_dict(version)
    return {"job": job, **bands}


def answer_framework(answer: dict[str, Any]) -> str | None:
    """The framework an answer's figures are for, from its stack sentence's parameters."""
    for message in answer.get("messages", ()):
        if message.get("field") == "explanations.stack":
            framework = message.get("params", {}).get("framework")
            return str(framework) if framework else None
    return None
