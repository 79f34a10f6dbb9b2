"""Activations a training step keeps for backward, per device and in bytes, for arrays of
parallel layouts or one layout's numbers (memory.training_memory adds them to the states)."""

from __future__ import annotations

import numpy.typing as npt

from planner.engine.arrays import Floats, floats, maximum, minimum, values, where
from planner.engine.batch import sequences_per_step
from planner.engine.shapes import stage_layers
from planner.engine.specs import EstimateRequest, ModelSpec
from planner.engine.stack import stack_of

# Hugging Face's training-forward KV cache copies each layer's keys, made fp32 by the rotary
# embedding's fp32 tables (the residual stream is fp32 under autocast with fp32 parameters),
# and its values, bf16 out of the projection: 4 + 2 bytes per key-value element. The H200
# rows with the cache (HT4-HT7) hold 0.70 GiB per 2,048-token sequence of the 1.5B more than
# those without (HT14-HT16); this count gives 0.61.
TRAINING_KV_CACHE_BYTES = 4.0 + 2.0


# The layout fields the activations read, besides the data parallelism and the global batch,
# which they read only through the micro-batches in flight (in_flight_key).
ACTIVATION_FIELDS = ("tp", "pp", "cp", "vp", "micro_batch", "recompute_code")


def in_flight_key(*, pp: Floats, dp: Floats, micro_batch: Floats, global_batch: Floats) -> Floats:
    """What the activations read of the data parallelism and the global batch: the
    micro-batches the first stage holds in flight at most (interleaving aside)."""
    micro_batches = maximum(global_batch // maximum(dp * micro_batch, 1), 1)
    return minimum(pp, micro_batches)


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


def training_activations(
    req: EstimateRequest,
    *,
    tp: Floats,
    pp: Floats,
    dp: Floats,
    cp: Floats,
    vp: Floats,
    micro_batch: Floats,
    recompute_code: Floats,
    global_batch: npt.ArrayLike | None,
) -> Floats:
    """Activations held for backward on the first pipeline stage, plus the loss's logits
    (`global_batch`: sequences per step per layout, or None for the question's)."""
    model = req.model
    mb, rc = micro_batch, recompute_code
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
    batch = sequences_per_step(global_batch, req.global_batch)
    # 1F1B: the first stage holds `pp` micro-batches in flight (fewer if the step has fewer);
    # interleaving adds (pp-1)/(pp*vp) of a stage (Narayanan et al. 2021, section 2.2.2).
    in_flight = in_flight_key(pp=pp, dp=dp, micro_batch=mb, global_batch=batch) * where(
        vp > 1, 1 + (pp - 1) / (pp * vp), 1.0
    )
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
