"""Measure what a GPU really does: dense matrix-multiply rates per precision, device and
host-to-device bandwidth, all-reduce bus bandwidth across GPUs, and a transformer training
step and decode step. Times with device events after warm-up, takes medians, never multiplies
zeros, and leaves the card's clocks and power settings alone.

    python -m planner.probe --out probe.json            # one GPU
    torchrun --nproc-per-node 8 -m planner.probe --out probe.json
        # and all-reduce and data-parallel steps on 1, 2, 4 and 8 of them

Only PyTorch is needed; everything is built locally with random weights, nothing downloaded.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import subprocess
import sys
from dataclasses import asdict

from planner.probe.kernels import (
    GIB,
    measure_allreduce,
    measure_bandwidth,
    measure_matmuls,
    median_ms,
    time_cuda,
)
from planner.probe.model import DECODE, TRAINING_STEPS, StepShape, build_model

SCHEMA = "flopfit-probe/1"


def nvidia_smi() -> dict:
    """Driver, clocks and power limit as the driver reports them (read only)."""
    fields = "driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.limit,power.max_limit,temperature.gpu"
    try:
        out = (
            subprocess.run(
                ["nvidia-smi", f"--query-gpu={fields}", "--format=csv,noheader,nounits"],
                capture_output=True,
                text=True,
                timeout=20,
                check=True,
            )
            .stdout.strip()
            .splitlines()[0]
        )
    except (OSError, subprocess.SubprocessError, IndexError):
        return {}
    keys = fields.split(",")
    return {k: v.strip() for k, v in zip(keys, out.split(","), strict=False)}


def compat_lines(torch, driver: str | None) -> list[str]:
    """The compatibility verdict for this machine, in English: the driver, the PyTorch build and
    the card's compute capability against the recorded rules (plain Python, no Django)."""
    from planner.compat.rules import Stack, check
    from planner.compat.sentences import english

    release = ".".join(torch.__version__.split("+")[0].split(".")[:2])
    build = torch.__version__.partition("+")[2] or None
    major, minor = torch.cuda.get_device_capability()
    try:
        verdict = check(
            Stack(
                card=torch.cuda.get_device_name(0),
                compute_capability=f"{major}.{minor}",
                driver=driver,
                torch=release,
                build=build,
            )
        )
    except (ValueError, KeyError):
        return [f"flopfit-probe: compatibility not checked for torch {torch.__version__}"]
    if not verdict.compatible:
        head = "will not run as it is"
    elif verdict.limited:
        head = "runs, with the limits of CUDA minor-version compatibility"
    else:
        head = "runs"
    lines = [f"flopfit-probe: compatibility: {head}"]
    lines += [f"  problem: {english(m)}" for m in verdict.problems]
    lines += [f"  note: {english(m)}" for m in verdict.notes]
    lines += [f"  fix: {english(f.sentence)} {f.command}".rstrip() for f in verdict.fixes]
    return lines


def group_sizes(world: int) -> list[int]:
    """The data-parallel group sizes one launch measures: 1, 2, 4, ... up to every rank."""
    sizes, size = [], 1
    while size < world:
        sizes.append(size)
        size *= 2
    return [*sizes, world]


def measure_training(torch, shape: StepShape, steps: int = 8, *, dist=None, group=None) -> dict:
    """bf16 autocast over fp32 weights with fused AdamW: PyTorch's ordinary mixed precision.
    With `dist`, data parallel over `group` as DistributedDataParallel runs it: each rank its
    own micro-batch, gradients all-reduced in buckets overlapping the backward pass."""
    model = build_model(torch, shape).cuda()
    ranks = 1
    if dist is not None:
        ranks = dist.get_world_size(group)
        model = torch.nn.parallel.DistributedDataParallel(
            model,
            device_ids=[torch.cuda.current_device()],
            process_group=group,
            gradient_as_bucket_view=True,
        )
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    tokens = torch.randint(0, shape.vocab, (shape.micro_batch, shape.seq_len + 1), device="cuda")
    loss_fn = torch.nn.functional.cross_entropy

    def step():
        with torch.autocast("cuda", dtype=torch.bfloat16):
            logits = model(tokens[:, :-1])
            loss = loss_fn(logits.float().view(-1, shape.vocab), tokens[:, 1:].reshape(-1))
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)

    torch.cuda.reset_peak_memory_stats()
    samples = time_cuda(torch, step, warmup=3, repeats=steps)
    ms = median_ms(samples)
    result = {
        **asdict(shape),
        "params": shape.params,
        "precision": "bf16",
        "recompute": "none",
        "attention": "flash",
        "optimizer": "adamw",
        "dp": ranks,
        "step_ms": round(ms, 3),
        # Every rank's tokens: what the engine predicts for the job.
        "tokens_per_s": round(ranks * shape.micro_batch * shape.seq_len / (ms / 1000), 1),
        "peak_memory_gib": round(torch.cuda.max_memory_allocated() / GIB, 3),
    }
    return result


