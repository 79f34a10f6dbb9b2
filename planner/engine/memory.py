"""Memory per device, broken down as the estimate contract lists it.

Functions take numpy arrays of parallel layouts (one element per candidate) so the parallelism
search can size thousands of layouts at once; scalars work too. Everything is in bytes.
"""

from __future__ import annotations

import dataclasses
from typing import TypeAlias

import numpy as np
import numpy.typing as npt

from planner.engine.arrays import Floats, floats, maximum, minimum, values, where, zeros_like
from planner.engine.batch import sequences_per_step
from planner.engine.shapes import (
    kv_cache_bytes,
    param_split,
    params_on_busiest_device,
    stage_layers,
    trainable_on_device,
)
from planner.engine.specs import (
    BYTES,
    GIB,
    AcceleratorSpec,
    EstimateRequest,
    ModelSpec,
    Recompute,
)
from planner.engine.stack import stack_of

RECOMPUTE_CODE: dict[Recompute, int] = {"none": 0, "selective": 1, "full": 2}

# Bytes per device: one figure, or one per candidate layout.
Bytes: TypeAlias = float | Floats

# A CUDA context with cuBLAS/cuDNN workspaces takes 0.5-1 GiB before the first tensor; NCCL
# adds its buffers once devices talk. The caching allocator's reserve above the tensors is
# the stack's (planner.engine.stack).
CONTEXT_BYTES = 0.75 * GIB
NCCL_BYTES = 0.5 * GIB
# CUDA does not hand a program all the memory the datasheet states: the driver and firmware
# keep a share. One H200 SXM (141 GB on the datasheet, 143,771 MiB in nvidia-smi) shows 139.80
# GiB to CUDA (torch.cuda.get_device_properties().total_memory, and the "total capacity" of
# its out-of-memory message; planner/validation/measurements/h200-2026-12-03/train.json);
# 80 GB A100 and H100 cards report 79.15-79.25 GiB in PyTorch's out-of-memory messages, an
# RTX 4090 (24 GB) 23.68 GiB (github.com/zai-org/CogVideo issue 36). The catalog keeps the
# datasheet figure; whether a job fits is judged against this share of it.
CUDA_VISIBLE_SHARE = 0.99
# Under autocast with fp32 parameters each GEMM weight is cast to 16 bits once per forward
# and the cast is kept for backward (torch.autocast's weight-cast cache): 2 bytes per weight.
AUTOCAST_COPY_BYTES = 2.0
# FP8 training's cached weight copies: one byte per weight in each of two layouts (TE's
# Float8Tensor with its transpose, or MXFP8's row- and column-wise data; the E8M0 block scales,
# one byte per 32 weights, are left out).
FP8_WEIGHT_COPY_BYTES = 2.0
# Hugging Face's training-forward KV cache copies each layer's keys, made fp32 by the rotary
# embedding's fp32 tables (the residual stream is fp32 under autocast with fp32 parameters),
# and its values, bf16 out of the projection: 4 + 2 bytes per key-value element. The H200
# rows with the cache (HT4-HT7) hold 0.70 GiB per 2,048-token sequence of the 1.5B more than
# those without (HT14-HT16); this count gives 0.61.
TRAINING_KV_CACHE_BYTES = 4.0 + 2.0
DEEPSPEED_BUCKET_ELEMENTS = 5e8

# Adam keeps two fp32 moments (8 bytes); an fp32 master copy adds 4. bitsandbytes' 8-bit Adam
# keeps the two moments in one byte each (Dettmers et al. 2022).
OPTIMIZER_STATE_BYTES = {"adamw": 8.0, "sgd": 4.0, "adamw8bit": 2.0}


def training_memory_precision(precision: str) -> str:
    """The precision as training memory sees it: the 16-bit formats alike (2-byte weights,
    activations and gathers, an autocast copy of either), so a plan's fp16 and bf16 cards of one
    cluster shape share their layouts' sizes (tests/engine/test_memory.py holds it)."""
    return "bf16" if precision == "fp16" else precision


def training_weight_bytes(precision: str, param_dtype: str | None = None) -> float:
    """Bytes per trained weight: as `param_dtype` stores them (fp32 under autocast), else
    fp32 for fp32/tf32 training and 16-bit weights otherwise (FP8 training keeps 16-bit
    weights and casts them per GEMM)."""
    if param_dtype is not None:
        return BYTES[param_dtype]
    return BYTES["fp32"] if precision in ("fp32", "tf32") else BYTES["bf16"]


