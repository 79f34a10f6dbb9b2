"""Memory per device, broken down as the estimate contract lists it.

Functions take numpy arrays of parallel layouts (one element per candidate) so the parallelism
search can size thousands of layouts at once; scalars work too. Everything is in bytes.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import TypeAlias

import numpy as np
import numpy.typing as npt

from planner.engine.activations import training_activations
from planner.engine.arrays import Floats, floats, maximum, values, where, zeros_like
from planner.engine.shapes import (
    kv_cache_bytes,
    param_split,
    params_on_busiest_device,
    trainable_on_device,
)
from planner.engine.specs import (
    BYTES,
    GIB,
    AcceleratorSpec,
    EstimateRequest,
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
DEEPSPEED_BUCKET_ELEMENTS = 5e8

# Adam keeps two fp32 moments (8 bytes); an fp32 master copy adds 4. bitsandbytes' 8-bit Adam
# keeps the two moments in one byte each (Dettmers et al. 2022).
OPTIMIZER_STATE_BYTES = {"adamw": 8.0, "sgd": 4.0, "adamw8bit": 2.0}


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
    search chooses them; None: the question's): training_total of the layouts' states and
    activations."""
    t, p, d, c, v, mb, zero, rc = (
        values(x) for x in (tp, pp, dp, cp, vp, micro_batch, zero_stage, recompute_code)
    )
    states = training_states(req, tp=t, pp=p, dp=d, ep=ep, zero_stage=zero)
    activations = training_activations(
        req,
        tp=t,
        pp=p,
        dp=d,
        cp=c,
        vp=v,
        micro_batch=mb,
        recompute_code=rc,
        global_batch=global_batch,
    )
    return training_total(req, states, activations)


# The layout fields the states read (training_states): a layout's sharding, whatever its batch
# (activations.ACTIVATION_FIELDS are what the activations read).
STATE_FIELDS = ("tp", "pp", "dp", "ep", "zero_stage")


def training_states(
    req: EstimateRequest,
    *,
    tp: Floats,
    pp: Floats,
    dp: Floats,
    ep: npt.ArrayLike | None,
    zero_stage: Floats,
) -> dict[str, Floats]:
    """Weights, gradients and optimizer states per device, with the buffers sharded data
    parallelism keeps beside them, and the autocast copies of the weights (`autocast`, which
    count with the activations): what a layout's sharding sets, whatever its batch."""
    e = req.fixed_ep if ep is None else ep
    t, p, d, zero = tp, pp, dp, zero_stage
    weight_bytes = training_weight_bytes(req.precision, req.param_dtype)
    weights = _training_weights(req, tp=t, pp=p, dp=d, ep=e, zero=zero, weight_bytes=weight_bytes)
    trainable = trainable_on_device(req, tp=t, pp=p, dp=d, ep=e)
    # Gradients accumulate and reduce in fp32 (Megatron, FSDP default); ZeRO-2 shards them,
    # ZeRO-1 the optimizer states.
    gradients = trainable * BYTES["fp32"] / where(zero >= 2, d, 1)
    master = master_weight_bytes(req.master_weights, weight_bytes)
    optimizer = trainable * (OPTIMIZER_STATE_BYTES[req.optimizer] + master) / where(zero >= 1, d, 1)
    autocast = zeros_like(weights)
    if req.method == "full" and req.param_dtype == "fp32" and req.precision in ("bf16", "fp16"):
        # Autocast's 16-bit copies of the weights the GEMMs use (all but the input embedding),
        # saved for backward as activations are. Sharded (ZeRO-3, FSDP) stacks gather 16-bit
        # weights instead (FSDP's MixedPrecisionPolicy, torchtitan's default): no copies.
        embedding = param_split(req.model).embedding_one / t
        autocast = where(
            zero >= 3,
            0.0,
            maximum(params_on_busiest_device(req.model, t, p, d, e) - embedding, 0)
            * AUTOCAST_COPY_BYTES,
        )
    # Gathered weights count with the weights, gradient buffers with the gradients.
    gathered, grad_buffers = sharding_buffers(req, tp=t, zero=zero)
    return {
        "weights": weights + gathered,
        "gradients": gradients + grad_buffers,
        "optimizer": optimizer,
        "autocast": autocast,
    }


def training_total(
    req: EstimateRequest,
    states: Mapping[str, Floats],
    activations: Floats,
    *,
    count: npt.ArrayLike | None = None,
) -> dict[str, Floats]:
    """A layout's memory by component from its states (training_states) and activations
    (training_activations), with what the stack frees between steps and keeps in reserve
    (`count`: the devices of each layout's cluster, if not the question's)."""
    weights, gradients, optimizer = states["weights"], states["gradients"], states["optimizer"]
    activations = activations + states["autocast"]
    stack = stack_of(req)
    if not stack.gradients_between_steps:
        # Gradients freed after each step come back only as backward frees the activations:
        # the peak is the end of forward (activations, no gradients) or the end of backward
        # (gradients, no activations), whichever holds more; each part as held then.
        forward_peak = activations >= gradients
        activations = where(forward_peak, activations, 0.0)
        gradients = where(forward_peak, 0.0, gradients)
    subtotal = weights + gradients + optimizer + activations
    reserve = stack.allocator_reserve
    devices = req.count if count is None else values(count)
    overhead = CONTEXT_BYTES + where(devices > 1, NCCL_BYTES, 0.0) + reserve * subtotal
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
