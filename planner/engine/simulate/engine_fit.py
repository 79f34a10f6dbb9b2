"""Step times and the KV-cache budget of one replica, fitted to the engine's inference model,
so a serving simulation runs on the same physics as an estimate."""

from __future__ import annotations

import dataclasses

from planner.engine.memory import inference_memory
from planner.engine.parallel import smallest_fitting_tp
from planner.engine.shapes import kv_cache_bytes
from planner.engine.simulate.serving_spec import StepModel
from planner.engine.specs import GIB, EstimateRequest
from planner.engine.step import InferenceTime, inference_time

# Fit points: prefill steps of 4 and 16 prompts of 512 tokens (compute-bound on data-centre
# parts); decode at 1 and 64 sequences and 1,024 and 4,096 tokens of context each.
_PREFILL_PROMPT = 512
_PREFILL_BATCHES = (4, 16)
_DECODE_CONTEXTS = (1024, 4096)
_DECODE_BATCH = 64


def engine_tp(request: EstimateRequest) -> int:
    """The tensor-parallel group `estimate` serves with: the smallest whose shard fits."""
    return smallest_fitting_tp(request)


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


def kv_budget_tokens_from_engine(request: EstimateRequest, *, tp: int | None = None) -> int:
    """KV tokens one replica holds: device memory less everything but the KV cache (weights,
    activations of one prompt, runtime overhead), over KV bytes per token."""
    tp = tp or engine_tp(request)
    memory = inference_memory(request, tp=tp)
    other = float(memory["total"]) - float(memory["kv_cache"])
    per_token = float(
        kv_cache_bytes(
            request.model, tokens=1, batch=1, kv_precision=request.inference.kv_precision, tp=tp
        )
    )
    free = request.accelerator.memory_gib * GIB - other
    return max(0, int(free / per_token))