def master_weight_bytes(master_weights: str, weight_bytes: float) -> float:
    """An fp32 master copy, kept only where the weights themselves are narrower."""
    return BYTES["fp32"] if (master_weights == "fp32" and weight_bytes < 4) else 0.0


def inference_weight_bytes(precision: str) -> float:
    """Bytes per served weight: fp32 and tf32 store 4, the rest their own width."""
    return 4.0 if precision in ("fp32", "tf32") else BYTES.get(precision, 2.0)


def usable_memory_bytes(acc: AcceleratorSpec) -> float:
    """The memory CUDA exposes on a card: CUDA_VISIBLE_SHARE of its datasheet capacity."""
    return acc.memory_gib * GIB * CUDA_VISIBLE_SHARE


def usable_memory_gib(acc: AcceleratorSpec) -> float:
    """usable_memory_bytes in GiB, rounded as the answer reports memory."""
    return rounded_gib(usable_memory_bytes(acc))


def rounded_gib(x: Bytes | np.floating) -> float:
    """Bytes as GiB, rounded to the MiB-ish precision the answer reports."""
    return round(float(x) / GIB, 3)


def activation_bytes_per_layer(
    model: ModelSpec,
    *,
    seq_len: npt.ArrayLike,
    micro_batch: npt.ArrayLike,
    tp: npt.ArrayLike,
    cp: npt.ArrayLike,
    recompute_code: npt.ArrayLike,
    attention: str,
    fp8: bool = False,
) -> Floats:
    """Activations one layer keeps for backward, for one micro-batch (Korthikanti et al. 2022,
    section 4, generalised to GQA and gated MLPs; 2-byte activations, sequence parallelism on
    whenever tp > 1, so every term divides by tp). Under FP8 (`fp8`) Transformer Engine saves
    the four linear maps' inputs as the FP8 tensors their GEMMs read, one byte each."""
    s = floats(seq_len) / floats(cp)
    b = floats(micro_batch)
    t = floats(tp)
    h, f, a = model.hidden, model.ffn, model.heads
    sbh = s * b * h
    materialized = attention == "materialized"
    # Attention block: QKV input 2sbh, Q 2sbh, K and V 2sb*kv_dim each, output-projection input
    # 2sbh, plus a dropout mask sbh in the Megatron-era recipe that still used dropout.
    attn = 6 * sbh + 4 * s * b * model.kv_dim + (sbh if materialized else 0)
    # Scores: softmax output 2as^2b, dropout mask as^2b, dropout output 2as^2b. FlashAttention
    # keeps only a log-sum-exp per row (4 bytes).
    scores = 5 * a * s * s * b if materialized else 4 * a * s * b
    # MLP: input 2sbh, inputs to the activation (gate and up for SwiGLU) and to the down
    # projection, and a dropout mask sbh.
    up_outputs = 2 if model.gated_mlp else 1
    experts = model.active_experts if model.experts > 1 else 1
    mlp = 2 * sbh + experts * (2 * up_outputs + 2) * s * b * f + (sbh if materialized else 0)
    norms = 4 * sbh
    if fp8:
        # QKV, output-projection and MLP inputs (sbh each) and the down projection's input.
        attn = attn - 2 * sbh
        mlp = mlp - sbh - experts * s * b * f
    # LoRA and QLoRA: see frozen_input_bytes_per_layer for what a frozen map need not keep.
    full_layer = (attn + scores + mlp + norms) / t
    rc = values(recompute_code)
    selective = full_layer - where(materialized, scores / t, 0.0)
    checkpoint_only = 2 * sbh / t  # full recompute keeps just each layer's input
    per_layer: Floats = where(rc == 0, full_layer, where(rc == 1, selective, checkpoint_only))
    return per_layer


