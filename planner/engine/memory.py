"""Memory per device, broken down as the estimate contract lists it.

Functions take numpy arrays of parallel layouts (one element per candidate) so the parallelism
search can size thousands of layouts at once; scalars work too. Everything is in bytes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from planner.engine.specs import BYTES, GIB, EstimateRequest, ModelSpec

RECOMPUTE_CODE = {"none": 0, "selective": 1, "full": 2}

# A CUDA context with cuBLAS/cuDNN workspaces takes 0.5-1 GiB before the first tensor; NCCL
# adds its buffers once devices talk. The caching allocator loses a few per cent to
# fragmentation (PyTorch memory notes; observed 3-8 % in large runs).
CONTEXT_BYTES = 0.75 * GIB
NCCL_BYTES = 0.5 * GIB
FRAGMENTATION = 0.05

# Adam keeps two fp32 moments (8 bytes); an fp32 master copy adds 4. bitsandbytes' 8-bit Adam
# keeps the two moments in one byte each (Dettmers et al. 2022).
OPTIMIZER_STATE_BYTES = {"adamw": 8.0, "sgd": 4.0, "adamw8bit": 2.0}
# LoRA adapters on every linear layer of attention and MLP (the QLoRA paper's recipe).
LORA_TARGETS_PER_LAYER = 7


@dataclass(frozen=True)
class ParamSplit:
    """How a model's parameters divide between the transformer body and its embeddings."""

    body: float  # all transformer layers
    per_layer: float
    embedding_total: float  # input embedding plus an untied output head
    embedding_one: float
    expert_share: float  # fraction of a layer's parameters that sit in routed experts


def param_split(model: ModelSpec) -> ParamSplit:
    norms = 2 * model.hidden
    per_layer = model.attention_params_per_layer + model.experts * model.expert_params_per_layer
    per_layer += norms + (model.hidden * model.experts if model.experts > 1 else 0)
    body = per_layer * model.layers
    embedding_one = model.embedding_params
    embedding_total = max(model.params - body, embedding_one)
    expert_share = (
        model.experts * model.expert_params_per_layer / per_layer if model.experts > 1 else 0.0
    )
    return ParamSplit(body, per_layer, embedding_total, embedding_one, expert_share)


def params_on_busiest_device(model: ModelSpec, tp, pp, dp):
    """Parameters held by the device with the most: first or last pipeline stage, whose
    layers are split by tensor parallelism and routed experts by expert parallelism (EP up to
    the data-parallel degree, as Megatron and DeepSpeed-MoE lay them out)."""
    split = param_split(model)
    tp, pp, dp = (np.asarray(x, dtype=float) for x in (tp, pp, dp))
    ep = np.minimum(model.experts, dp) if model.experts > 1 else 1.0
    layer = split.per_layer * ((1 - split.expert_share) + split.expert_share / ep)
    layers_here = np.ceil(model.layers / pp)
    embeddings = np.where(
        pp > 1,
        max(split.embedding_one, split.embedding_total - split.embedding_one),
        split.embedding_total,
    )
    return (layer * layers_here + embeddings) / tp


def activation_bytes_per_layer(
    model: ModelSpec, *, seq_len, micro_batch, tp, cp, recompute_code, attention: str
):
    """Activations one layer keeps for backward, for one micro-batch (Korthikanti et al. 2022,
    section 4, generalised to GQA and gated MLPs; 2-byte activations, sequence parallelism on
    whenever tp > 1, so every term divides by tp)."""
    s = np.asarray(seq_len, dtype=float) / np.asarray(cp, dtype=float)
    b = np.asarray(micro_batch, dtype=float)
    t = np.asarray(tp, dtype=float)
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
    # LoRA and QLoRA keep the same activations: frozen layers still need their inputs to pass
    # gradients back to earlier adapters; the rank-sized adapter outputs are negligible.
    full_layer = (attn + scores + mlp + norms) / t
    rc = np.asarray(recompute_code)
    selective = full_layer - np.where(materialized, scores / t, 0.0)
    checkpoint_only = 2 * sbh / t  # full recompute keeps just each layer's input
    return np.where(rc == 0, full_layer, np.where(rc == 1, selective, checkpoint_only))


