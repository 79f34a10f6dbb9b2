"""The kernels and links the probe times: dense matrix multiplies per precision, device and
host-to-device copies, and all-reduce across ranks. Times with device events after warm-up and
takes medians."""

from __future__ import annotations

import statistics
from collections.abc import Callable

GIB = 2**30


def median_ms(samples: list[float]) -> float:
    if not samples:
        raise ValueError("no samples")
    return statistics.median(samples)


def matmul_tflops(m: int, n: int, k: int, ms: float) -> float:
    return 2 * m * n * k / (ms / 1000) / 1e12


def allreduce_busbw_gb_s(size_bytes: int, ranks: int, ms: float) -> float:
    """nccl-tests' bus bandwidth: algorithm bandwidth x 2(n-1)/n."""
    return size_bytes / (ms / 1000) / 1e9 * 2 * (ranks - 1) / ranks


def time_cuda(
    torch, fn: Callable[[], object], *, warmup: int = 3, repeats: int = 10, inner: int = 1
) -> list[float]:
    """Milliseconds per call of `fn`, one sample per `inner` calls, timed with CUDA events."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    samples = []
    for _ in range(repeats):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(inner):
            fn()
        stop.record()
        stop.synchronize()
        samples.append(start.elapsed_time(stop) / inner)
    return samples


def matmul_row(size: int, samples: list[float], **extra: str) -> dict:
    """One precision's rate on square matrices of `size`, from the timed samples."""
    return {
        "tflops": round(matmul_tflops(size, size, size, median_ms(samples)), 2),
        "shape": [size, size, size],
        "samples": len(samples),
        **extra,
    }


def measure_matmuls(torch, size: int = 8192) -> dict:
    dev = "cuda"
    out = {}
    torch.manual_seed(0)
    a32 = torch.randn(size, size, device=dev)
    b32 = torch.randn(size, size, device=dev)
    for name, dtype, tf32 in (
        ("fp32", torch.float32, False),
        ("tf32", torch.float32, True),
        ("bf16", torch.bfloat16, False),
        ("fp16", torch.float16, False),
    ):
        torch.backends.cuda.matmul.allow_tf32 = tf32
        a, b = a32.to(dtype), b32.to(dtype)
        samples = time_cuda(
            torch, lambda a=a, b=b: a @ b, repeats=10, inner=3 if dtype != torch.float32 else 1
        )
        out[name] = matmul_row(size, samples)
    torch.backends.cuda.matmul.allow_tf32 = False
    # FP8 (Hopper and newer): e4m3 operands, per-tensor scales, bf16 output.
    if hasattr(torch, "float8_e4m3fn") and torch.cuda.get_device_capability() >= (8, 9):
        try:
            a8 = a32.to(torch.float8_e4m3fn)
            b8 = b32.to(torch.float8_e4m3fn).t().contiguous().t()
            one = torch.tensor(1.0, device=dev)
            samples = time_cuda(
                torch,
                lambda: torch._scaled_mm(
                    a8, b8, scale_a=one, scale_b=one, out_dtype=torch.bfloat16
                ),
                repeats=10,
                inner=3,
            )
            out["fp8"] = matmul_row(size, samples)
        except (RuntimeError, TypeError) as exc:
            out["fp8"] = {"error": str(exc)[:200]}
    try:
        ai = torch.randint(-100, 100, (size, size), device=dev, dtype=torch.int8)
        bi = torch.randint(-100, 100, (size, size), device=dev, dtype=torch.int8)
        samples = time_cuda(torch, lambda: torch._int_mm(ai, bi), repeats=10, inner=3)
        out["int8"] = matmul_row(size, samples, unit="TOPS")
    except (RuntimeError, AttributeError) as exc:
        out["int8"] = {"error": str(exc)[:200]}
    return out


def measure_bandwidth(torch, gib: float = 2.0) -> dict:
    n = int(gib * GIB) // 4
    src = torch.rand(n, device="cuda")
    dst = torch.empty_like(src)
    d2d = median_ms(time_cuda(torch, lambda: dst.copy_(src), repeats=10))
    host = torch.rand(n // 2).pin_memory()
    dev = torch.empty(n // 2, device="cuda")
    h2d = median_ms(time_cuda(torch, lambda: dev.copy_(host, non_blocking=True), repeats=10))
    return {
        # Bytes read plus bytes written, as STREAM's copy counts them.
        "d2d_gb_s": round(2 * n * 4 / (d2d / 1000) / 1e9, 1),
        "h2d_gb_s": round(n // 2 * 4 / (h2d / 1000) / 1e9, 1),
        "bytes": n * 4,
    }


def measure_allreduce(torch, dist, sizes=(2**20, 2**24, 2**27, 2**29), *, group=None) -> list[dict]:
    ranks = dist.get_world_size(group)
    out = []
    for size in sizes:
        x = torch.rand(size // 2, device="cuda", dtype=torch.bfloat16)
        samples = time_cuda(
            torch, lambda x=x: dist.all_reduce(x, group=group), warmup=3, repeats=10
        )
        ms = median_ms(samples)
        out.append(
            {
                "bytes": size,
                "ms": round(ms, 4),
                "busbw_gb_s": round(allreduce_busbw_gb_s(size, ranks, ms), 1),
                "ranks": ranks,
            }
        )
    return out