def sharding_buffers(req: EstimateRequest, *, tp: Floats, zero: Floats) -> tuple[Floats, Floats]:
    """Buffers sharded data parallelism keeps beside the states, per device: (for weights, for
    gradients).

    ZeRO-3 and FSDP gather each layer's 16-bit weights before using it and prefetch the next
    one while it runs, so two layers' gathered weights are resident in forward and again in
    backward; backward also holds each layer's unsharded gradients (in the fp32 reduce dtype)
    until their reduce-scatter, which overlaps the next layer's backward: two layers' worth
    (PyTorch FSDP, Zhao et al. 2023, arXiv 2304.11277, section 3.3 and figure 4: prefetching
    and the rate limiter hold at most two all-gathers in flight). DeepSpeed's ZeRO-1 and -2
    keep a reduce bucket and an all-gather bucket of 5e8 elements each in 16 bits (its
    reduce_bucket_size and allgather_bucket_size defaults)."""
    layer = param_split(req.model).per_layer / tp if req.method == "full" else 0.0
    gather_bytes = BYTES["fp32"] if req.precision in ("fp32", "tf32") else BYTES["bf16"]
    bucket = (
        DEEPSPEED_BUCKET_ELEMENTS * BYTES["bf16"] if stack_of(req).framework == "deepspeed" else 0.0
    )
    gathered: Floats = where(zero >= 3, 2 * layer * gather_bytes, where(zero >= 1, bucket, 0.0))
    reducing: Floats = where(zero >= 3, 2 * layer * BYTES["fp32"], where(zero >= 1, bucket, 0.0))
    return gathered, reducing


def frozen_input_bytes_per_layer(
    req: EstimateRequest, *, seq_len: npt.ArrayLike, micro_batch: npt.ArrayLike
) -> Floats:
    """LoRA and QLoRA, per layer and micro-batch (2-byte values, before tensor parallelism):
    the activations the layer keeps no more, less what its adapters add.

    A frozen map needs no weight gradient, so its input is saved only where an adapter reads
    it (the gradient of A is its input times the gradient of A's output); passing gradients
    back to earlier layers needs the weights, not the inputs. The inputs of the QKV, output,
    gate/up and down projections are Korthikanti et al.'s 2sbh, 2sbh, 2sbh and 2sbf (times
    the routed experts a token visits). Each adapter keeps its rank-wide middle, 2sbr."""
    m = req.model
    sb = floats(seq_len) * floats(micro_batch)
    experts = m.active_experts if m.experts > 1 else 1
    targets = set(req.lora_targets)
    dropped = 0.0
    if not targets & {"q", "k", "v"}:
        dropped += 2 * m.hidden
    if "o" not in targets:
        dropped += 2 * m.q_dim
    if not targets & {"gate", "up"}:
        dropped += 2 * m.hidden
    if "down" not in targets:
        dropped += 2 * experts * m.ffn
    added = 2 * req.lora_rank * len(targets)
    out: Floats = sb * (dropped - added)
    return out


def _training_weights(
    req: EstimateRequest,
    *,
    tp: Floats,
    pp: Floats,
    dp: Floats,
    ep: npt.ArrayLike | None,
    zero: Floats,
    weight_bytes: float,
) -> Floats:
    """Weights on the busiest device: sharded by ZeRO-3 when trained in full; a frozen (QLoRA:
    NF4) base with 16-bit embeddings and adapters otherwise."""
    model = req.model
    p_local = params_on_busiest_device(model, tp, pp, dp, ep)
    sharded = where(zero >= 3, dp, 1)
    fp8_copies = fp8_weight_copy_bytes(req, tp=tp, pp=pp, dp=dp, ep=ep) / sharded
    if req.method == "full":
        weights: Floats = p_local * weight_bytes / sharded + fp8_copies
        return weights
    base_bytes = BYTES["nf4"] if req.method == "qlora" else BYTES["bf16"]
    body_local = p_local - param_split(model).embedding_total / tp
    weights = body_local * base_bytes + (p_local - body_local) * BYTES["bf16"]
    adapters = trainable_on_device(req, tp=tp, pp=pp, dp=dp, ep=ep)
    return weights + fp8_copies + adapters * BYTES["bf16"]


def fp8_weight_copy_bytes(
    req: EstimateRequest,
    *,
    tp: Floats,
    pp: Floats,
    dp: Floats,
    ep: npt.ArrayLike | None,
) -> Floats:
    """FP8 training: Transformer Engine keeps each FP8 GEMM's weight quantised once per step and
    reuses it over the micro-batches (is_first_microbatch), in two layouts, one for the forward
    and one, transposed, for the data gradient (MXFP8: row- and column-wise copies with their
    block scales): FP8_WEIGHT_COPY_BYTES per weight of the layers' linear maps. The embedding
    and the output head stay in 16 bits and have no copy."""
    if req.precision != "fp8":
        return zeros_like(floats(tp))
    split = param_split(req.model)
    layers_only = dataclasses.replace(req.model, params=split.body, vocab=0)
    linear = params_on_busiest_device(layers_only, tp, pp, dp, ep)
    copies: Floats = linear * FP8_WEIGHT_COPY_BYTES
    return copies