def measure_decode(torch, shape: StepShape, batch: int, context: int) -> dict:
    """One new token for `batch` sequences attending to `context` cached tokens, bf16."""
    model = build_model(torch, shape).cuda().to(torch.bfloat16).eval()
    head_dim = shape.hidden // shape.heads
    caches = [
        (
            torch.randn(
                batch, shape.kv_heads, context, head_dim, device="cuda", dtype=torch.bfloat16
            ),
            torch.randn(
                batch, shape.kv_heads, context, head_dim, device="cuda", dtype=torch.bfloat16
            ),
        )
        for _ in range(shape.layers)
    ]
    token = torch.randint(0, shape.vocab, (batch, 1), device="cuda")
    with torch.inference_mode():
        ms = median_ms(time_cuda(torch, lambda: model(token, caches), warmup=3, repeats=10))
    result = {
        **asdict(shape),
        "params": shape.params,
        "precision": "bf16",
        "batch": batch,
        "context": context,
        "step_ms": round(ms, 3),
        "tokens_per_s": round(batch / (ms / 1000), 1),
    }
    return result


def measure_scaling(torch, dist, shapes, *, skip_training: bool = False):
    """All-reduce sweeps and data-parallel training steps on groups of 1, 2, 4, ... ranks, in
    one launch. Ranks outside a group wait at the barrier; rank 0 is in every group, so its
    rows are the report's."""
    rank, allreduce, training = dist.get_rank(), [], []
    for size in group_sizes(dist.get_world_size()):
        group = dist.new_group(ranks=list(range(size)))  # every rank takes part in creating it
        if rank < size:
            if size > 1:
                allreduce.extend(measure_allreduce(torch, dist, group=group))
            if not skip_training:
                for shape in shapes:
                    training.append(measure_training(torch, shape, dist=dist, group=group))
                    torch.cuda.empty_cache()
        dist.barrier()
    return allreduce, training


def run(*, skip_training: bool = False) -> dict:
    import torch

    if not torch.cuda.is_available():
        raise SystemExit("flopfit-probe: no CUDA device is visible")
    dist = None
    if "WORLD_SIZE" in os.environ:
        # Launched by torchrun, even on one GPU: the data-parallel path runs as it would on more.
        import torch.distributed as dist

        device = torch.device("cuda", int(os.environ.get("LOCAL_RANK", "0")))
        torch.cuda.set_device(device)
        # Naming the device binds each rank to its GPU up front (NCCL would otherwise guess
        # from the global rank, and barriers would warn).
        dist.init_process_group("nccl", device_id=device)
    props = torch.cuda.get_device_properties(0)
    if int(os.environ.get("RANK", "0")) == 0:
        # Before any kernel runs: a clash explains the failure that would follow.
        for line in compat_lines(torch, nvidia_smi().get("driver_version")):
            print(line, file=sys.stderr)
    report = {
        "schema": SCHEMA,
        "created": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "device": {
            "name": props.name,
            "capability": list(torch.cuda.get_device_capability()),
            "multiprocessors": props.multi_processor_count,
            "memory_gib": round(props.total_memory / GIB, 2),
            "count": torch.cuda.device_count(),
            **nvidia_smi(),
        },
        "software": {
            "torch": torch.__version__,
            "cuda": torch.version.cuda,
            "python": platform.python_version(),
        },
        "matmul": measure_matmuls(torch),
        "memory": measure_bandwidth(torch),
        "allreduce": [],
        "training": [],
        "decode": [],
    }
    if dist is not None:
        report["allreduce"], report["training"] = measure_scaling(
            torch, dist, TRAINING_STEPS, skip_training=skip_training
        )
    elif not skip_training:
        for shape in TRAINING_STEPS:
            report["training"].append(measure_training(torch, shape))
            torch.cuda.empty_cache()  # the model is gone with the call; give its memory back
    if not skip_training:
        shape = next(s for s in TRAINING_STEPS if s.name == DECODE["step"])
        report["decode"].append(measure_decode(torch, shape, DECODE["batch"], DECODE["context"]))
    report["device"].update(
        {
            f"{k}_after": v
            for k, v in nvidia_smi().items()
            if k.startswith(("clocks.sm", "temperature"))
        }
    )
    if dist is not None:
        dist.destroy_process_group()
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="flopfit-probe", description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default="-", help="where to write the JSON (default: stdout)")
    parser.add_argument("--skip-training", action="store_true", help="only the kernels and links")
    args = parser.parse_args(argv)
    report = run(skip_training=args.skip_training)
    if int(os.environ.get("RANK", "0")) != 0:
        return 0
    text = json.dumps(report, indent=2)
    if args.out == "-":
        print(text)
    else:
        with open(args.out, "w", encoding="utf-8") as handle:
            handle.write(text + "\n")
    print(
        f"flopfit-probe: {report['device']['name']}, bf16 {report['matmul'].get('bf16', {}).get('tflops')} TFLOP/s",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