def training_memory(
    req: EstimateRequest, *, tp, pp, dp, cp, vp, micro_batch, zero_stage, recompute_code
):
    """Bytes per device for training or fine-tuning, by component, for arrays of layouts."""
    model = req.model
    tp, pp, dp, cp, vp, mb, zero, rc = (
        np.asarray(x) for x in (tp, pp, dp, cp, vp, micro_batch, zero_stage, recompute_code)
    )
    p_local = params_on_busiest_device(model, tp, pp, dp)
    weight_bytes = BYTES["fp32"] if req.precision in ("fp32", "tf32") else BYTES["bf16"]
    shard3 = np.where(zero >= 3, dp, 1)
    shard2 = np.where(zero >= 2, dp, 1)
    shard1 = np.where(zero >= 1, dp, 1)

    if req.method == "full":
        trainable = p_local
        weights = p_local * weight_bytes / shard3
        # ZeRO-3 materialises about two layers' weights at a time (current and prefetched).
        weights = weights + np.where(
            zero >= 3, 2 * param_split(model).per_layer / tp * weight_bytes, 0
        )
    else:
        base_bytes = BYTES["nf4"] if req.method == "qlora" else BYTES["bf16"]
        split = param_split(model)
        layers_here = np.ceil(model.layers / pp)
        body_local = p_local - split.embedding_total / tp
        weights = body_local * base_bytes + (p_local - body_local) * BYTES["bf16"]
        lora_per_layer = LORA_TARGETS_PER_LAYER * req.lora_rank * 2 * model.hidden
        trainable = lora_per_layer * layers_here / tp
        weights = weights + trainable * BYTES["bf16"]

    grad_bytes = BYTES["fp32"]  # gradients accumulate and reduce in fp32 (Megatron, FSDP default)
    gradients = trainable * grad_bytes / shard2
    master = BYTES["fp32"] if (req.master_weights == "fp32" and weight_bytes < 4) else 0.0
    optimizer = trainable * (OPTIMIZER_STATE_BYTES[req.optimizer] + master) / shard1

    # The activation formulas count 2-byte values; fp32 training stores 4.
    act_scale = 2.0 if req.precision in ("fp32", "tf32") else 1.0
    per_layer = act_scale * activation_bytes_per_layer(
        model,
        seq_len=req.seq_len,
        micro_batch=mb,
        tp=tp,
        cp=cp,
        recompute_code=rc,
        attention=req.attention,
    )
    micro_batches = np.maximum(req.global_batch // np.maximum(dp * mb, 1), 1)
    # 1F1B: the first stage holds `pp` micro-batches in flight (fewer if the step has fewer);
    # interleaving adds (pp-1)/(pp*vp) of a stage (Narayanan et al. 2021, section 2.2.2).
    in_flight = np.minimum(pp, micro_batches) * np.where(vp > 1, 1 + (pp - 1) / (pp * vp), 1.0)
    layers_here = np.ceil(model.layers / pp)
    activations = per_layer * layers_here * in_flight
    # Full recompute rebuilds one layer's activations at a time during backward.
    rebuilt = act_scale * activation_bytes_per_layer(
        model,
        seq_len=req.seq_len,
        micro_batch=mb,
        tp=tp,
        cp=cp,
        recompute_code=0,
        attention=req.attention,
    )
    activations = activations + np.where(rc == 2, rebuilt, 0.0)
    # Logits for the loss: bf16 logits and their fp32 softmax copy, vocabulary split by tp.
    tokens = req.seq_len / cp * mb
    logits = tokens * model.vocab / tp * (BYTES["bf16"] + BYTES["fp32"])
    activations = activations + logits

    subtotal = weights + gradients + optimizer + activations
    multi = req.count > 1
    overhead = CONTEXT_BYTES + (NCCL_BYTES if multi else 0.0) + FRAGMENTATION * subtotal
    return {
        "weights": weights,
        "gradients": gradients,
        "optimizer": optimizer,
        "activations": activations,
        "kv_cache": np.zeros_like(weights),
        "overhead": overhead,
        "total": subtotal + overhead,
    }


def kv_cache_bytes(model: ModelSpec, *, tokens, batch, kv_precision: str, tp=1) -> float:
    """2 (K and V) x layers x kv_heads x head_dim x tokens x bytes, per request, times the
    batch; tensor parallelism splits the KV heads (replicated when tp exceeds them)."""
    kv_split = np.minimum(tp, model.kv_heads)
    return 2 * model.layers * model.kv_dim * tokens * batch * BYTES[kv_precision] / kv_split


def inference_memory(req: EstimateRequest, *, tp, pp=1):
    model = req.model
    inf = req.inference
    weight_bytes = BYTES.get(req.precision, 2.0)
    if req.precision in ("fp32", "tf32"):
        weight_bytes = 4.0
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
    overhead = CONTEXT_BYTES + (NCCL_BYTES if tp * pp > 1 else 0.0) + FRAGMENTATION * subtotal
    zero = np.zeros_like(np.asarray(weights, dtype=float))
    return {
        "weights": weights,
        "gradients": zero,
        "optimizer": zero,
        "activations": activations,
        "kv_cache": kv,
        "overhead": overhead,
        "total": subtotal + overhead,
    }


def smallest_fitting_tp(req: EstimateRequest) -> int:
    """Serving layout: the smallest tensor-parallel group inside one server whose shard fits;
    the other devices serve as independent replicas (the largest group when none fits)."""
    options = [
        t
        for t in (1, 2, 4, 8, 16, 32, 64)
        if t <= min(req.count, req.per_node) and req.model.heads % t == 0
    ]
    for t in options:
        if inference_memory(req, tp=t)["total"] <= req.accelerator.memory_gib * GIB:
            return t
    return options[-1]
