"""Serving time on the engine's roofline: prefill over the prompt, then one decode step per new
token, each at the bandwidth, launch cost and host time of the stack that runs it
(planner.engine.stack)."""

from __future__ import annotations

from dataclasses import dataclass

from planner.engine import comms
from planner.engine.compute import hardware, weight_only_dequant_s
from planner.engine.machine import link
from planner.engine.memory import inference_weight_bytes
from planner.engine.shapes import kv_cache_bytes, model_flops_per_token, param_split
from planner.engine.specs import BYTES, GB, EstimateRequest
from planner.engine.stack import (
    SERVING_ENGINES,
    Stack,
    decode_attention_bw_share,
    decode_weight_bw_share,
    stack_of,
)

# Serving engines capture decode in CUDA graphs; an engine assumption keeps 30 % of the launch
# cost.
CUDA_GRAPH_LAUNCH_SHARE = 0.3


@dataclass(frozen=True)
class InferenceTime:
    prefill_s: float
    decode_step_s: float
    prefill_compute_s: float
    decode_compute_s: float
    decode_memory_s: float
    comm_s: float


def _forward_flops_per_token(req: EstimateRequest) -> float:
    """2 x active parameters: a third of model_flops_per_token at a one-token context."""
    return 2 * (model_flops_per_token(req.model, 1) / 6)


def _decode_weight_bytes(req: EstimateRequest) -> float:
    """Weights one decode step reads for the whole batch (MoE: only the experts its tokens
    hit, each token picking `active_experts` of `experts` at random)."""
    m = req.model
    split = param_split(m)
    weight_bytes = inference_weight_bytes(req.precision)
    if m.experts <= 1:
        return (split.body + split.embedding_total) * weight_bytes
    touched = m.experts * (1 - (1 - m.active_experts / m.experts) ** req.inference.batch)
    expert_bytes = split.body * split.expert_share * weight_bytes * touched / m.experts
    return (
        split.body * (1 - split.expert_share) + split.embedding_total
    ) * weight_bytes + expert_bytes


def _tp_all_reduces_s(req: EstimateRequest, *, tokens: float, tp: int) -> float:
    """Tensor parallelism: two all-reduces of the tokens' hidden states per layer."""
    m = req.model
    bw, lat = link(req, span=tp)
    return float(comms.all_reduce_s(tokens * m.hidden * BYTES["bf16"], tp, bw, lat)) * 2 * m.layers


def _decode_step_s(req: EstimateRequest, stack: Stack, device_s: float) -> float:
    """A decode step from its device time. Every stack leaves gaps between kernels on the
    device (as a CUDA graph replays them). Without graphs the host also queues each kernel and
    runs the decode loop's Python: the host works ahead of the device, so the step is the
    slower of the two (generate() on an H200: 61-67 ms a step, the host busy all of it, at
    batch 1-64 and 512-8,192 tokens while its kernels took 6.5-21 ms;
    measurements/h200-2026-12-04/generate_steps.json)."""
    m, kernels = req.model, stack.kernels
    launches = m.layers * kernels.kernels_per_layer * kernels.launch_s
    gaps = launches * CUDA_GRAPH_LAUNCH_SHARE
    if stack.cuda_graphs:
        return device_s + gaps
    return max(device_s + gaps, launches + m.layers * stack.decode_host_s_per_layer)


def inference_time(req: EstimateRequest, *, tp: int) -> InferenceTime:
    """Prefill is compute-bound (all prompt tokens at once); each decode step streams the
    weights and the KV cache once for the whole batch (Pope et al. 2022, section 3), at the
    bandwidth and launch cost of the stack that runs it (planner.engine.stack)."""
    m = req.model
    inf = req.inference
    hw = hardware(req)
    stack = stack_of(req)
    split = param_split(m)
    batch, prompt = inf.batch, inf.prompt_len
    gemm_rate = hw.gemm_peak * hw.gemm_eff
    # Prefill: 2 x active parameters per token plus causal attention, at the GEMM rate, which
    # a short prompt reaches only in part.
    prefill_tokens = batch * prompt
    flops = _forward_flops_per_token(req) * prefill_tokens
    flops += 2 * m.layers * batch * prompt * prompt * m.hidden  # causal QK^T and AV
    fill = prefill_tokens / (prefill_tokens + stack.prefill_half_rate_tokens)
    prefill_compute = flops / tp / (gemm_rate * fill)
    weights_local = (
        (split.body + split.embedding_total) * inference_weight_bytes(req.precision) / tp
    )
    # 4-bit weights are dequantised at every use (compute.weight_only_dequant_s).
    fused = stack.framework in SERVING_ENGINES
    prefill_alu, prefill_copy = weight_only_dequant_s(
        req, weight_bytes=weights_local, tokens=prefill_tokens, fused=fused, bw=float(hw.bw)
    )
    prefill = max(prefill_compute, weights_local / hw.bw, prefill_alu) + prefill_copy

    # Decode: every step reads the weights a batch touches, at the share of the datasheet
    # bandwidth decode-shaped kernels reach, and the KV cache at the mean context length.
    mean_context = prompt + inf.output_len / 2
    kv_read = kv_cache_bytes(
        m, tokens=mean_context, batch=batch, kv_precision=inf.kv_precision, tp=tp
    )
    weight_bw = req.accelerator.memory_bw_gb_s * GB * decode_weight_bw_share(stack, batch=batch)
    kv_bw = hw.bw * decode_attention_bw_share(stack, batch=batch, kv_heads=m.kv_heads, tp=tp)
    decode_memory = float(_decode_weight_bytes(req) / tp / weight_bw + kv_read / kv_bw)
    decode_compute = _forward_flops_per_token(req) * batch / tp / gemm_rate
    comm_decode = _tp_all_reduces_s(req, tokens=batch, tp=tp)
    comm_prefill = _tp_all_reduces_s(req, tokens=batch * prompt, tp=tp)
    decode_alu, decode_copy = weight_only_dequant_s(
        req,
        weight_bytes=float(_decode_weight_bytes(req)) / tp,
        tokens=batch,
        fused=fused,
        bw=float(hw.bw),
    )
    # Re-concatenating a dynamic cache reads the old copy and writes the new one.
    cache_copy = float(2 * kv_read / hw.bw) if stack.decode_cache_copy else 0.0
    device = max(decode_memory, decode_compute, decode_alu) + decode_copy + cache_copy
    decode = _decode_step_s(req, stack, float(device)) + comm_decode
    return InferenceTime(
        prefill_s=float(prefill + comm_prefill),
        decode_step_s=float(decode),
        prefill_compute_s=float(prefill_compute),
        decode_compute_s=float(decode_compute),
        decode_memory_s=float(decode_memory),
        comm_s=comm_decode,
    )
