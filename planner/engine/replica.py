"""One serving replica as the engine sees it: its step times fitted to `inference_time`, the KV
tokens its memory holds and the largest batch those hold at a question's lengths. The serving
simulation runs on these figures and the plan's capacity is found from them, so the two answer
from the same physics."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from planner.engine.inference import InferenceTime, inference_time
from planner.engine.memory import inference_memory, usable_memory_bytes
from planner.engine.parallel import serving_tp
from planner.engine.shapes import kv_cache_bytes
from planner.engine.specs import GIB, EstimateRequest

BLOCK_TOKENS = 16  # vLLM's default KV block size (PagedAttention, Kwon et al. 2023)

# Fit points: prefill steps of 4 and 16 prompts of 512 tokens (compute-bound on data-centre
# parts); decode at 1 and 64 sequences and 1,024 and 4,096 tokens of context each.
_PREFILL_PROMPT = 512
_PREFILL_BATCHES = (4, 16)
_DECODE_CONTEXTS = (1024, 4096)
_DECODE_BATCH = 64


@dataclass(frozen=True)
class StepModel:
    """Step times of one replica. prefill_s(tokens) = max(floor, fixed + per_token x tokens);
    decode_s(batch, context) = fixed + per_seq x batch + per_token x total context tokens."""

    prefill_fixed_s: float
    prefill_per_token_s: float
    decode_fixed_s: float
    decode_per_token_s: float
    decode_per_seq_s: float = 0.0
    prefill_floor_s: float = 0.0  # weights read once per step, however short the prompts
    tp: int = 1

    def prefill_s(self, tokens: float) -> float:
        return max(self.prefill_floor_s, self.prefill_fixed_s + self.prefill_per_token_s * tokens)

    def decode_s(self, batch: int, context_tokens: float) -> float:
        return (
            self.decode_fixed_s
            + self.decode_per_seq_s * batch
            + self.decode_per_token_s * context_tokens
        )


def engine_tp(request: EstimateRequest) -> int:
    """The tensor-parallel group `estimate` serves with: the question's, else the smallest
    whose shard fits."""
    return serving_tp(request)[0]


def _at(request: EstimateRequest, *, batch: int, prompt: int, tp: int) -> InferenceTime:
    inf = dataclasses.replace(request.inference, batch=batch, prompt_len=prompt, output_len=0)
    return inference_time(dataclasses.replace(request, inference=inf), tp=tp)


def step_model_from_engine(request: EstimateRequest, *, tp: int | None = None) -> StepModel:
    """Linear step times fitted to `inference_time`, so the simulation and the estimate agree.
    Prefill: a line through two compute-bound steps, floored at a one-token prefill (the weights
    are read once a step). Decode: the engine reads the KV cache at `batch x prompt_len` context
    tokens (output_len 0 makes the context exactly prompt_len)."""
    tp = tp or engine_tp(request)
    small, large = (
        _at(request, batch=b, prompt=_PREFILL_PROMPT, tp=tp).prefill_s for b in _PREFILL_BATCHES
    )
    tokens = [b * _PREFILL_PROMPT for b in _PREFILL_BATCHES]
    p_tok = max(0.0, (large - small) / (tokens[1] - tokens[0]))
    p_fixed = max(0.0, small - p_tok * tokens[0])
    floor = _at(request, batch=1, prompt=1, tp=tp).prefill_s

    short, long = (_at(request, batch=1, prompt=c, tp=tp).decode_step_s for c in _DECODE_CONTEXTS)
    d_tok = max(0.0, (long - short) / (_DECODE_CONTEXTS[1] - _DECODE_CONTEXTS[0]))
    one_seq = short - d_tok * _DECODE_CONTEXTS[0]  # fixed + per_seq
    wide = _at(request, batch=_DECODE_BATCH, prompt=_DECODE_CONTEXTS[0], tp=tp).decode_step_s
    d_seq = max(
        0.0, (wide - d_tok * _DECODE_BATCH * _DECODE_CONTEXTS[0] - one_seq) / (_DECODE_BATCH - 1)
    )
    return StepModel(
        prefill_fixed_s=p_fixed,
        prefill_per_token_s=p_tok,
        prefill_floor_s=floor,
        decode_fixed_s=max(0.0, one_seq - d_seq),
        decode_per_seq_s=d_seq,
        decode_per_token_s=d_tok,
        tp=tp,
    )


def _kv_bytes_per_token(request: EstimateRequest, tp: int) -> float:
    kv_precision = request.inference.kv_precision
    return float(kv_cache_bytes(request.model, tokens=1, batch=1, kv_precision=kv_precision, tp=tp))


def _kv_free_bytes(request: EstimateRequest, tp: int) -> float:
    """Device memory less everything but the KV cache: weights, activations of the question's
    prefill, the CUDA context, NCCL buffers and the allocator's fragmentation reserve."""
    memory = inference_memory(request, tp=tp)
    other = float(memory["total"]) - float(memory["kv_cache"])
    return usable_memory_bytes(request.accelerator) - other


def kv_budget_tokens_from_engine(request: EstimateRequest, *, tp: int | None = None) -> int:
    """KV tokens one replica holds: device memory less everything but the KV cache (weights,
    activations of one prompt, runtime overhead), over KV bytes per token."""
    tp = tp or engine_tp(request)
    return max(0, int(_kv_free_bytes(request, tp) / _kv_bytes_per_token(request, tp)))


def blocks_per_sequence(request: EstimateRequest, *, block_tokens: int = BLOCK_TOKENS) -> int:
    """KV blocks one request holds at the question's lengths, reserved up front (prompt plus
    output, rounded up to whole blocks) as the simulation's scheduler reserves them."""
    tokens = request.inference.prompt_len + request.inference.output_len
    return max(1, -(-tokens // block_tokens))


def max_batch_per_replica(
    request: EstimateRequest, *, tp: int | None = None, block_tokens: int = BLOCK_TOKENS
) -> int:
    """The most requests one replica runs at once at the question's lengths: its KV blocks
    over the blocks each request holds (paged KV cache, at the question's KV precision)."""
    tp = tp or engine_tp(request)
    blocks = kv_budget_tokens_from_engine(request, tp=tp) // block_tokens
    return blocks // blocks_per_sequence(request, block_tokens=block_tokens)


def kv_bound(request: EstimateRequest, *, tp: int) -> dict[str, Any]:
    """The estimate's statement of the largest batch per replica and the memory bounding it:
    the KV cache left per device, and the KV one request holds there."""
    per_sequence = blocks_per_sequence(request) * BLOCK_TOKENS * _kv_bytes_per_token(request, tp)
    return {
        "max_batch_per_replica": max_batch_per_replica(request, tp=tp),
        "kv_budget_gib": round(max(0.0, _kv_free_bytes(request, tp)) / GIB, 3),
        "kv_per_sequence_gib": round(per_sequence / GIB, 6),
    }
