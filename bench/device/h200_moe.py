"""A mixture-of-experts layer with many small experts, forward and backward over a batch of
tokens: a loop over the experts (as Hugging Face's Qwen3-MoE and GPT-OSS layers run), the
same experts as one grouped GEMM per projection, and a dense gated MLP of the same FLOPs."""

from __future__ import annotations

from typing import Any

from h200_common import attempt, free_memory, memory_record, time_region

# hidden, experts, top-k, expert intermediate size (config.json of each model on the HF hub).
SHAPES = {
    "qwen3-30b-a3b": (2048, 128, 8, 768),
    "gpt-oss-20b": (2880, 32, 4, 2880),
}


def _route(torch: Any, x: Any, w_router: Any, top_k: int) -> tuple[Any, Any]:
    probs = torch.softmax((x @ w_router.t()).float(), dim=-1)
    weight, expert = torch.topk(probs, top_k, dim=-1)
    weight = weight / weight.sum(-1, keepdim=True)
    return weight.to(x.dtype), expert


def moe_loop(torch: Any, x: Any, p: dict[str, Any], top_k: int) -> Any:
    f = torch.nn.functional
    weight, expert = _route(torch, x, p["router"], top_k)
    out = torch.zeros_like(x)
    hit = torch.nonzero(torch.bincount(expert.flatten(), minlength=p["gate_up"].shape[0]))
    for e in hit.flatten().tolist():
        tok, slot = torch.where(expert == e)
        gate, up = (x[tok] @ p["gate_up"][e].t()).chunk(2, dim=-1)
        y = (f.silu(gate) * up) @ p["down"][e].t()
        out = out.index_add(0, tok, y * weight[tok, slot, None])
    return out


def _permute(torch: Any, expert: Any, experts: int, align: int) -> tuple[Any, Any, Any, int]:
    """Sorted order of the (token, slot) pairs by expert, each expert's rows padded to `align`."""
    flat = expert.flatten()
    order = torch.argsort(flat, stable=True)
    counts = torch.bincount(flat, minlength=experts)
    padded = (counts + align - 1) // align * align
    start = torch.cumsum(counts, 0) - counts
    pstart = torch.cumsum(padded, 0) - padded
    sorted_e = flat[order]
    rank = torch.arange(flat.numel(), device=flat.device) - start[sorted_e]
    dest = pstart[sorted_e] + rank
    total = int(padded.sum().item())
    return order, dest, torch.cumsum(padded, 0).to(torch.int32), total


def moe_grouped(torch: Any, x: Any, p: dict[str, Any], top_k: int) -> Any:
    f = torch.nn.functional
    weight, expert = _route(torch, x, p["router"], top_k)
    experts, hidden = p["gate_up"].shape[0], x.shape[1]
    order, dest, offs, total = _permute(torch, expert, experts, 16)
    tok = order // top_k
    xs = x.new_zeros(total, hidden).index_copy(0, dest, x[tok])
    gate_up = torch._grouped_mm(xs, p["gate_up"].transpose(-2, -1), offs=offs)
    gate, up = gate_up.chunk(2, dim=-1)
    y = torch._grouped_mm(f.silu(gate) * up, p["down"].transpose(-2, -1), offs=offs)
    y = y.index_select(0, dest) * weight.flatten()[order, None]
    return torch.zeros_like(x).index_add(0, tok, y)


def moe_bmm_padded(torch: Any, x: Any, p: dict[str, Any], top_k: int) -> Any:
    """Every expert padded to the busiest one's token count, then one batched product."""
    f = torch.nn.functional
    weight, expert = _route(torch, x, p["router"], top_k)
    experts, hidden = p["gate_up"].shape[0], x.shape[1]
    flat = expert.flatten()
    order = torch.argsort(flat, stable=True)
    counts = torch.bincount(flat, minlength=experts)
    cap = int(counts.max().item())
    sorted_e = flat[order]
    rank = (
        torch.arange(flat.numel(), device=x.device) - (torch.cumsum(counts, 0) - counts)[sorted_e]
    )
    dest = sorted_e * cap + rank
    tok = order // top_k
    xs = x.new_zeros(experts * cap, hidden).index_copy(0, dest, x[tok]).view(experts, cap, hidden)
    gate, up = torch.bmm(xs, p["gate_up"].transpose(-2, -1)).chunk(2, dim=-1)
    y = torch.bmm(f.silu(gate) * up, p["down"].transpose(-2, -1)).reshape(experts * cap, hidden)
    y = y.index_select(0, dest) * weight.flatten()[order, None]
    return torch.zeros_like(x).index_add(0, tok, y)


