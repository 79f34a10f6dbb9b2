"""FP8 on one NVIDIA H200 as plain PyTorch runs it: GEMMs at training shapes, the cast a
per-tensor ("current") scaling recipe adds, and a few Llama layers trained with FP8 linears.

Run on the device machine, from the repository root, as:

    MEASURE_COMMAND='<the shell line>' PYTHONUNBUFFERED=1 \
        python3 bench/device/measure_h200_fp8.py --out "$OUT" --budget-s 300

It writes into --out:
- fp8_gemm.json: for the linear layers of Llama-3-8B (whole) and Llama-3-70B (one of eight
  tensor-parallel shards) at 4,096, 8,192 and 16,384 tokens, a bf16 product (torch.matmul)
  and an FP8 product (torch._scaled_mm, E4M3 inputs, one scale per tensor, bf16 out), each
  timed as a run of back-to-back products; TFLOP/s of each.
- fp8_cast.json: the per-tensor cast of a bf16 activation to E4M3 (absolute maximum, scale,
  clamp, convert), eager and under torch.compile, as GB/s of bf16 read.
- fp8_layers.json: four Llama-3-8B-shaped layers (RMSNorm, SDPA attention in bf16, SwiGLU),
  forward and backward at 2 x 4,096 tokens, with every linear in bf16 or in FP8 (forward
  E4M3 x E4M3, backward gradients in E5M2, scales per tensor recomputed every step, as
  torchao's float8 "tensorwise" recipe does), eager and compiled; tokens/s and peak memory.
- fp8_train.json: the 1.5B Llama of h200_train.py as rows HT17-HT19 ran it (fp32 parameters,
  bf16 autocast, fused AdamW, whole model compiled), at micro-batch 2, 4 and 8 of 2,048
  tokens, with its projections in bf16 and in FP8 (the FP8 linear above over the same fp32
  weights; the LM head stays bf16), and FP8 eager at micro-batch 4.
Transformer Engine is not on the machine, so its delayed-scaling recipe is not measured here.
Every report carries the versions, GPU, clocks, date and command line. `--tiny` runs the same
code at toy sizes on whatever device is present, to check the logic.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from h200_common import (
    attempt,
    environment,
    free_memory,
    memory_record,
    run_groups,
    run_parser,
    run_start,
    time_region,
)

E4M3_MAX = 448.0
E5M2_MAX = 57344.0
TOKENS = (4096, 8192, 16384)
# (name, out features, in features) of each linear layer.
LLAMA3_8B = (
    ("qkv", 6144, 4096),
    ("o", 4096, 4096),
    ("gate_up", 28672, 4096),
    ("down", 4096, 14336),
)
LLAMA3_70B_TP8 = (
    ("qkv", 1280, 8192),
    ("o", 8192, 1024),
    ("gate_up", 7168, 8192),
    ("down", 8192, 3584),
)
RUN = 20


def cast(torch: Any, t: Any, dtype: Any, limit: float) -> tuple[Any, Any]:
    """t in `dtype` scaled so its largest magnitude meets the format's limit, and the inverse
    scale that undoes it."""
    amax = t.abs().amax().float().clamp(min=1e-12)
    scale = limit / amax
    return (t.float() * scale).clamp(-limit, limit).to(dtype), scale.reciprocal()


def col_major(t: Any) -> Any:
    return t.t().contiguous().t()


def run_gemm(torch: Any, *, tiny: bool, guard: Any, log: Any) -> dict[str, Any]:
    results: list[dict[str, Any]] = []
    dev = "cuda"
    shapes = {"llama-3-8b": LLAMA3_8B, "llama-3-70b-tp8": LLAMA3_70B_TP8}
    tokens = (64, 128) if tiny else TOKENS
    for model, layers in shapes.items():
        for m in tokens:
            for name, n, k in layers:
                if tiny:
                    n, k = 64, 128
                if not guard.allows(8):
                    results.append(
                        {"model": model, "layer": name, "tokens": m, "skipped": "time guard"}
                    )
                    continue
                case = {"model": model, "layer": name, "tokens": m, "out": n, "in": k}

                def measure(m: int = m, n: int = n, k: int = k) -> dict[str, Any]:
                    x = torch.randn(m, k, device=dev, dtype=torch.bfloat16)
                    w = torch.randn(n, k, device=dev, dtype=torch.bfloat16) * 0.02
                    x8, sx = cast(torch, x, torch.float8_e4m3fn, E4M3_MAX)
                    w8, sw = cast(torch, w, torch.float8_e4m3fn, E4M3_MAX)
                    wt8 = w8.t()  # column-major (k, n), as _scaled_mm wants its second input
                    flops = 2.0 * m * n * k * RUN

                    def bf16() -> None:
                        for _ in range(RUN):
                            torch.matmul(x, w.t())

                    def fp8() -> None:
                        for _ in range(RUN):
                            torch._scaled_mm(
                                x8, wt8, scale_a=sx, scale_b=sw, out_dtype=torch.bfloat16
                            )

                    tb = time_region(torch, bf16, warmup=2, repeats=5)
                    tf = time_region(torch, fp8, warmup=2, repeats=5)
                    return {
                        "bf16_tflops": flops / tb["median_s"] / 1e12,
                        "fp8_tflops": flops / tf["median_s"] / 1e12,
                        "bf16_s_per_product": tb["median_s"] / RUN,
                        "fp8_s_per_product": tf["median_s"] / RUN,
                    }

                attempt(results, case, measure, log)
    return {"results": results, "run": RUN}


def run_cast(torch: Any, *, tiny: bool, guard: Any, log: Any) -> dict[str, Any]:
    results: list[dict[str, Any]] = []
    compiled = torch.compile(lambda t: cast(torch, t, torch.float8_e4m3fn, E4M3_MAX))
    shapes = ((64, 128),) if tiny else ((8192, 4096), (16384, 4096), (8192, 14336))
    for m, k in shapes:
        for mode, fn in (
            ("eager", lambda t: cast(torch, t, torch.float8_e4m3fn, E4M3_MAX)),
            ("compiled", compiled),
        ):
            if not guard.allows(20):
                results.append({"rows": m, "cols": k, "mode": mode, "skipped": "time guard"})
                continue

            def measure(m: int = m, k: int = k, fn: Any = fn) -> dict[str, Any]:
                x = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
                t = time_region(torch, lambda: fn(x), warmup=3, repeats=10)
                return {
                    "cast_s": t["median_s"],
                    "bf16_read_gb_s": x.numel() * 2 / t["median_s"] / 1e9,
                }

            attempt(results, {"rows": m, "cols": k, "mode": mode}, measure, log)
    return {"results": results}


def fp8_linear(torch: Any) -> Any:
    class Fp8Matmul(torch.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any, w: Any) -> Any:
            x8, sx = cast(torch, x, torch.float8_e4m3fn, E4M3_MAX)
            w8, sw = cast(torch, w, torch.float8_e4m3fn, E4M3_MAX)
            ctx.save_for_backward(x8, sx, w8, sw)
            ctx.dtypes = (x.dtype, w.dtype)
            return torch._scaled_mm(x8, w8.t(), scale_a=sx, scale_b=sw, out_dtype=torch.bfloat16)

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            x8, sx, w8, sw = ctx.saved_tensors
            g8, sg = cast(torch, g, torch.float8_e5m2, E5M2_MAX)
            dx = torch._scaled_mm(
                g8, col_major(w8), scale_a=sg, scale_b=sw, out_dtype=torch.bfloat16
            )
            dw = torch._scaled_mm(
                g8.t().contiguous(), col_major(x8), scale_a=sg, scale_b=sx, out_dtype=torch.bfloat16
            )
            return dx.to(ctx.dtypes[0]), dw.to(ctx.dtypes[1])

    class Linear(torch.nn.Module):
        def __init__(self, n_in: int, n_out: int, fp8: bool, weight: Any = None) -> None:
            super().__init__()
            if weight is None:
                weight = torch.nn.Parameter(torch.randn(n_out, n_in, dtype=torch.bfloat16) * 0.02)
            self.weight = weight
            self.fp8 = fp8

        def forward(self, x: Any) -> Any:
            flat = x.reshape(-1, x.shape[-1])
            y = Fp8Matmul.apply(flat, self.weight) if self.fp8 else flat @ self.weight.t()
            return y.reshape(*x.shape[:-1], -1)

    return Linear


def llama_layers(torch: Any, *, fp8: bool, tiny: bool) -> Any:
    Linear = fp8_linear(torch)
    h, ffn, heads, kv, n_layers = (128, 256, 4, 2, 2) if tiny else (4096, 14336, 32, 8, 4)
    hd = h // heads

    class Layer(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.n1 = torch.nn.RMSNorm(h, dtype=torch.bfloat16)
            self.n2 = torch.nn.RMSNorm(h, dtype=torch.bfloat16)
            self.qkv = Linear(h, (heads + 2 * kv) * hd, fp8)
            self.o = Linear(h, h, fp8)
            self.gate_up = Linear(h, 2 * ffn, fp8)
            self.down = Linear(ffn, h, fp8)

        def forward(self, x: Any) -> Any:
            b, s, _ = x.shape
            q, k, v = self.qkv(self.n1(x)).split([heads * hd, kv * hd, kv * hd], dim=-1)
            q = q.view(b, s, heads, hd).transpose(1, 2)
            k = k.view(b, s, kv, hd).transpose(1, 2)
            v = v.view(b, s, kv, hd).transpose(1, 2)
            a = torch.nn.functional.scaled_dot_product_attention(
                q, k, v, is_causal=True, enable_gqa=True
            )
            x = x + self.o(a.transpose(1, 2).reshape(b, s, h))
            gate, up = self.gate_up(self.n2(x)).chunk(2, dim=-1)
            return x + self.down(torch.nn.functional.silu(gate) * up)

    return torch.nn.Sequential(*[Layer() for _ in range(n_layers)]).cuda(), h


def run_layers(torch: Any, *, tiny: bool, guard: Any, log: Any) -> dict[str, Any]:
    results: list[dict[str, Any]] = []
    batch, seq = (2, 64) if tiny else (2, 4096)
    for precision in ("bf16", "fp8"):
        for compile_ in (False, True):
            case = {"precision": precision, "compile": compile_, "batch": batch, "seq": seq}
            if not guard.allows(60 if compile_ else 20):
                results.append({**case, "skipped": "time guard"})
                continue

            def measure(precision: str = precision, compile_: bool = compile_) -> dict[str, Any]:
                free_memory(torch)
                model, h = llama_layers(torch, fp8=precision == "fp8", tiny=tiny)
                params = sum(p.numel() for p in model.parameters())
                run = torch.compile(model) if compile_ else model
                x = torch.randn(
                    batch, seq, h, device="cuda", dtype=torch.bfloat16, requires_grad=True
                )

                def step() -> None:
                    run(x).float().pow(2).mean().backward()

                t0 = time.monotonic()
                step()
                torch.cuda.synchronize()
                first_s = time.monotonic() - t0
                t = time_region(torch, step, warmup=3, repeats=10)
                record = {
                    "params": params,
                    "first_step_s": first_s,
                    "step_s": t["median_s"],
                    "tokens_per_s": batch * seq / t["median_s"],
                    "memory": memory_record(torch),
                }
                return record

            attempt(results, case, measure, log)
    return {"results": results}


TRAIN_MICRO_BATCHES = (2, 4, 8)
PROJECTIONS = {
    "self_attn": ("q_proj", "k_proj", "v_proj", "o_proj"),
    "mlp": ("gate_proj", "up_proj", "down_proj"),
}


def to_fp8_linears(torch: Any, model: Any) -> int:
    """Every projection of every decoder layer as an FP8 linear over the same fp32 weight (the
    LM head stays in bf16, as torchao and Transformer Engine leave it by default)."""
    Linear = fp8_linear(torch)
    swapped = 0
    for layer in model.model.layers:
        for part, names in PROJECTIONS.items():
            block = getattr(layer, part)
            for name in names:
                old = getattr(block, name)
                setattr(block, name, Linear(old.in_features, old.out_features, True, old.weight))
                swapped += 1
    return swapped


def run_train(
    torch: Any,
    *,
    tiny: bool,
    guard: Any,
    log: Any,
    cases: str = "bf16:compile,fp8:compile,fp8:eager",
) -> dict[str, Any]:
    """The 1.5B Llama of h200_train.py (fp32 parameters, bf16 autocast, fused AdamW, Hugging
    Face's loss, KV cache off, whole model compiled) with its projections in bf16 (as rows
    HT17-HT19 ran) and in FP8."""
    from h200_train import MODELS, TINY, VOCAB, build, step_case

    results: list[dict[str, Any]] = []
    seq_len = 64 if tiny else 2048
    shape = TINY if tiny else MODELS["llama-1.5b"]
    for precision, mode in (case.split(":") for case in cases.split(",")):
        if not guard.allows(150 if mode == "compile" else 40):
            results.append({"precision": precision, "mode": mode, "skipped": "time guard"})
            continue
        free_memory(torch)
        model = build(torch, shape, 512 if tiny else VOCAB, False)
        swapped = to_fp8_linears(torch, model) if precision == "fp8" else 0
        if mode == "compile":
            model.compile(dynamic=False)
        opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
        batches = TRAIN_MICRO_BATCHES if mode == "compile" else (4,)
        for mb in batches:
            case = {
                "measure": "train_step",
                "model": "llama-1.5b",
                "params": sum(p.numel() for p in model.parameters()),
                **shape,
                "vocab": model.config.vocab_size,
                "seq_len": seq_len,
                "micro_batch": mb,
                "mode": mode,
                "precision": precision,
                "fp8_linears": swapped,
                "recipe": "fp32 params, bf16 autocast, fused AdamW, HF loss (labels=input_ids);"
                " fp8: E4M3 forward, E5M2 gradients, per-tensor scales each step",
                "use_cache": False,
            }
            if not guard.allows(30):
                results.append({**case, "skipped": "time guard"})
                continue
            attempt(
                results,
                case,
                lambda mb=mb, model=model, opt=opt, mode=mode: step_case(
                    torch,
                    model,
                    opt,
                    micro_batch=mb,
                    seq_len=seq_len,
                    repeats=6,
                    warmup=3 if mode == "compile" else 2,
                ),
                log,
            )
        del model, opt
        free_memory(torch)
        torch._dynamo.reset()
    return {"results": results}


def main(argv: list[str]) -> int:
    parser = run_parser(
        __doc__ or "", budget_s=300.0, only="fp8_gemm,fp8_cast,fp8_layers,fp8_train"
    )
    parser.add_argument(
        "--train-cases",
        default="bf16:compile,fp8:compile,fp8:eager",
        help="fp8_train's precision:mode pairs, in order",
    )
    args = parser.parse_args(argv[1:])
    out, guard, log = run_start(args.out, args.budget_s, "log-fp8.txt")

    import torch

    env = environment(argv)
    log(json.dumps({k: env.get(k) for k in ("torch", "gpu")}, default=str))
    runners = {
        "fp8_gemm": lambda: run_gemm(torch, tiny=args.tiny, guard=guard, log=log),
        "fp8_cast": lambda: run_cast(torch, tiny=args.tiny, guard=guard, log=log),
        "fp8_layers": lambda: run_layers(torch, tiny=args.tiny, guard=guard, log=log),
        "fp8_train": lambda: run_train(
            torch, tiny=args.tiny, guard=guard, log=log, cases=args.train_cases
        ),
    }
    run_groups(args.only, runners, out=out, env=env, guard=guard, log=log)
    log("done")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