def _training_activations(
    req: EstimateRequest,
    *,
    tp: Floats,
    pp: Floats,
    dp: Floats,
    cp: Floats,
    vp: Floats,
    mb: Floats,
    rc: Floats,
    global_batch: Floats,
) -> Floats:
    """Activations held for backward on the first pipeline stage, plus the loss's logits."""
    model = req.model
    # The activation formulas count 2-byte values; fp32 training stores 4. Eager and compiled
    # stacks save more or fewer of them (planner.engine.stack.Kernels.activation_factor).
    act_scale = 2.0 if req.precision in ("fp32", "tf32") else 1.0
    act_scale *= stack_of(req).kernels.activation_factor

    def per_layer_bytes(recompute_code: npt.ArrayLike) -> Floats:
        return act_scale * activation_bytes_per_layer(
            model,
            seq_len=req.seq_len,
            micro_batch=mb,
            tp=tp,
            cp=cp,
            recompute_code=recompute_code,
            attention=req.attention,
            fp8=req.precision == "fp8",
        )

    per_layer = per_layer_bytes(rc)
    if req.method != "full":
        frozen = act_scale * frozen_input_bytes_per_layer(
            req, seq_len=req.seq_len / cp, micro_batch=mb
        )
        per_layer = per_layer - where(rc == 2, 0.0, frozen / tp)
    micro_batches = maximum(global_batch // maximum(dp * mb, 1), 1)
    # 1F1B: the first stage holds `pp` micro-batches in flight (fewer if the step has fewer);
    # interleaving adds (pp-1)/(pp*vp) of a stage (Narayanan et al. 2021, section 2.2.2).
    in_flight = minimum(pp, micro_batches) * where(vp > 1, 1 + (pp - 1) / (pp * vp), 1.0)
    # The first stage holds the most micro-batches in flight (and one layer fewer where the
    # layers leave room, see stage_layers).
    activations = per_layer * stage_layers(model.layers, pp).first * in_flight
    # Full recompute rebuilds one layer's activations at a time during backward.
    rebuilt = per_layer_bytes(0)
    # Logits for the loss, vocabulary split by tp: bf16 logits and their fp32 softmax copy in
    # fused stacks, more in eager ones (planner.engine.stack.Kernels.logit_bytes).
    tokens = req.seq_len / cp * mb
    logits: Floats = tokens * model.vocab / tp * stack_of(req).kernels.logit_bytes
    # Hugging Face's training forward keeps its KV cache until the loss is taken; gradient
    # checkpointing turns it off (transformers' GradientCheckpointingLayer).
    if stack_of(req).training_kv_cache:
        cache = (
            stage_layers(model.layers, pp).first
            * req.seq_len
            / cp
            * mb
            * model.kv_dim
            / minimum(tp, model.kv_heads)
            * TRAINING_KV_CACHE_BYTES
        )
        activations = activations + where(rc == 2, 0.0, cache)
    # Without recompute the logits come on top of every layer's activations. Under full
    # recompute the loss's buffers are freed before the first layer is rebuilt, so the peak
    # is the larger of the two on top of the checkpoints.
    held: Floats = activations + where(rc == 2, maximum(rebuilt, logits), logits)
    return held


def training_memory(
    req: EstimateRequest,
    *,
    tp: npt.ArrayLike,
    pp: npt.ArrayLike,
    dp: npt.ArrayLike,
    cp: npt.ArrayLike,
    vp: npt.ArrayLike,
    micro_batch: npt.ArrayLike,
    zero_stage: npt.ArrayLike,
    recompute_code: npt.ArrayLike,
    global_batch: npt.ArrayLike | None = None,
    ep: npt.ArrayLike | None = None,
) -> dict[str, Floats]:
    """Bytes per device for training or fine-tuning, by component, for arrays of layouts
    (`global_batch`, sequences per step, and `ep`, expert-parallel ranks, per layout when the
    search chooses them; None: the question's)."""
    e = req.fixed_ep if ep is None else ep
    t, p, d, c, v, mb, zero, rc = (
        values(x) for x in (tp, pp, dp, cp, vp, micro_batch, zero_stage, recompute_code)
    )
    weight_bytes = training_weight_bytes(req.precision, req.param_dtype)
    weights = _training_weights(req, tp=t, pp=p, dp=d, ep=e, zero=zero, weight_bytes=weight_bytes)
    trainable = trainable_on_device(req, tp=t, pp=p, dp=d, ep=e)
    # Gradients accumulate and reduce in fp32 (Megatron, FSDP default); ZeRO-2 shards them,
    # ZeRO-1 the optimizer states.
    gradients = trainable * BYTES["fp32"] / where(zero >= 2, d, 1)
    master = master_weight_bytes(req.master_weights, weight_bytes)
    optimizer = trainable * (OPTIMIZER_STATE_BYTES[req.optimizer] + master) / where(zero >= 1, d, 1)
    batch = sequences_per_step(global_batch, req.global_batch)
    activations = _training_activations(
        req, tp=t, pp=p, dp=d, cp=c, vp=v, mb=mb, rc=rc, global_batch=batch
    )
    stack = stack_of(req)
    if req.method == "full" and req.param_dtype == "fp32" and req.precision in ("bf16", "fp16"):
        # Autocast's 16-bit copies of the weights the GEMMs use (all but the input embedding),
        # saved for backward as activations are. Sharded (ZeRO-3, FSDP) stacks gather 16-bit
        # weights instead (FSDP's MixedPrecisionPolicy, torchtitan's default): no copies.
        embedding = param_split(req.model).embedding_one / t
        activations = activations + where(
            zero >= 3,
            0.0,
            maximum(params_on_busiest_device(req.model, t, p, d, e) - embedding, 0)
            * AUTOCAST_COPY_BYTES,
        )
    # Gathered weights count with the weights, gradient buffers with the gradients.
    gathered, grad_buffers = sharding_buffers(req, tp=t, zero=zero)
    weights = weights + gathered
    gradients = gradients + grad_buffers
    if not stack.gradients_between_steps:
        # Gradients freed after each step come back only as backward frees the activations:
        # the peak is the end of forward (activations, no gradients) or the end of backward
        # (gradients, no activations), whichever holds more; each part as held then.
        forward_peak = activations >= gradients
        activations = where(forward_peak, activations, 0.0)
        gradients = where(forward_peak, 0.0, gradients)
    subtotal = weights + gradients + optimizer + activations
    reserve = stack.allocator_reserve
    overhead = CONTEXT_BYTES + (NCCL_BYTES if req.count > 1 else 0.0) + reserve * subtotal
    return {
        "weights": weights,
        "gradients": gradients,
        "optimizer": optimizer,
        "activations": activations,
        "kv_cache": zeros_like(weights),
        "overhead": overhead,
        "total": subtotal + overhead,
    }


def inference_memory(req: EstimateRequest, *, tp: int, pp: int = 1) -> dict[str, Bytes]:
    """Bytes per device for serving `req.inference.batch` requests with tensor parallelism
    `tp` (and pipeline parallelism `pp`), by component."""
    model = req.model
    inf = req.inference
    weight_bytes = inference_weight_bytes(req.precision)
    split = param_split(model)
    weights = (split.body / (tp * pp) + split.embedding_total / tp) * weight_bytes
    if req.precision in ("int8", "int4"):
        # Embeddings and the output head usually stay in 16-bit.
        weights += split.embedding_total / tp * (BYTES["bf16"] - weight_bytes)
    context = inf.prompt_len + inf.output_len
    kv = (
        kv_cache_bytes(model, tokens=context, batch=inf.batch, kv_precision=inf.kv_precision, tp=tp)
        / pp
    )
    # Prefill peak: the widest intermediate (the MLP's up projection) for the whole prompt
    # batch, plus fp32 logits of the last position.
    widest = max(
        model.hidden, (2 if model.gated_mlp else 1) * model.ffn * max(model.active_experts, 1)
    )
    activations = (
        inf.batch * inf.prompt_len * widest * 2 * BYTES["bf16"] / tp + inf.batch * model.vocab * 4
    )
    subtotal = weights + kv + activations
    reserve = stack_of(req).allocator_reserve
    overhead = CONTEXT_BYTES + (NCCL_BYTES if tp * pp > 1 else 0.0) + reserve * subtotal
    zero = zeros_like(floats(weights))
    return {
        "weights": weights,
        "gradients": zero,
        "optimizer": zero,
        "activations": activations,
        "kv_cache": kv,
        "overhead": overhead,
        "total": subtotal + overhead,
    }
