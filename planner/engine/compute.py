"""Time: a roofline per operation (compute-bound at an achievable fraction of the dense peak,
or bandwidth-bound), collectives on the links they cross, and the pipeline schedule.

Training functions are vectorised over arrays of parallel layouts so the search can time
thousands at once; each returns the step time and its parts in seconds.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from planner.engine import comms
from planner.engine import efficiency as eff
from planner.engine.memory import param_split, params_on_busiest_device
from planner.engine.specs import BYTES, GB, EstimateRequest, ModelSpec

# Cast and transpose passes an FP8 GEMM input costs, per GEMM (fwd and bwd inputs).
FP8_CAST_PASSES = 6


def model_flops_per_token(model: ModelSpec, seq_len: int) -> float:
    """Model FLOPs per token, forward and backward: 6 x (active body parameters + output head)
    plus 12 x layers x hidden x sequence for attention scores (PaLM, Chowdhery et al. 2022,
    appendix B). Recomputation is not counted (MFU, not HFU)."""
    split = param_split(model)
    body_active = split.body * (1 - split.expert_share) + split.body * split.expert_share * (
        model.active_experts / model.experts
    )
    return (
        6 * (body_active + model.vocab * model.hidden) + 12 * model.layers * model.hidden * seq_len
    )


def compute_precision(precision: str) -> tuple[str, str]:
    """(precision of the GEMMs, precision of attention and everything else). FP8 training runs
    the GEMMs in FP8 and keeps attention in BF16 (Transformer Engine recipes); int8/int4
    inference quantises weights, and INT8 GEMMs run W8A8."""
    if precision == "fp8":
        return "fp8", "bf16"
    if precision == "int4":
        return "bf16", "bf16"
    if precision == "int8":
        return "int8", "bf16"
    return precision, precision


# Where a card lacks a format, the 16-bit units do the work (V100 and Ascend 310P run int4
# weight-only inference on fp16); fp32 is the last resort.
FALLBACK_PRECISIONS = ("bf16", "fp16", "fp32")


def dense_peak(acc, precision: str) -> float:
    """Dense TFLOP/s for a precision, falling back to the 16-bit units the card has."""
    for candidate in (precision, *FALLBACK_PRECISIONS):
        rate = acc.peak_tflops(candidate)
        if rate:
            return rate
    raise ValueError(f"{acc.name or 'the accelerator'} has no usable peak rate")


@dataclass(frozen=True)
class Roofline:
    """Operation time, and the part of it spent waiting on memory rather than math."""

    total: np.ndarray
    memory_bound: np.ndarray

    def __add__(self, other: Roofline) -> Roofline:
        return Roofline(self.total + other.total, self.memory_bound + other.memory_bound)

    def scale(self, k) -> Roofline:
        return Roofline(self.total * k, self.memory_bound * k)


def gemm(
    M, K, N, *, peak_flops: float, efficiency: float, bw: float, operand_bytes: float, count=1.0
) -> Roofline:
    M, K, N = (np.asarray(x, dtype=float) for x in (M, K, N))
    smallest = np.minimum(np.minimum(M, K), N)
    shape_eff = smallest / (smallest + eff.SMALL_GEMM_DIM)
    compute = 2 * M * K * N / (peak_flops * efficiency * shape_eff)
    memory = ((M * K + K * N) * operand_bytes + M * N * BYTES["bf16"]) / bw
    total = np.maximum(compute, memory) * count
    return Roofline(total, np.where(memory > compute, total, 0.0))


def streaming(bytes_moved, *, bw: float) -> Roofline:
    t = np.asarray(bytes_moved, dtype=float) / bw
    return Roofline(t, t)


@dataclass(frozen=True)
class Hardware:
    gemm_peak: float  # FLOP/s
    gemm_eff: float
    other_peak: float
    bw: float  # achievable bytes/s
    operand_bytes: float


def hardware(req: EstimateRequest) -> Hardware:
    gemm_p, other_p = compute_precision(req.precision)
    acc = req.accelerator
    gemm_peak = dense_peak(acc, gemm_p)
    other_peak = dense_peak(acc, other_p)
    thermal = eff.CONSUMER_THERMAL_FACTOR if acc.consumer_cooling else 1.0
    gemm_eff = eff.GEMM_EFFICIENCY.get(gemm_p, 0.75)
    bw_eff = eff.MEMORY_BW_EFFICIENCY
    if req.calibration is not None:
        # Measured on this card: the probe's matrix-multiply rate and copy bandwidth.
        gemm_eff = req.calibration.gemm_efficiency.get(gemm_p, gemm_eff)
        bw_eff = req.calibration.memory_bw_efficiency or bw_eff
    return Hardware(
        gemm_peak=gemm_peak * 1e12 * thermal,
        gemm_eff=gemm_eff,
        other_peak=other_peak * 1e12 * thermal,
        bw=acc.memory_bw_gb_s * GB * bw_eff,
        operand_bytes=BYTES.get(gemm_p, 2.0),
    )


def scale_up_share(req: EstimateRequest) -> float | None:
    """The share of the scale-up link a probe's all-reduce reached on this card, when the
    request carries such a calibration; None keeps the engine's default."""
    return req.calibration.scale_up_efficiency if req.calibration is not None else None


