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
import statistics
import subprocess
import sys
from collections.abc import Callable
from dataclasses import asdict, dataclass

SCHEMA = "flopfit-probe/1"
GIB = 2**30


@dataclass(frozen=True)
class StepShape:
    """A decoder-only transformer step the probe runs and flopfit's engine can predict."""

    name: str
    layers: int
    hidden: int
    heads: int
    kv_heads: int
    ffn: int
    vocab: int
    seq_len: int
    micro_batch: int

    @property
    def params(self) -> int:
        head_dim = self.hidden // self.heads
        attn = (
            self.hidden * (self.hidden + 2 * self.kv_heads * head_dim) + self.hidden * self.hidden
        )
        mlp = 3 * self.hidden * self.ffn
        return (
            self.layers * (attn + mlp + 2 * self.hidden)
            + 2 * self.vocab * self.hidden
            + self.hidden
        )


TRAINING_STEPS = (
    StepShape(
        "small",
        layers=8,
        hidden=2048,
        heads=16,
        kv_heads=16,
        ffn=5632,
        vocab=32000,
        seq_len=2048,
        micro_batch=4,
    ),
    StepShape(
        "medium",
        layers=16,
        hidden=3072,
        heads=24,
        kv_heads=8,
        ffn=8192,
        vocab=32000,
        seq_len=2048,
        micro_batch=2,
    ),
)
DECODE = {"step": "small", "batch": 32, "context": 2048}


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
        out[name] = {
            "tflops": round(matmul_tflops(size, size, size, median_ms(samples)), 2),
            "shape": [size, size, size],
            "samples": len(samples),
        }
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
            out["fp8"] = {
                "tflops": round(matmul_tflops(size, size, size, median_ms(samples)), 2),
                "shape": [size, size, size],
                "samples": len(samples),
            }
        except (RuntimeError, TypeError) as exc:
            out["fp8"] = {"error": str(exc)[:200]}
    try:
        ai = torch.randint(-100, 100, (size, size), device=dev, dtype=torch.int8)
        bi = torch.randint(-100, 100, (size, size), device=dev, dtype=torch.int8)
        samples = time_cuda(torch, lambda: torch._int_mm(ai, bi), repeats=10, inner=3)
        out["int8"] = {
            "tflops": round(matmul_tflops(size, size, size, median_ms(samples)), 2),
            "shape": [size, size, size],
            "samples": len(samples),
            "unit": "TOPS",
        }
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


def group_sizes(world: int) -> list[int]:
    """The data-parallel group sizes one launch measures: 1, 2, 4, ... up to every rank."""
    sizes, size = [], 1
    while size < world:
        sizes.append(size)
        size *= 2
    return [*sizes, world]


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


def build_model(torch, shape: StepShape):
    nn, F = torch.nn, torch.nn.functional
    head_dim = shape.hidden // shape.heads

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.norm1 = nn.RMSNorm(shape.hidden)
            self.qkv = nn.Linear(
                shape.hidden, shape.hidden + 2 * shape.kv_heads * head_dim, bias=False
            )
            self.out = nn.Linear(shape.hidden, shape.hidden, bias=False)
            self.norm2 = nn.RMSNorm(shape.hidden)
            self.up = nn.Linear(shape.hidden, 2 * shape.ffn, bias=False)
            self.down = nn.Linear(shape.ffn, shape.hidden, bias=False)

        def forward(self, x, cache=None):
            b, s, _ = x.shape
            q, k, v = self.qkv(self.norm1(x)).split(
                [shape.hidden, shape.kv_heads * head_dim, shape.kv_heads * head_dim], dim=-1
            )
            q = q.view(b, s, shape.heads, head_dim).transpose(1, 2)
            k = k.view(b, s, shape.kv_heads, head_dim).transpose(1, 2)
            v = v.view(b, s, shape.kv_heads, head_dim).transpose(1, 2)
            if cache is not None:
                # Decode reads the cached keys and values in place, as a paged KV cache does;
                # concatenating would copy the whole cache every step and time the copy.
                k, v = cache
            attn = F.scaled_dot_product_attention(
                q, k, v, is_causal=cache is None, enable_gqa=shape.kv_heads != shape.heads
            )
            x = x + self.out(attn.transpose(1, 2).reshape(b, s, shape.hidden))
            gate, up = self.up(self.norm2(x)).chunk(2, dim=-1)
            return x + self.down(F.silu(gate) * up)

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Embedding(shape.vocab, shape.hidden)
            self.blocks = nn.ModuleList(Block() for _ in range(shape.layers))
            self.norm = nn.RMSNorm(shape.hidden)
            self.head = nn.Linear(shape.hidden, shape.vocab, bias=False)

        def forward(self, tokens, caches=None):
            x = self.embed(tokens)
            for i, block in enumerate(self.blocks):
                x = block(x, None if caches is None else caches[i])
            return self.head(self.norm(x))

    return Model()


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
