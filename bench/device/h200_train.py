"""Training steps of Llama-shaped decoders built by Hugging Face transformers from a config
(random weights): fp32 parameters, bf16 autocast, fused AdamW, as most Hugging Face and plain
PyTorch fine-tuning scripts run. Eager against torch.compile, activation checkpointing on and
off, and the caching allocator's peak memory for each."""

from __future__ import annotations

from typing import Any

from h200_common import attempt, free_memory, memory_record, time_region

# Llama shapes: hidden, intermediate, layers, heads, kv heads; vocabulary 32000, untied.
MODELS = {
    "llama-160m": {"hidden": 768, "ffn": 3072, "layers": 12, "heads": 12, "kv_heads": 12},
    "llama-1.5b": {"hidden": 2048, "ffn": 6144, "layers": 26, "heads": 16, "kv_heads": 16},
}
TINY = {"hidden": 64, "ffn": 128, "layers": 2, "heads": 4, "kv_heads": 4}
VOCAB = 32000
# (model, compile, checkpointing, micro-batches), in the order they run; compile last.
PLAN = (
    ("llama-160m", "eager", False, (4, 8, 16)),
    ("llama-1.5b", "eager", False, (1, 2, 4, 8, 16)),
    ("llama-1.5b", "eager", True, (4, 8, 16)),
    ("llama-160m", "compile", False, (8, 16)),
    ("llama-1.5b", "compile_regional", False, (2, 4)),
)
# The second run, with the KV cache off in training: eager again beside whole-model and
# per-layer compilation of the 1.5B (per-layer compilation hit dynamo's recompile limit
# while Hugging Face's training forward still built a KV cache).
COMPILE_PLAN = (
    ("llama-1.5b", "eager", False, (2, 4, 8)),
    ("llama-1.5b", "compile", False, (2, 4, 8)),
    ("llama-1.5b", "compile_regional", False, (4,)),
    ("llama-160m", "eager", False, (4, 8)),
    ("llama-160m", "compile", False, (4,)),
)


def build(torch: Any, shape: dict[str, int], vocab: int, use_cache: bool) -> Any:
    from transformers import LlamaConfig, LlamaForCausalLM

    config = LlamaConfig(
        vocab_size=vocab,
        hidden_size=shape["hidden"],
        intermediate_size=shape["ffn"],
        num_hidden_layers=shape["layers"],
        num_attention_heads=shape["heads"],
        num_key_value_heads=shape["kv_heads"],
        max_position_embeddings=8192,
        tie_word_embeddings=False,
        attn_implementation="sdpa",
        use_cache=use_cache,
    )
    dev = "cuda" if torch.cuda.is_available() else "cpu"
    with torch.device(dev):
        model = LlamaForCausalLM(config)
    return model.float().train()


def training_step(torch: Any, model: Any, opt: Any, ids: Any) -> Any:
    """One optimizer step of the recipe: bf16 autocast, Hugging Face's loss, fused AdamW."""
    dev = ids.device.type

    def step() -> None:
        with torch.autocast(dev, dtype=torch.bfloat16):
            loss = model(input_ids=ids, labels=ids).loss
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)

    return step


def step_case(
    torch: Any, model: Any, opt: Any, *, micro_batch: int, seq_len: int, repeats: int, warmup: int
) -> dict[str, Any]:
    dev = "cuda" if torch.cuda.is_available() else "cpu"
    free_memory(torch)
    ids = torch.randint(3, model.config.vocab_size, (micro_batch, seq_len), device=dev)
    step = training_step(torch, model, opt, ids)
    try:
        timing = time_region(torch, step, warmup=warmup, repeats=repeats)
    except torch.cuda.OutOfMemoryError as exc:
        opt.zero_grad(set_to_none=True)
        record = {"oom": True, "oom_message": str(exc)[:300], "memory": memory_record(torch)}
        free_memory(torch)
        return record
    tokens = micro_batch * seq_len
    return {
        "oom": False,
        "step_s": timing["median_s"],
        "tokens_per_s": tokens / timing["median_s"],
        "memory": memory_record(torch),
        "timing": timing,
    }


def _prepare(torch: Any, model: Any, mode: str, checkpointing: bool) -> None:
    if checkpointing:
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
    if mode == "compile":
        model.compile(dynamic=False)
    elif mode == "compile_regional":
        # The Hugging Face recipe for large models: each decoder layer compiled, one graph
        # shared by all layers, so compilation takes one layer's time.
        for layer in model.model.layers:
            layer.compile(dynamic=False)


def run(torch: Any, *, tiny: bool, guard: Any, log: Any, second: bool = False) -> dict[str, Any]:
    """The first run used the configuration's default `use_cache=True`; the second turns the
    training forward's KV cache off."""
    results: list[dict[str, Any]] = []
    seq_len = 64 if tiny else 2048
    use_cache = not second
    for name, mode, checkpointing, batches in COMPILE_PLAN if second else PLAN:
        need = 150 if mode.startswith("compile") else 30
        if not guard.allows(need):
            results.append({"model": name, "mode": mode, "skipped": "time guard"})
            continue
        shape = TINY if tiny else MODELS[name]
        free_memory(torch)
        model = build(torch, shape, 512 if tiny else VOCAB, use_cache)
        params = sum(p.numel() for p in model.parameters())
        _prepare(torch, model, mode, checkpointing)
        opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
        for mb in batches:
            case = {
                "measure": "train_step",
                "model": name,
                "params": params,
                **shape,
                "vocab": model.config.vocab_size,
                "seq_len": seq_len,
                "micro_batch": mb,
                "mode": mode,
                "activation_checkpointing": checkpointing,
                "recipe": "fp32 params, bf16 autocast, fused AdamW, HF loss (labels=input_ids)",
                "attention": getattr(model.config, "_attn_implementation", None),
                "use_cache": use_cache,
            }
            if not guard.allows(need / 2):
                results.append({**case, "skipped": "time guard"})
                continue
            warmup = 3 if mode.startswith("compile") else 2
            attempt(
                results,
                case,
                lambda mb=mb, warmup=warmup, model=model, opt=opt: step_case(
                    torch, model, opt, micro_batch=mb, seq_len=seq_len, repeats=6, warmup=warmup
                ),
                log,
            )
            if results[-1].get("oom"):
                break  # a larger micro-batch does not fit either
        del model, opt
        free_memory(torch)
        if mode.startswith("compile"):
            torch._dynamo.reset()
    return {"results": results}
