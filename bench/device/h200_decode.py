"""Decoding a Llama-3-8B-shaped model (random weights, bf16) two ways: Hugging Face
`generate()` as shipped (dynamic KV cache, eager kernels), and a decode step over a static KV
cache with fused QKV and gate-up projections replayed as one CUDA graph, the way serving
engines run it. Also prefill time at each context length."""

from __future__ import annotations

import time
from typing import Any

from h200_common import attempt, free_memory, memory_record, time_region

LLAMA3_8B = {"hidden": 4096, "ffn": 14336, "layers": 32, "heads": 32, "kv_heads": 8}
TINY = {"hidden": 128, "ffn": 256, "layers": 2, "heads": 8, "kv_heads": 2}
BATCHES = (1, 8, 32, 64)
CONTEXTS = (512, 2048, 8192)
# generate() must prefill the whole batch first; past this many prompt tokens it is skipped.
GENERATE_MAX_PROMPT_TOKENS = 131072


def build(torch: Any, shape: dict[str, int], vocab: int) -> Any:
    from transformers import LlamaConfig, LlamaForCausalLM

    config = LlamaConfig(
        vocab_size=vocab,
        hidden_size=shape["hidden"],
        intermediate_size=shape["ffn"],
        num_hidden_layers=shape["layers"],
        num_attention_heads=shape["heads"],
        num_key_value_heads=shape["kv_heads"],
        max_position_embeddings=16384,
        rope_theta=500000.0,
        tie_word_embeddings=False,
        attn_implementation="sdpa",
    )
    dev = "cuda" if torch.cuda.is_available() else "cpu"
    with torch.device(dev):
        model = LlamaForCausalLM(config)
    return model.to(torch.bfloat16).eval()


