"""Timing, the time guard, the power sampler and the environment record shared by the H200
measurements (bench/device/measure_h200.py)."""

from __future__ import annotations

import datetime as dt
import json
import os
import platform
import re
import shlex
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

# One nvidia-smi field per query first, so a field this driver lacks drops alone.
POWER_FIELDS = (
    "power.draw",
    "power.draw.average",
    "power.draw.instant",
    "clocks.sm",
    "clocks.mem",
    "temperature.gpu",
    "utilization.gpu",
    "pstate",
)
STATIC_FIELDS = (
    "name",
    "driver_version",
    "vbios_version",
    "memory.total",
    "clocks.max.sm",
    "clocks.max.mem",
    "clocks.sm",
    "clocks.mem",
    "power.limit",
    "power.default_limit",
    "power.max_limit",
    "pstate",
    "persistence_mode",
    "compute_mode",
    "mig.mode.current",
)


class Guard:
    """Wall-clock budget for the whole run: a measurement starts only if its share is left."""

    def __init__(self, budget_s: float) -> None:
        self.start = time.monotonic()
        self.budget_s = budget_s

    def left_s(self) -> float:
        return self.budget_s - (time.monotonic() - self.start)

    def allows(self, need_s: float) -> bool:
        return self.left_s() >= need_s


def smi_query(fields: tuple[str, ...] | list[str]) -> list[str] | None:
    try:
        done = subprocess.run(
            ["nvidia-smi", f"--query-gpu={','.join(fields)}", "--format=csv,noheader,nounits"],
            capture_output=True,
            text=True,
            timeout=15,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0 or not done.stdout.strip():
        return None
    return [v.strip() for v in done.stdout.strip().splitlines()[0].split(",")]


def _number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


class PowerSampler(threading.Thread):
    """Polls nvidia-smi every `period_s`, tagging each reading with the phase then running."""

    def __init__(self, period_s: float = 0.25) -> None:
        super().__init__(daemon=True)
        self.fields = [f for f in POWER_FIELDS if smi_query([f]) not in (None, ["[N/A]"])]
        self.label = "start"
        self.samples: list[dict[str, Any]] = []
        self.period_s = period_s
        self._halt = threading.Event()

    def run(self) -> None:
        while not self._halt.is_set() and self.fields:
            values = smi_query(self.fields)
            if values:
                self.samples.append(
                    {
                        "t_s": time.monotonic(),
                        "label": self.label,
                        **dict(zip(self.fields, values, strict=True)),
                    }
                )
            self._halt.wait(self.period_s)

    def halt(self) -> None:
        self._halt.set()
        self.join(timeout=20)

    def summary(self) -> dict[str, Any]:
        phases: dict[str, dict[str, Any]] = {}
        for label in dict.fromkeys(s["label"] for s in self.samples):
            rows = [s for s in self.samples if s["label"] == label]
            stats: dict[str, Any] = {"samples": len(rows)}
            for field in self.fields:
                nums = [n for n in (_number(r.get(field, "")) for r in rows) if n is not None]
                if nums:
                    stats[field] = {
                        "median": statistics.median(nums),
                        "min": min(nums),
                        "max": max(nums),
                    }
            phases[label] = stats
        return {"fields": self.fields, "period_s": self.period_s, "phases": phases}


def time_region(torch: Any, fn: Any, *, warmup: int, repeats: int) -> dict[str, Any]:
    """Median of `repeats` timed calls after `warmup` untimed ones: CUDA events on a GPU,
    a synchronised host clock otherwise."""
    for _ in range(warmup):
        fn()
    cuda = torch.cuda.is_available()
    if cuda:
        torch.cuda.synchronize()
    times = []
    for _ in range(repeats):
        if cuda:
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            fn()
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end) / 1e3)
        else:
            t0 = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t0)
    return {
        "median_s": statistics.median(times),
        "min_s": min(times),
        "max_s": max(times),
        "repeats": repeats,
        "warmup": warmup,
        "all_s": times,
    }


def free_memory(torch: Any) -> None:
    import gc

    gc.collect()
    if torch.cuda.is_available():
        torch.cuda.synchronize()
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats()


def memory_record(torch: Any) -> dict[str, float]:
    if not torch.cuda.is_available():
        return {}
    gib = 2**30
    return {
        "max_allocated_gib": torch.cuda.max_memory_allocated() / gib,
        "max_reserved_gib": torch.cuda.max_memory_reserved() / gib,
        "allocated_gib": torch.cuda.memory_allocated() / gib,
        "reserved_gib": torch.cuda.memory_reserved() / gib,
    }


