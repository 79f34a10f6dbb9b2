"""Ceilings of the card as found: bf16 matrix products, device-to-device copy bandwidth, and
the power drawn at idle and under a sustained matrix-product load."""

from __future__ import annotations

import time
from typing import Any

from h200_common import PowerSampler, attempt, time_region

GEMM_SHAPES = ((2048, 2048, 2048), (4096, 4096, 4096), (8192, 8192, 8192), (16384, 16384, 16384))
# Shapes a training step of the measured models and a decode step of the 8B model run.
GEMM_MODEL_SHAPES = ((16384, 6144, 2048), (16384, 2048, 6144), (64, 6144, 4096), (1, 6144, 4096))


def gemm(torch: Any, m: int, n: int, k: int, *, repeats: int) -> dict[str, Any]:
    dev = "cuda" if torch.cuda.is_available() else "cpu"
    # Random operands, several sets rotated so a small product does not run from L2.
    sets = max(1, min(8, int(256e6 // max(1, (m * k + k * n) * 2))))
    a = [torch.randn(m, k, device=dev, dtype=torch.bfloat16) for _ in range(sets)]
    b = [torch.randn(k, n, device=dev, dtype=torch.bfloat16) for _ in range(sets)]
    idx = [0]

    def run() -> None:
        i = idx[0] % sets
        idx[0] += 1
        torch.matmul(a[i], b[i])

    t = time_region(torch, run, warmup=3, repeats=repeats)
    flop = 2.0 * m * n * k
    return {"tflops": flop / t["median_s"] / 1e12, "flop": flop, "timing": t}


def copy_bandwidth(torch: Any, *, gib: float, repeats: int) -> dict[str, Any]:
    dev = "cuda" if torch.cuda.is_available() else "cpu"
    n = int(gib * 2**30) // 2
    src = torch.randn(n, device=dev, dtype=torch.bfloat16)
    dst = torch.empty_like(src)
    t = time_region(torch, lambda: dst.copy_(src), warmup=3, repeats=repeats)
    moved = 2.0 * n * 2  # bytes read plus bytes written
    return {"bytes_moved": moved, "tb_per_s": moved / t["median_s"] / 1e12, "timing": t}


def sustained_gemm(torch: Any, sampler: PowerSampler | None, *, seconds: float) -> dict[str, Any]:
    """Back-to-back 8192^3 products for `seconds`, so the power reading settles under load."""
    dev = "cuda" if torch.cuda.is_available() else "cpu"
    size = 8192 if dev == "cuda" else 256
    a = torch.randn(size, size, device=dev, dtype=torch.bfloat16)
    b = torch.randn(size, size, device=dev, dtype=torch.bfloat16)
    if sampler is not None:
        sampler.label = "load_gemm_8192"
    count, t0 = 0, time.monotonic()
    while time.monotonic() - t0 < seconds:
        for _ in range(20):
            torch.matmul(a, b)
        if dev == "cuda":
            torch.cuda.synchronize()
        count += 20
    elapsed = time.monotonic() - t0
    if sampler is not None:
        sampler.label = "after_load"
    return {"products": count, "seconds": elapsed, "tflops": 2.0 * size**3 * count / elapsed / 1e12}


def run(torch: Any, *, tiny: bool, sampler: PowerSampler | None, log: Any) -> dict[str, Any]:
    results: list[dict[str, Any]] = []
    shapes = ((64, 64, 64), (128, 256, 64)) if tiny else GEMM_SHAPES + GEMM_MODEL_SHAPES
    for m, n, k in shapes:
        attempt(
            results,
            {"measure": "gemm_bf16", "m": m, "n": n, "k": k},
            lambda m=m, n=n, k=k: gemm(torch, m, n, k, repeats=5 if tiny else 20),
            log,
        )
    attempt(
        results,
        {"measure": "copy_d2d", "gib": 0.01 if tiny else 4.0},
        lambda: copy_bandwidth(torch, gib=0.01 if tiny else 4.0, repeats=5 if tiny else 20),
        log,
    )
    attempt(
        results,
        {"measure": "sustained_gemm_8192_for_power"},
        lambda: sustained_gemm(torch, sampler, seconds=1.0 if tiny else 8.0),
        log,
    )
    return {"results": results}