def layer_forward(
    req: EstimateRequest, hw: Hardware, *, tokens, tp, cp, sequence_parallel: bool = True
):
    """One transformer layer's forward pass on one device: (GEMMs, attention core,
    streaming ops) as Rooflines, and the scores' memory traffic when they are materialised."""
    m = req.model
    t = np.asarray(tp, dtype=float)
    T = np.asarray(tokens, dtype=float)
    h, f = m.hidden, m.ffn
    k = m.active_experts if m.experts > 1 else 1
    up = m.mlp_matrices - 1
    g = {
        "peak_flops": hw.gemm_peak,
        "efficiency": hw.gemm_eff,
        "bw": hw.bw,
        "operand_bytes": hw.operand_bytes,
    }
    gemms = (
        gemm(T, h, (h + 2 * m.kv_dim) / t, **g)
        + gemm(T, h / t, h, **g)
        + gemm(T * k, h, up * f / t, **g)
        + gemm(T * k, f / t, h, **g)
    )
    seq = req.seq_len
    local_seq = seq / np.asarray(cp, dtype=float)
    batch = T / local_seq
    if req.attention == "flash":
        # Causal FlashAttention computes half of the s x s scores.
        flops = 4 * batch * local_seq * seq * h / t * 0.5
        attn_t = flops / (hw.other_peak * eff.FLASH_ATTENTION_EFFICIENCY)
        attention = Roofline(attn_t, np.zeros_like(attn_t))
    else:
        # Batched QK^T and AV per head (K or N is the head dimension), then mask, softmax and
        # dropout over the materialised scores: about four passes of 2-byte scores.
        heads = m.heads / t
        gb = {
            "peak_flops": hw.other_peak,
            "efficiency": hw.gemm_eff,
            "bw": hw.bw,
            "operand_bytes": BYTES["bf16"],
        }
        qk = gemm(local_seq, m.head_dim, seq, count=batch * heads, **gb)
        av = gemm(local_seq, seq, m.head_dim, count=batch * heads, **gb)
        scores = streaming(4 * batch * heads * local_seq * seq * BYTES["bf16"], bw=hw.bw)
        attention = qk + av + scores
    # Norms, residual adds, activation and casts: ~12 passes over the hidden state (split by
    # tp only under sequence parallelism) and ~3 over the MLP's intermediate tensors.
    hidden_split = t if sequence_parallel else 1.0
    passes_hidden, passes_mlp = 12, 3
    if req.precision == "fp8":
        # FP8 GEMMs need their inputs scaled and cast (and transposed copies for backward):
        # about two more passes per GEMM input (Transformer Engine's cast-transpose kernels).
        passes_hidden, passes_mlp = (
            passes_hidden + 2 * FP8_CAST_PASSES,
            passes_mlp + FP8_CAST_PASSES,
        )
    elementwise = streaming(
        (passes_hidden * T * h / hidden_split + passes_mlp * T * k * up * f / t) * BYTES["bf16"],
        bw=hw.bw,
    )
    launches = eff.KERNELS_PER_LAYER_FORWARD * eff.KERNEL_OVERHEAD_S
    elementwise = Roofline(elementwise.total + launches, elementwise.memory_bound)
    return gemms, attention, elementwise


