"""How fast the engine searches parallel layouts, with the global batch given and with the
batch left to the search (which then tries a few batches with every layout), measured in the
same run with the ratio. Prints a table.

    .venv/bin/python bench/engine_search.py

Pure engine, no Django. Pin to one core to read the figures as single-core ones
(`taskset -c 0`); numpy's elementwise kernels are single-threaded anyway.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path
from types import MappingProxyType

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from planner.engine.estimate import estimate
from planner.engine.parallel import candidate_layouts, evaluate
from planner.engine.specs import AcceleratorSpec, EstimateRequest, FabricSpec, ModelSpec

LLAMA3_70B = ModelSpec(
    params=70.55e9, layers=80, hidden=8192, heads=64, kv_heads=8, ffn=28672, vocab=128256
)
H100 = AcceleratorSpec(
    memory_gib=80,
    memory_bw_gb_s=3350,
    tflops=MappingProxyType({"bf16": 989.4, "fp8": 1978.9}),
    tdp_w=700,
    scale_up_gb_s=450,
    scale_up_domain=8,
)
NDR = FabricSpec(per_gpu_gb_s=50, latency_us=2)


def request(count: int, global_batch: int | None) -> EstimateRequest:
    return EstimateRequest(
        task="train",
        model=LLAMA3_70B,
        accelerator=H100,
        count=count,
        per_node=8,
        fabric=NDR,
        seq_len=4096,
        global_batch=global_batch,
        tokens=2e12,
    )


def timed(fn, repeat: int) -> list[float]:
    out = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        out.append(time.perf_counter() - start)
    return out


def measure(req: EstimateRequest) -> tuple[int, float, float]:
    """Layouts, and the median milliseconds of evaluating them and of one whole estimate."""
    layouts = candidate_layouts(req)
    evaluate(req, layouts)  # warm-up
    search = timed(lambda: evaluate(req, layouts), 30)
    whole = timed(lambda: estimate(req), 30)
    return len(layouts), 1000 * statistics.median(search), 1000 * statistics.median(whole)


def main() -> None:
    """Each cluster twice: the batch given, and the batch left to the search (the few batches of
    the range for a 70B model, 2M-4M tokens, tried with every layout), with the ratio."""
    print(
        f"{'case':<48} {'layouts':>8} {'evaluate ms':>12} {'layouts/s':>12} {'estimate ms':>12}"
        f" {'vs given':>9}"
    )
    for count, batch in ((64, 512), (1024, 2048), (4096, 4096)):
        given = measure(request(count, batch))
        chosen = measure(request(count, None))
        for label, (layouts, search_ms, whole_ms) in (
            (f"70B on {count} H100: batch {batch} given", given),
            (f"70B on {count} H100: batch left to the search", chosen),
        ):
            ratio = whole_ms / given[2]
            print(
                f"{label:<48} {layouts:>8} {search_ms:>12.2f} {layouts / search_ms * 1000:>12,.0f}"
                f" {whole_ms:>12.2f} {ratio:>8.2f}x"
            )


if __name__ == "__main__":
    main()
