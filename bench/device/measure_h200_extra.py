"""Second look at one NVIDIA H200: where Hugging Face `generate()` spends a decode step, and
whether the 1.5B eager training step at micro-batch 1 repeats.

Run on the device machine, from the repository root, as:

    MEASURE_COMMAND='<the shell line>' PYTHONUNBUFFERED=1 \
        python3 bench/device/measure_h200_extra.py --out "$OUT" --budget-s 280

It writes into --out:
- generate_steps.json: Llama-3-8B-shaped model (random weights, bf16, SDPA), `generate()` as
  shipped (greedy, dynamic cache) at batch 1, 8 and 64 and 512, 2,048 and 8,192 prompt
  tokens. Each decode step is timed on its own (a stopping criterion stamps the host clock and
  the thread's CPU clock once per new token; generate() synchronises every step to test for
  finished sequences, so the wall stamps are step times). Reported: median wall and CPU time
  per step over `--new-tokens` steps after a warm-up generate of the same shape, and, at
  batch 1 and 64 with 512 tokens, the CUDA kernels one decode step launches and their summed
  GPU time (torch.profiler over a short generate, the prefill's kernels taken away).
- train_repeat.json: the 1.5B Llama of h200_train.py, eager, fp32 parameters under bf16
  autocast, fused AdamW, at micro-batch 1 and 2, with five warm-up steps and twelve timed ones
  (the first run had two and six), with each step's CPU time.
- gemm_runs.json: that model's training GEMMs at 2,048 and 4,096 tokens (micro-batch 1 and 2),
  twenty back-to-back products per timing, so a short product's launch gap is not counted.
Every report carries the versions, GPU, clocks, date and command line. `--tiny` runs the same
code at toy sizes on whatever device is present, to check the logic.
"""

from __future__ import annotations

import itertools
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from h200_common import (
    Guard,
    attempt,
    environment,
    free_memory,
    memory_record,
    run_groups,
    run_parser,
    run_start,
    time_region,
)

GENERATE_PLAN = (
    (1, 512),
    (8, 512),
    (64, 512),
    (1, 2048),
    (8, 2048),
    (64, 2048),
    (1, 8192),
    (8, 8192),
)
PROFILED = ((1, 512), (64, 512), (64, 2048))
TRAIN_MICRO_BATCHES = (1, 2)
# The 1.5B's training GEMMs (tokens x out x in: QKV/O, gate-up, down, logits) at micro-batch
# 1 and 2 of 2,048 tokens; each timed as a run of back-to-back products, as a step runs them.
GEMM_TOKENS = (2048, 4096)
GEMM_OUT_IN = ((2048, 2048), (12288, 2048), (2048, 6144), (32000, 2048))
GEMM_RUN = 20


def _step_clock(torch: Any) -> Any:
    from transformers import StoppingCriteria

    class StepClock(StoppingCriteria):
        """Stamps the wall and thread CPU clocks each time generate() asks whether to stop."""

        def __init__(self) -> None:
            self.wall: list[float] = []
            self.cpu: list[float] = []

        def __call__(self, input_ids: Any, scores: Any, **kwargs: Any) -> Any:
            self.wall.append(time.perf_counter())
            self.cpu.append(time.thread_time())
            return torch.zeros(input_ids.shape[0], dtype=torch.bool, device=input_ids.device)

    return StepClock


def _generate(model: Any, ids: Any, new: int, criteria: list[Any]) -> None:
    from transformers import StoppingCriteriaList

    model.generate(
        input_ids=ids,
        attention_mask=ids.new_ones(ids.shape),
        max_new_tokens=new,
        min_new_tokens=new,
        do_sample=False,
        pad_token_id=0,
        stopping_criteria=StoppingCriteriaList(criteria),
    )


def _deltas(stamps: list[float]) -> list[float]:
    # The first stamp follows the prefill; the rest are one decode step apart.
    return [b - a for a, b in itertools.pairwise(stamps[1:])]