def environment(argv: list[str]) -> dict[str, Any]:
    import torch

    info: dict[str, Any] = {
        "date_utc": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "command": shlex.join([sys.executable, *argv]),
        "outer_command": os.environ.get("MEASURE_COMMAND", ""),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpu_count": os.cpu_count(),
        "torch": torch.__version__,
        "torch_cuda": torch.version.cuda,
        "cudnn": torch.backends.cudnn.version() if torch.backends.cudnn.is_available() else None,
    }
    for name in ("transformers", "peft", "triton", "accelerate"):
        try:
            info[name] = __import__(name).__version__
        except Exception as exc:  # a missing package is a fact to record, not a failure
            info[name] = f"unavailable: {exc.__class__.__name__}"
    if torch.cuda.is_available():
        props = torch.cuda.get_device_properties(0)
        info["gpu"] = {
            "name": props.name,
            "total_memory_gib": props.total_memory / 2**30,
            "multiprocessors": props.multi_processor_count,
            "capability": f"{props.major}.{props.minor}",
        }
        info["nvidia_smi"] = {f: (smi_query([f]) or ["unavailable"])[0] for f in STATIC_FIELDS}
        try:
            header = subprocess.run(
                ["nvidia-smi"], capture_output=True, text=True, timeout=15, check=False
            ).stdout
            found = re.search(r"CUDA Version:\s*([\d.]+)", header)
            info["driver_cuda_version"] = found.group(1) if found else None
        except (OSError, subprocess.TimeoutExpired):
            info["driver_cuda_version"] = None
    return info


def write_report(out_dir: Path, name: str, env: dict[str, Any], body: dict[str, Any]) -> Path:
    path = out_dir / f"{name}.json"
    path.write_text(
        json.dumps({"report": name, "environment": env, **body}, indent=1, default=str),
        encoding="utf-8",
    )
    return path


def attempt(results: list[dict[str, Any]], case: dict[str, Any], fn: Any, log: Any) -> None:
    """Runs one measurement; a failure is recorded beside the case and the run goes on."""
    t0 = time.monotonic()
    try:
        case.update(fn())
    except Exception as exc:
        case["error"] = f"{exc.__class__.__name__}: {str(exc)[:400]}"
    case["wall_s"] = round(time.monotonic() - t0, 2)
    results.append(case)
    log(json.dumps({k: v for k, v in case.items() if k != "timing"}, default=str)[:600])


def run_log(out_dir: Path, guard: Guard, name: str) -> Any:
    """A function that prints a line stamped with the seconds since the run began and appends
    it to `name` in the output folder."""
    handle = (out_dir / name).open("a", encoding="utf-8")

    def log(line: str) -> None:
        stamp = f"[{time.monotonic() - guard.start:7.1f}s] {line}"
        print(stamp, flush=True)
        handle.write(stamp + "\n")
        handle.flush()

    return log


def run_start(out: str, budget_s: float, log_name: str) -> tuple[Path, Guard, Any]:
    """The output folder (made), the wall-clock guard and the log every device script begins
    with."""
    out_dir = Path(out)
    out_dir.mkdir(parents=True, exist_ok=True)
    guard = Guard(budget_s)
    return out_dir, guard, run_log(out_dir, guard, log_name)


def run_groups(
    only: str,
    runners: dict[str, Any],
    *,
    out: Path,
    env: dict[str, Any],
    guard: Guard,
    log: Any,
    before: Any = None,
) -> None:
    """Runs each named group (comma-separated `only`) through its runner and writes its report;
    a group that fails is recorded with its error and the run goes on. `before(group)` is
    called first, where the script labels its power samples."""
    for group in [g for g in only.split(",") if g]:
        if before is not None:
            before(group)
        t0 = time.monotonic()
        try:
            if group not in runners:
                raise ValueError(f"--only: unknown group {group!r}")
            body = runners[group]()
        except Exception as exc:
            body = {"error": f"{exc.__class__.__name__}: {str(exc)[:500]}"}
        body["group_wall_s"] = time.monotonic() - t0
        write_report(out, group, env, body)
        log(f"{group} done in {body['group_wall_s']:.1f}s, {guard.left_s():.0f}s left")


def run_parser(doc: str, *, budget_s: float, only: str) -> Any:
    """The options every device script takes: where to write, the time budget, toy sizes and
    which groups to run."""
    import argparse

    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--out", default=os.environ.get("OUT", "out"))
    parser.add_argument("--budget-s", type=float, default=budget_s)
    parser.add_argument("--tiny", action="store_true", help="toy sizes, to check the logic")
    parser.add_argument("--only", default=only)
    return parser
