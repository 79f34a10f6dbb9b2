"""Measurements of one NVIDIA H200 for the validation table (planner/validation/).

Run on the device machine, from the repository root, as:

    MEASURE_COMMAND='<the shell line>' PYTHONUNBUFFERED=1 \
        python3 bench/device/measure_h200.py --out "$OUT" --budget-s 510

It writes one JSON report per group into --out: kernels.json (bf16 GEMM, copy bandwidth,
power under load), moe.json, train.json, decode.json, power.json (nvidia-smi readings per
phase, idle first, before any CUDA context exists), each with the versions, GPU, clocks, date
and command line. Every measurement is warmed up, timed with CUDA events, repeated and reported
as the median. A wall-clock guard skips what would not finish within --budget-s, recording the
skip. `--tiny` runs the same code at toy sizes on whatever device is present, to check logic.
`--only train_compile` runs the second training set (KV cache off, whole-model compilation of
the 1.5B). The reports in planner/validation/measurements/ came from this script; its README
gives the exact commands and dates.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from h200_common import (
    PowerSampler,
    environment,
    run_groups,
    run_parser,
    run_start,
    write_report,
)


def main(argv: list[str]) -> int:
    parser = run_parser(__doc__ or "", budget_s=510.0, only="kernels,moe,train,decode")
    parser.add_argument("--idle-s", type=float, default=6.0)
    args = parser.parse_args(argv[1:])
    out, guard, log = run_start(args.out, args.budget_s, "log.txt")

    # Idle power first, before this process creates a CUDA context.
    sampler = PowerSampler()
    sampler.label = "idle_before_cuda"
    sampler.start()
    time.sleep(0 if args.tiny else args.idle_s)
    import torch

    sampler.label = "idle_cuda_context"
    if torch.cuda.is_available():
        torch.cuda.init()
        torch.ones(1, device="cuda")
    time.sleep(0 if args.tiny else 3.0)
    torch.backends.cuda.matmul.allow_tf32 = True
    env = environment(argv)
    log(json.dumps({k: env.get(k) for k in ("torch", "transformers", "peft", "gpu")}, default=str))

    def module(name: str) -> Any:
        return __import__(name)

    # Each group's module is imported only when it runs.
    runners = {
        "kernels": lambda: module("h200_kernels").run(
            torch, tiny=args.tiny, sampler=sampler, log=log
        ),
        "moe": lambda: module("h200_moe").run(torch, tiny=args.tiny, guard=guard, log=log),
        "train": lambda: module("h200_train").run(torch, tiny=args.tiny, guard=guard, log=log),
        "train_compile": lambda: module("h200_train").run(
            torch, tiny=args.tiny, guard=guard, log=log, second=True
        ),
        "decode": lambda: module("h200_decode").run(torch, tiny=args.tiny, guard=guard, log=log),
    }

    def label(group: str) -> None:
        sampler.label = group

    run_groups(args.only, runners, out=out, env=env, guard=guard, log=log, before=label)
    sampler.label = "end_after_work"
    time.sleep(0 if args.tiny else 2.0)
    sampler.halt()
    write_report(out, "power", env, sampler.summary() | {"samples": sampler.samples})
    log("done")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