def _kernels_per_step(torch: Any, model: Any, ids: Any, new: int) -> dict[str, Any]:
    """Kernels and their GPU time in one decode step: a generate of `new` tokens less one of a
    single token (the prefill), divided by the extra steps."""
    from torch.profiler import ProfilerActivity, profile

    def count(n: int) -> tuple[int, float]:
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
            _generate(model, ids, n, [])
            torch.cuda.synchronize()
        kernels = [e for e in prof.events() if e.device_type.name == "CUDA"]
        return len(kernels), sum(e.device_time for e in kernels) / 1e6

    few, few_s = count(1)
    many, many_s = count(new)
    steps = new - 1
    return {
        "kernels_per_step": (many - few) / steps,
        "kernel_gpu_s_per_step": (many_s - few_s) / steps,
        "profiled_new_tokens": new,
    }


def generate_case(
    torch: Any, model: Any, batch: int, ctx: int, new: int, profiled: bool
) -> dict[str, Any]:
    dev = next(model.parameters()).device
    ids = torch.randint(3, model.config.vocab_size, (batch, ctx), device=dev)
    clock_type = _step_clock(torch)
    with torch.no_grad():
        _generate(model, ids, 4, [])  # warm-up of this shape: kernels chosen, memory grown
        clock = clock_type()
        _generate(model, ids, new, [clock])
        walls, cpus = _deltas(clock.wall), _deltas(clock.cpu)
        out: dict[str, Any] = {
            "new_tokens": new,
            "step_wall_s": statistics.median(walls),
            "step_wall_min_s": min(walls),
            "step_wall_max_s": max(walls),
            "step_cpu_s": statistics.median(cpus),
            "steps_timed": len(walls),
            "step_wall_all_s": walls,
            "memory": memory_record(torch),
        }
        if profiled and torch.cuda.is_available():
            out.update(_kernels_per_step(torch, model, ids, 9))
    out["cpu_share_of_step"] = out["step_cpu_s"] / out["step_wall_s"]
    return out


def run_generate(torch: Any, *, tiny: bool, guard: Guard, log: Any, new: int) -> dict[str, Any]:
    import h200_decode

    results: list[dict[str, Any]] = []
    free_memory(torch)
    t0 = time.monotonic()
    model = h200_decode.build(
        torch, h200_decode.TINY if tiny else h200_decode.LLAMA3_8B, 512 if tiny else 128256
    )
    params = sum(p.numel() for p in model.parameters())
    head = {"model": "llama-3-8b-shape", "params": params, "build_s": time.monotonic() - t0}
    plan = ((1, 16), (2, 16), (2, 32)) if tiny else GENERATE_PLAN
    for batch, ctx in plan:
        case = {"measure": "generate_steps", **head, "batch": batch, "ctx": ctx}
        # Prefill runs three times per case at about 33,000 tokens per second.
        if not guard.allows(10 + 3 * batch * ctx / 30000):
            results.append({**case, "skipped": "time guard"})
            continue
        profiled = (batch, ctx) in PROFILED or (tiny and ctx == 16)
        attempt(
            results,
            case,
            lambda b=batch, c=ctx, p=profiled, m=model: generate_case(torch, m, b, c, new, p),
            log,
        )
        free_memory(torch)
    del model
    free_memory(torch)
    return {"results": results}


def train_case(torch: Any, model: Any, opt: Any, micro_batch: int, seq_len: int) -> dict:
    import h200_train

    dev = "cuda" if torch.cuda.is_available() else "cpu"
    ids = torch.randint(3, model.config.vocab_size, (micro_batch, seq_len), device=dev)
    step = h200_train.training_step(torch, model, opt, ids)
    for _ in range(5):
        step()
    walls, cpus = [], []
    for _ in range(12):
        if torch.cuda.is_available():
            torch.cuda.synchronize()
        w0, c0 = time.perf_counter(), time.thread_time()
        step()
        c1 = time.thread_time()  # the host is done queueing before the wait below
        if torch.cuda.is_available():
            torch.cuda.synchronize()
        walls.append(time.perf_counter() - w0)
        cpus.append(c1 - c0)
    step_s = statistics.median(walls)
    return {
        "oom": False,
        "step_s": step_s,
        "tokens_per_s": micro_batch * seq_len / step_s,
        "step_cpu_s": statistics.median(cpus),
        "step_all_s": walls,
        "memory": memory_record(torch),
    }