@dataclass(frozen=True)
class StepTime:
    step_s: np.ndarray
    compute_s: np.ndarray  # compute-bound operations
    memory_s: np.ndarray  # bandwidth-bound operations
    tp_comm_s: np.ndarray
    pp_bubble_s: np.ndarray
    fabric_s: np.ndarray  # exposed data-parallel, pipeline and expert traffic
    recompute_s: np.ndarray
    optimizer_s: np.ndarray
    micro_batches: np.ndarray


def training_step(
    req: EstimateRequest, *, tp, pp, dp, cp, vp, micro_batch, zero_stage, recompute_code
) -> StepTime:
    m = req.model
    acc = req.accelerator
    up_share = scale_up_share(req)
    tp, pp, dp, cp, vp, mb, zero, rc = (
        np.asarray(x, dtype=float)
        for x in (tp, pp, dp, cp, vp, micro_batch, zero_stage, recompute_code)
    )
    hw = hardware(req)
    tokens = mb * req.seq_len / cp
    micro_batches = np.maximum(np.floor(req.global_batch / np.maximum(dp * mb, 1)), 1)
    layers_here = np.ceil(m.layers / pp)

    sp = req.parallelism.sequence_parallel if req.parallelism else True
    gemms, attention, elementwise = layer_forward(
        req, hw, tokens=tokens, tp=tp, cp=cp, sequence_parallel=sp
    )
    flash_bwd = (
        2.5 if req.attention == "flash" else 2.0
    )  # FlashAttention's backward does 5 matmuls to 2
    fwd = gemms + attention + elementwise
    bwd = gemms.scale(2.0) + attention.scale(flash_bwd) + elementwise.scale(2.0)
    if req.method != "full":
        # Frozen base weights need no weight gradients: backward skips half of its GEMMs.
        bwd = gemms + attention.scale(flash_bwd) + elementwise.scale(2.0)
    # Selective recompute re-runs the attention core (Korthikanti et al. 2022, section 5);
    # with FlashAttention that is already inside its backward, so only cheap pointwise ops
    # are redone. Full recompute re-runs the whole forward.
    selective = attention if req.attention == "materialized" else elementwise
    share = req.parallelism.recompute_fraction if req.parallelism else 1.0
    recompute = Roofline(
        np.where(rc == 2, fwd.total * share, np.where(rc == 1, selective.total, 0.0)),
        np.where(rc == 2, fwd.memory_bound * share, np.where(rc == 1, selective.memory_bound, 0.0)),
    )
    layer = fwd + bwd + recompute

    # Tensor parallelism with sequence parallelism: forward and backward each do two
    # all-gathers and two reduce-scatters of the layer's activations; full recompute redoes
    # the forward ones. Nothing of it overlaps in the default Megatron schedule.
    tp_bw, tp_lat = comms.group_link(
        acc, req.fabric, span=tp, per_node=req.per_node, scale_up_efficiency=up_share
    )
    act_bytes = tokens * m.hidden * BYTES["bf16"]
    rs = comms.reduce_scatter_s(act_bytes, tp, tp_bw, tp_lat)
    tp_layer = 8 * rs + np.where(rc == 2, 4 * rs * share, 0.0)
    # Context parallelism passes K and V around a ring (overlapped with attention compute).
    cp_bw, cp_lat = comms.group_link(
        acc,
        req.fabric,
        span=tp * cp,
        stride=tp,
        per_node=req.per_node,
        scale_up_efficiency=up_share,
    )
    kv_bytes = tokens * 2 * m.kv_dim / tp * BYTES["bf16"]
    cp_layer = np.maximum(
        3 * comms.all_to_all_s(kv_bytes * cp, cp, cp_bw, cp_lat)
        - attention.total * (1 + flash_bwd),
        0.0,
    )
    # MoE: dispatch and combine all-to-alls forward and backward across expert-parallel ranks.
    ep = np.minimum(m.experts, dp) if m.experts > 1 else np.ones_like(dp)
    ep_bw, ep_lat = comms.group_link(
        acc,
        req.fabric,
        span=tp * cp * ep,
        stride=tp * cp,
        per_node=req.per_node,
        scale_up_efficiency=up_share,
    )
    k = m.active_experts if m.experts > 1 else 0
    moe_layer = 4 * comms.all_to_all_s(
        tokens * k * m.hidden * BYTES["bf16"] / tp, ep, ep_bw, ep_lat
    )

    # The output head and the loss run on the last stage, which therefore sets the pace.
    g = {
        "peak_flops": hw.gemm_peak,
        "efficiency": hw.gemm_eff,
        "bw": hw.bw,
        "operand_bytes": hw.operand_bytes,
    }
    head = gemm(tokens, m.hidden, m.vocab / tp, **g).scale(3.0) + streaming(
        tokens * m.vocab / tp * (BYTES["bf16"] + BYTES["fp32"]) * 3, bw=hw.bw
    )

    stage_compute = layer.scale(layers_here) + head
    stage_tp = (tp_layer + cp_layer) * layers_here
    stage_fabric = moe_layer * layers_here
    # Pipeline: activations cross each stage boundary forward and backward, vp times per
    # micro-batch when interleaved.
    # A stage boundary is one hop through one device's NIC (or its scale-up link).
    pp_bw, pp_lat = comms.group_link(
        acc,
        req.fabric,
        span=tp * cp * dp * pp,
        stride=req.per_node,
        per_node=req.per_node,
        scale_up_efficiency=up_share,
    )
    p2p = np.where(pp > 1, 2 * vp * (act_bytes / tp / pp_bw + pp_lat), 0.0)
    per_micro_batch = stage_compute.total + stage_tp + stage_fabric + p2p

    # 1F1B: (m + (p-1)/v) stage-times per step (Narayanan et al. 2021, equation 1).
    bubble = (pp - 1) / vp * per_micro_batch
    pipeline = micro_batches * per_micro_batch + bubble

    # Data parallel (with context-parallel ranks, which hold the same weights).
    group = dp * cp
    trainable = params_on_busiest_device(m, tp, pp, dp)
    if req.method != "full":
        trainable = 7 * req.lora_rank * 2 * m.hidden * layers_here / tp
    grad_bytes = trainable * BYTES["fp32"]
    param_bytes = trainable * BYTES["bf16"]
    dp_bw, dp_lat = comms.group_link(
        acc,
        req.fabric,
        span=tp * cp * dp,
        stride=tp,
        per_node=req.per_node,
        scale_up_efficiency=up_share,
    )
    window = eff.DP_OVERLAP * bwd.total * layers_here
    once = np.where(
        zero == 0,
        comms.all_reduce_s(grad_bytes, group, dp_bw, dp_lat),
        comms.reduce_scatter_s(grad_bytes, group, dp_bw, dp_lat)
        + comms.reduce_scatter_s(param_bytes, group, dp_bw, dp_lat),
    )
    # ZeRO-3 / FSDP gathers the weights for forward and again for backward every micro-batch
    # (and once more under full recompute), and reduce-scatters gradients every micro-batch.
    gathers = 2 + np.where(rc == 2, 1, 0)
    per_mb = gathers * comms.reduce_scatter_s(
        param_bytes, group, dp_bw, dp_lat
    ) + comms.reduce_scatter_s(grad_bytes, group, dp_bw, dp_lat)
    dp_exposed = np.where(
        zero >= 3,
        micro_batches * np.maximum(per_mb - eff.DP_OVERLAP * per_micro_batch, 0.0),
        np.maximum(once - window, 0.0),
    )
    # Optimizer step: stream the shard's master weights, moments and gradients (~36 B/param).
    shard = np.where(zero >= 1, group, 1)
    optimizer = trainable / shard * 36 / hw.bw

    step = pipeline + dp_exposed + optimizer
    scale = micro_batches + (pp - 1) / vp
    return StepTime(
        step_s=step,
        compute_s=(stage_compute.total - stage_compute.memory_bound) * scale,
        memory_s=stage_compute.memory_bound * scale + optimizer,
        tp_comm_s=stage_tp * scale,
        pp_bubble_s=bubble,
        fabric_s=dp_exposed + (stage_fabric + p2p) * scale,
        recompute_s=recompute.total * layers_here * scale,
        optimizer_s=optimizer,
        micro_batches=micro_batches,
    )