class StaticDecoder:
    """One decode step over a static KV cache, built from the Hugging Face model's weights."""

    def __init__(self, torch: Any, model: Any, max_pos: int) -> None:
        self.torch = torch
        cfg = model.config
        self.heads, self.kv_heads = cfg.num_attention_heads, cfg.num_key_value_heads
        self.head_dim = cfg.hidden_size // cfg.num_attention_heads
        self.eps = cfg.rms_norm_eps
        layers = model.model.layers
        cat = torch.cat
        self.wqkv = [
            cat([m.self_attn.q_proj.weight, m.self_attn.k_proj.weight, m.self_attn.v_proj.weight])
            for m in layers
        ]
        self.wo = [m.self_attn.o_proj.weight for m in layers]
        self.wgu = [cat([m.mlp.gate_proj.weight, m.mlp.up_proj.weight]) for m in layers]
        self.wd = [m.mlp.down_proj.weight for m in layers]
        self.n1 = [m.input_layernorm.weight for m in layers]
        self.n2 = [m.post_attention_layernorm.weight for m in layers]
        self.embed, self.norm = model.model.embed_tokens.weight, model.model.norm.weight
        self.head = model.lm_head.weight
        dev = self.embed.device
        pos = torch.arange(max_pos, device=dev)[None]
        probe = torch.zeros(1, max_pos, self.head_dim, device=dev, dtype=torch.bfloat16)
        cos, sin = model.model.rotary_emb(probe, pos)
        self.cos, self.sin = cos[0], sin[0]

    def _rms(self, x: Any, w: Any) -> Any:
        xf = x.float()
        return w * (xf * self.torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + self.eps)).to(x.dtype)

    def _rope(self, x: Any, cos: Any, sin: Any) -> Any:
        half = x.shape[-1] // 2
        rotated = self.torch.cat([-x[..., half:], x[..., :half]], dim=-1)
        return x * cos + rotated * sin

    def step(self, tok: Any, pos: Any, keys: list[Any], values: list[Any]) -> Any:
        """Logits for `tok` at position `pos` (a one-element device tensor); attends over the
        whole static cache, whose length is the context."""
        f = self.torch.nn.functional
        b, d, nh, kvh = tok.shape[0], self.head_dim, self.heads, self.kv_heads
        x = f.embedding(tok, self.embed)
        cos, sin = self.cos.index_select(0, pos), self.sin.index_select(0, pos)
        for i in range(len(self.wqkv)):
            q, k, v = (self._rms(x, self.n1[i]) @ self.wqkv[i].t()).split(
                [nh * d, kvh * d, kvh * d], dim=-1
            )
            q = self._rope(q.view(b, nh, d), cos, sin)
            k = self._rope(k.view(b, kvh, d), cos, sin)
            keys[i].index_copy_(2, pos, k.unsqueeze(2))
            values[i].index_copy_(2, pos, v.view(b, kvh, 1, d))
            # Grouped-query attention: a KV head's query heads stand in as its query rows.
            a = f.scaled_dot_product_attention(q.view(b, kvh, nh // kvh, d), keys[i], values[i])
            x = x + a.reshape(b, nh * d) @ self.wo[i].t()
            gate, up = (self._rms(x, self.n2[i]) @ self.wgu[i].t()).chunk(2, dim=-1)
            x = x + (f.silu(gate) * up) @ self.wd[i].t()
        return self._rms(x, self.norm) @ self.head.t()


def _hf_cache_kv(cache: Any, i: int) -> tuple[Any, Any]:
    if hasattr(cache, "layers"):
        return cache.layers[i].keys, cache.layers[i].values
    if hasattr(cache, "key_cache"):
        return cache.key_cache[i], cache.value_cache[i]
    return cache[i][0], cache[i][1]


def check_against_hf(torch: Any, model: Any, dec: StaticDecoder) -> dict[str, Any]:
    """Next-token logits of the static step against Hugging Face's own forward pass."""
    dev, prompt = dec.embed.device, 37
    ids = torch.randint(3, model.config.vocab_size, (2, prompt + 1), device=dev)
    with torch.no_grad():
        first = model(input_ids=ids[:, :prompt], use_cache=True)
        ref = model(input_ids=ids[:, prompt:], past_key_values=first.past_key_values).logits[:, -1]
        keys, values = [], []
        for i in range(len(dec.wqkv)):
            k, v = _hf_cache_kv(first.past_key_values, i)
            keys.append(torch.cat([k[:, :, :prompt], torch.zeros_like(k[:, :, :1])], 2))
            values.append(torch.cat([v[:, :, :prompt], torch.zeros_like(v[:, :, :1])], 2))
        got = dec.step(ids[:, prompt], torch.tensor([prompt], device=dev), keys, values)
    rel = float((got.float() - ref.float()).norm() / ref.float().norm())
    return {"rel_error_vs_hf": rel, "same_argmax": bool((got.argmax(-1) == ref.argmax(-1)).all())}


def static_case(torch: Any, dec: StaticDecoder, cache: tuple[Any, Any], batch: int, ctx: int):
    dev = dec.embed.device
    keys = [cache[0][i, :batch] for i in range(len(dec.wqkv))]
    values = [cache[1][i, :batch] for i in range(len(dec.wqkv))]
    tok = torch.randint(3, dec.embed.shape[0], (batch,), device=dev)
    pos = torch.tensor([ctx - 1], device=dev)
    out: dict[str, Any] = {}
    with torch.no_grad():
        eager = time_region(torch, lambda: dec.step(tok, pos, keys, values), warmup=2, repeats=5)
        out["eager_step_s"] = eager["median_s"]
        if torch.cuda.is_available():
            side = torch.cuda.Stream()
            side.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(side):
                for _ in range(3):
                    tok.copy_(dec.step(tok, pos, keys, values).argmax(-1))
            torch.cuda.current_stream().wait_stream(side)
            graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(graph):
                tok.copy_(dec.step(tok, pos, keys, values).argmax(-1))
            timing = time_region(torch, graph.replay, warmup=3, repeats=30)
            out.update(graph_step_s=timing["median_s"], graph_timing=timing)
            out["graph_tokens_per_s"] = batch / timing["median_s"]
            del graph
    out["eager_tokens_per_s"] = batch / out["eager_step_s"]
    return out


def generate_case(torch: Any, model: Any, batch: int, ctx: int, new: int) -> dict[str, Any]:
    dev = next(model.parameters()).device
    ids = torch.randint(3, model.config.vocab_size, (batch, ctx), device=dev)
    mask = torch.ones_like(ids)

    def gen(n: int) -> None:
        model.generate(
            input_ids=ids,
            attention_mask=mask,
            max_new_tokens=n,
            min_new_tokens=n,
            do_sample=False,
            pad_token_id=0,
        )

    with torch.no_grad():
        one = time_region(torch, lambda: gen(1), warmup=1, repeats=2)
        many = time_region(torch, lambda: gen(new), warmup=0, repeats=2)
    per_token = (many["median_s"] - one["median_s"]) / (new - 1)
    return {
        "new_tokens": new,
        "prefill_plus_first_token_s": one["median_s"],
        "generate_s": many["median_s"],
        "decode_s_per_token": per_token,
        "decode_tokens_per_s": batch / per_token,
        "memory": memory_record(torch),
    }


def prefill_case(torch: Any, model: Any, batch: int, ctx: int) -> dict[str, Any]:
    dev = next(model.parameters()).device
    ids = torch.randint(3, model.config.vocab_size, (batch, ctx), device=dev)
    with torch.no_grad():
        t = time_region(
            torch,
            lambda: model(input_ids=ids, use_cache=True, logits_to_keep=1),
            warmup=1,
            repeats=3,
        )
    return {"prefill_s": t["median_s"], "prefill_tokens_per_s": batch * ctx / t["median_s"]}


def run(torch: Any, *, tiny: bool, guard: Any, log: Any) -> dict[str, Any]:
    results: list[dict[str, Any]] = []
    free_memory(torch)
    t0 = time.monotonic()
    model = build(torch, TINY if tiny else LLAMA3_8B, 512 if tiny else 128256)
    params = sum(p.numel() for p in model.parameters())
    contexts = (16, 32) if tiny else CONTEXTS
    batches = (1, 2) if tiny else BATCHES
    dec = StaticDecoder(torch, model, max(*contexts, 64) + 1)
    head = {"model": "llama-3-8b-shape", "params": params, "build_s": time.monotonic() - t0}
    attempt(
        results,
        {"measure": "static_step_check", **head},
        lambda model=model, dec=dec: check_against_hf(torch, model, dec),
        log,
    )
    cfg, dtype = model.config, torch.bfloat16
    for ctx in contexts:
        if not guard.allows(40):
            results.append({"measure": "decode_static", "ctx": ctx, "skipped": "time guard"})
            continue
        free_memory(torch)
        shape = (cfg.num_hidden_layers, max(batches), cfg.num_key_value_heads, ctx, dec.head_dim)
        # Random keys and values, not zeros: the cache is read as a real one would be.
        cache = tuple(torch.randn(shape, dtype=dtype, device=dec.embed.device) for _ in "kv")
        for b in batches:
            case = {"measure": "decode_static", **head, "batch": b, "ctx": ctx}
            case["stack"] = "custom static-KV step, fused QKV/gate-up, CUDA graph; SDPA attention"
            attempt(
                results,
                case,
                lambda b=b, ctx=ctx, dec=dec, cache=cache: static_case(torch, dec, cache, b, ctx),
                log,
            )
        del cache
    del dec
    free_memory(torch)
    for ctx in contexts:
        for b in batches:
            case = {"measure": "decode_hf_generate", **head, "batch": b, "ctx": ctx}
            case["stack"] = "transformers generate(), greedy, default dynamic cache, SDPA"
            if b * ctx > GENERATE_MAX_PROMPT_TOKENS:
                results.append({**case, "skipped": "prompt too large for the time budget"})
            elif not guard.allows(45):
                results.append({**case, "skipped": "time guard"})
            else:
                new = 5 if tiny else 17
                attempt(
                    results,
                    case,
                    lambda b=b, ctx=ctx, n=new, model=model: generate_case(torch, model, b, ctx, n),
                    log,
                )
    for b, ctx in [(1, c) for c in contexts] + [(8, contexts[1])]:
        case = {"measure": "prefill_forward", **head, "batch": b, "ctx": ctx}
        if not guard.allows(20):
            results.append({**case, "skipped": "time guard"})
            continue
        attempt(
            results, case, lambda b=b, ctx=ctx, model=model: prefill_case(torch, model, b, ctx), log
        )
    del model
    free_memory(torch)
    return {"results": results}
