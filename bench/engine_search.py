"""How fast the engine searches parallel layouts. Prints a table.

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


def request(count: int, global_batch: int) -> EstimateRequest:
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


def main() -> None:
    print(f"{'case':<44} {'layouts':>8} {'median ms':>10} {'layouts/s':>12}")
    for count, batch in ((64, 512), (1024, 2048), (4096, 4096)):
        req = request(count, batch)
        layouts = candidate_layouts(req)
        evaluate(req, layouts)  # warm-up
        search = timed(lambda req=req, layouts=layouts: evaluate(req, layouts), 30)
        whole = timed(lambda req=req: estimate(req), 30)
        rate = len(layouts) / statistics.median(search)
        print(
            f"{f'70B on {count} H100: evaluate all layouts':<44} {len(layouts):>8} {1000 * statistics.median(search):>10.2f} {rate:>12,.0f}"
        )
        print(
            f"{f'70B on {count} H100: one estimate, search included':<44} {len(layouts):>8} {1000 * statistics.median(whole):>10.2f} {'':>12}"
        )


if __name__ == "__main__":
    main()