@dataclass(frozen=True)
class InferenceTime:
    prefill_s: float
    decode_step_s: float
    prefill_compute_s: float
    decode_compute_s: float
    decode_memory_s: float
    comm_s: float


def inference_time(req: EstimateRequest, *, tp: int) -> InferenceTime:
    """Prefill is compute-bound (all prompt tokens at once); each decode step streams the
    weights and the KV cache once for the whole batch (Pope et al. 2022, section 3)."""
    m = req.model
    up_share = scale_up_share(req)
    inf = req.inference
    hw = hardware(req)
    split = param_split(m)
    weight_bytes = 4.0 if req.precision in ("fp32", "tf32") else BYTES.get(req.precision, 2.0)
    batch, prompt = inf.batch, inf.prompt_len
    # Prefill: 2 x active parameters per token plus causal attention, at the GEMM rate.
    flops = 2 * (model_flops_per_token(m, 1) / 6) * batch * prompt
    flops += 2 * m.layers * batch * prompt * prompt * m.hidden  # causal QK^T and AV
    prefill_compute = flops / tp / (hw.gemm_peak * hw.gemm_eff)
    weights_local = (split.body + split.embedding_total) * weight_bytes / tp
    prefill = max(prefill_compute, weights_local / hw.bw)

    # Decode: every step reads the weights a batch touches (MoE: the experts its tokens hit)
    # and the KV cache at the mean context length.
    if m.experts > 1:
        touched = m.experts * (1 - (1 - m.active_experts / m.experts) ** batch)
        expert_bytes = split.body * split.expert_share * weight_bytes * touched / m.experts
        step_weights = (
            split.body * (1 - split.expert_share) + split.embedding_total
        ) * weight_bytes + expert_bytes
    else:
        step_weights = (split.body + split.embedding_total) * weight_bytes
    mean_context = prompt + inf.output_len / 2
    kv_read = (
        2
        * m.layers
        * m.kv_dim
        * mean_context
        * batch
        * BYTES[inf.kv_precision]
        / min(tp, m.kv_heads)
    )
    decode_memory = (step_weights / tp + kv_read) / hw.bw
    decode_compute = (
        2 * (model_flops_per_token(m, 1) / 6) * batch / tp / (hw.gemm_peak * hw.gemm_eff)
    )
    launches = m.layers * eff.KERNELS_PER_LAYER_FORWARD * eff.KERNEL_OVERHEAD_S * 0.3  # CUDA graphs
    # Tensor parallelism: two all-reduces per layer, latency-bound at decode.
    tp_bw, tp_lat = comms.group_link(
        req.accelerator, req.fabric, span=tp, per_node=req.per_node, scale_up_efficiency=up_share
    )
    comm_decode = (
        float(comms.all_reduce_s(batch * m.hidden * BYTES["bf16"], tp, tp_bw, tp_lat))
        * 2
        * m.layers
    )
    comm_prefill = (
        float(comms.all_reduce_s(batch * prompt * m.hidden * BYTES["bf16"], tp, tp_bw, tp_lat))
        * 2
        * m.layers
    )
    decode = max(decode_memory, decode_compute) + launches + comm_decode
    return InferenceTime(
        prefill_s=float(prefill + comm_prefill),
        decode_step_s=float(decode),
        prefill_compute_s=float(prefill_compute),
        decode_compute_s=float(decode_compute),
        decode_memory_s=float(decode_memory),
        comm_s=comm_decode,
    )