def dense_same_flops(torch: Any, x: Any, p: dict[str, Any], top_k: int) -> Any:
    f = torch.nn.functional
    gate, up = (x @ p["dense_gate_up"].t()).chunk(2, dim=-1)
    return (f.silu(gate) * up) @ p["dense_down"].t()


def _params(torch: Any, hidden: int, experts: int, top_k: int, inter: int, dev: str) -> dict:
    def w(*shape: int) -> Any:
        scale = shape[-1] ** -0.5
        return (torch.randn(*shape, device=dev) * scale).to(torch.bfloat16).requires_grad_()

    return {
        "router": w(experts, hidden),
        "gate_up": w(experts, 2 * inter, hidden),
        "down": w(experts, hidden, inter),
        "dense_gate_up": w(2 * inter * top_k, hidden),
        "dense_down": w(hidden, inter * top_k),
    }


def _fwd_bwd(torch: Any, variant: Any, x: Any, p: dict[str, Any], top_k: int) -> dict[str, Any]:
    grad = torch.randn_like(x)

    def step() -> None:
        out = variant(torch, x, p, top_k)
        out.backward(grad)
        for t in (x, *p.values()):
            t.grad = None

    fwd = time_region(torch, lambda: variant(torch, x, p, top_k), warmup=2, repeats=7)
    both = time_region(torch, step, warmup=2, repeats=7)
    return {"forward": fwd, "forward_backward": both}


def case(torch: Any, name: str, tokens: int, *, tiny: bool) -> dict[str, Any]:
    dev = "cuda" if torch.cuda.is_available() else "cpu"
    hidden, experts, top_k, inter = (64, 8, 2, 32) if tiny else SHAPES[name]
    free_memory(torch)
    p = _params(torch, hidden, experts, top_k, inter, dev)
    x = torch.randn(tokens, hidden, device=dev, dtype=torch.bfloat16).requires_grad_()
    flop_fwd = 2.0 * tokens * top_k * 3 * hidden * inter
    out: dict[str, Any] = {"hidden": hidden, "experts": experts, "top_k": top_k}
    out.update({"expert_inter": inter, "expert_flop_forward": flop_fwd})
    with torch.no_grad():
        ref = moe_loop(torch, x, p, top_k).float()
    variants = {
        "loop": moe_loop,
        "bmm_padded": moe_bmm_padded,
        "dense_same_flops": dense_same_flops,
    }
    if hasattr(torch, "_grouped_mm") and dev == "cuda":
        variants["grouped_mm"] = moe_grouped
    for label, fn in variants.items():
        try:
            if label not in ("loop", "dense_same_flops"):
                with torch.no_grad():
                    got = fn(torch, x, p, top_k).float()
                rel = float((got - ref).norm() / ref.norm())
            else:
                rel = None
            timing = _fwd_bwd(torch, fn, x, p, top_k)
            med = timing["forward_backward"]["median_s"]
            out[label] = {
                "rel_error_vs_loop": rel,
                "forward_s": timing["forward"]["median_s"],
                "forward_backward_s": med,
                "forward_backward_tflops": 3 * flop_fwd / med / 1e12,
                "timing": timing,
            }
        except Exception as exc:
            out[label] = {"error": f"{exc.__class__.__name__}: {str(exc)[:300]}"}
    out["memory"] = memory_record(torch)
    return out


def run(torch: Any, *, tiny: bool, guard: Any, log: Any) -> dict[str, Any]:
    results: list[dict[str, Any]] = []
    for name in SHAPES:
        for tokens in (256,) if tiny else (4096, 16384):
            if not guard.allows(30):
                results.append({"shape": name, "tokens": tokens, "skipped": "time guard"})
                continue
            attempt(
                results,
                {"measure": "moe_layer", "shape": name, "tokens": tokens},
                lambda name=name, tokens=tokens: case(torch, name, tokens, tiny=tiny),
                log,
            )
    return {"results": results}