def run_train(torch: Any, *, tiny: bool, guard: Guard, log: Any) -> dict[str, Any]:
    import h200_train

    results: list[dict[str, Any]] = []
    seq_len = 64 if tiny else 2048
    shape = h200_train.TINY if tiny else h200_train.MODELS["llama-1.5b"]
    free_memory(torch)
    model = h200_train.build(torch, shape, 512 if tiny else h200_train.VOCAB, True)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=torch.cuda.is_available())
    params = sum(p.numel() for p in model.parameters())
    for mb in TRAIN_MICRO_BATCHES:
        case = {
            "measure": "train_repeat",
            "model": "llama-1.5b",
            "params": params,
            **shape,
            "vocab": model.config.vocab_size,
            "seq_len": seq_len,
            "micro_batch": mb,
            "mode": "eager",
            "activation_checkpointing": False,
            "use_cache": True,
            "recipe": "fp32 params, bf16 autocast, fused AdamW, HF loss (labels=input_ids)",
        }
        if not guard.allows(15):
            results.append({**case, "skipped": "time guard"})
            continue
        attempt(
            results, case, lambda mb=mb, m=model, o=opt: train_case(torch, m, o, mb, seq_len), log
        )
    del model, opt
    free_memory(torch)
    return {"results": results}


def run_gemm(torch: Any, *, tiny: bool, guard: Guard, log: Any) -> dict[str, Any]:
    dev = "cuda" if torch.cuda.is_available() else "cpu"
    dtype = torch.bfloat16
    results: list[dict[str, Any]] = []
    scale = 32 if tiny else 1
    for tokens in GEMM_TOKENS:
        for out_f, in_f in GEMM_OUT_IN:
            m, n, k = tokens // scale, out_f // scale, in_f // scale
            case = {"measure": "gemm_run", "m": m, "n": n, "k": k, "products": GEMM_RUN}
            if not guard.allows(5):
                results.append({**case, "skipped": "time guard"})
                continue

            def timed(m: int = m, n: int = n, k: int = k) -> dict[str, Any]:
                a = torch.randn(m, k, device=dev, dtype=dtype)
                b = torch.randn(n, k, device=dev, dtype=dtype)

                def products() -> None:
                    for _ in range(GEMM_RUN):
                        torch.nn.functional.linear(a, b)

                t = time_region(torch, products, warmup=2, repeats=5)
                flop = 2.0 * m * n * k * GEMM_RUN
                return {"tflops": flop / t["median_s"] / 1e12, "seconds": t["median_s"]}

            attempt(results, case, timed, log)
    return {"results": results}


def main(argv: list[str]) -> int:
    parser = run_parser(__doc__ or "", budget_s=280.0, only="gemm_runs,train_repeat,generate_steps")
    parser.add_argument("--new-tokens", type=int, default=40)
    args = parser.parse_args(argv[1:])
    out, guard, log = run_start(args.out, args.budget_s, "log-extra.txt")

    import torch

    torch.backends.cuda.matmul.allow_tf32 = True
    env = environment(argv)
    log(json.dumps({k: env.get(k) for k in ("torch", "transformers", "gpu")}, default=str))
    new = 6 if args.tiny else args.new_tokens
    runners = {
        "generate_steps": lambda: run_generate(
            torch, tiny=args.tiny, guard=guard, log=log, new=new
        ),
        "gemm_runs": lambda: run_gemm(torch, tiny=args.tiny, guard=guard, log=log),
        "train_repeat": lambda: run_train(torch, tiny=args.tiny, guard=guard, log=log),
    }
    run_groups(args.only, runners, out=out, env=env, guard=guard, log=log)
    log("done")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
