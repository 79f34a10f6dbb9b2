"""Time of one training step and of one inference request: the roofline of every layer
(`compute`), the collectives on the links they cross (`comms`), the pipeline schedule and the
optimizer's pass over memory.

Training is vectorised over arrays of parallel layouts so the search can time thousands at
once; it returns the step time and its parts in seconds.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy.typing as npt

from planner.engine import comms
from planner.engine import efficiency as eff
from planner.engine.arrays import (
    Floats,
    all_at_most,
    floats,
    floor,
    maximum,
    ones_like,
    where,
    zeros_like,
)
from planner.engine.batch import sequences_per_step
from planner.engine.compute import (
    Hardware,
    Roofline,
    adapter_forward,
    layer_forward,
    streaming,
)
from planner.engine.machine import Machine, links_of, machine_of
from planner.engine.memory import RECOMPUTE_CODE
from planner.engine.shapes import (
    expert_ranks,
    stage_layers,
    trainable_on_device,
)
from planner.engine.specs import BYTES, EstimateRequest
from planner.engine.stack import (
    framework_of,
    stack_of,
)

FULL = RECOMPUTE_CODE["full"]
SELECTIVE = RECOMPUTE_CODE["selective"]
# Backward over forward time of the attention core: FlashAttention's backward does 5 matmuls to
# the forward's 2 (Dao 2023); with materialised scores backward costs twice the forward.
FLASH_BACKWARD_FACTOR = 2.5
MATERIALIZED_BACKWARD_FACTOR = 2.0
# The optimizer step streams the shard's master weights, moments and gradients: about 36 bytes
# per trained parameter read and written.
OPTIMIZER_STEP_BYTES = 36
# Context parallelism over a causal mask: cut into cp contiguous chunks, rank r attends to r
# whole blocks and half its diagonal one, so the last rank does cp - 1/2 blocks against an
# average of cp / 2, (2cp - 1) / cp of the mean, and every ring step waits for it. Megatron-
# Core with Transformer Engine splits the sequence into 2cp chunks and gives rank r chunks r
# and 2cp - 1 - r (TE's attention.py, get_batch_on_this_cp_rank), torchtitan's context_parallel
# balances the same way by default, and DeepSpeed-Ulysses splits heads, not the sequence; a
# stack without a context-parallel implementation of its own gets the contiguous split.
CP_LOAD_BALANCED_FRAMEWORKS = frozenset({"megatron", "torchtitan", "deepspeed", "fsdp"})


@dataclass(frozen=True)
class StepTime:
    step_s: Floats
    compute_s: Floats  # compute-bound operations
    memory_s: Floats  # bandwidth-bound operations
    tp_comm_s: Floats
    pp_bubble_s: Floats
    fabric_s: Floats  # exposed data-parallel, pipeline and expert traffic
    recompute_s: Floats
    optimizer_s: Floats
    micro_batches: Floats


@dataclass(frozen=True)
class LayerTime:
    """One layer, one micro-batch, on one device."""

    forward: Roofline
    backward: Roofline
    recompute: Roofline
    attention: Roofline  # the attention core's forward, which context-parallel traffic hides behind

    @property
    def total(self) -> Roofline:
        return self.forward + self.backward + self.recompute


def _recompute_fraction(req: EstimateRequest) -> float:
    return req.parallelism.recompute_fraction if req.parallelism else 1.0


def attention_backward_factor(req: EstimateRequest) -> float:
    return FLASH_BACKWARD_FACTOR if req.attention == "flash" else MATERIALIZED_BACKWARD_FACTOR


def causal_imbalance(req: EstimateRequest, cp: Floats) -> Floats:
    """The slowest context-parallel rank's causal attention work over the mean (1 when the
    stack balances the chunks, see CP_LOAD_BALANCED_FRAMEWORKS)."""
    c = maximum(floats(cp), 1.0)
    if req.attention != "flash" or framework_of(req) in CP_LOAD_BALANCED_FRAMEWORKS:
        return ones_like(c)
    imbalance: Floats = (2 * c - 1) / c
    return imbalance


def layer_time(
    req: EstimateRequest,
    hw: Hardware,
    *,
    tokens: Floats,
    tp: Floats,
    cp: Floats,
    dp: Floats,
    rc: Floats,
    ep: npt.ArrayLike | None = None,
) -> LayerTime:
    """Forward, backward and recompute of one layer for one micro-batch (`ep`: expert-parallel
    ranks per layout; None: the question's)."""
    sp = req.parallelism.sequence_parallel if req.parallelism else True
    gemms, attention, elementwise = layer_forward(
        req,
        hw,
        tokens=tokens,
        tp=tp,
        cp=cp,
        ep=expert_ranks(req.model, dp, req.fixed_ep if ep is None else ep),
        sequence_parallel=sp,
    )
    attention = attention.scale(causal_imbalance(req, cp))
    attention_bwd = attention_backward_factor(req)
    fwd = gemms + attention + elementwise
    bwd = gemms.scale(2.0) + attention.scale(attention_bwd) + elementwise.scale(2.0)
    if req.method != "full":
        # Frozen base weights need no weight gradients: backward runs only the base GEMMs'
        # input gradients (one forward's worth, not two); the adapters run forward and both
        # gradients of each of their two matrices.
        adapters = adapter_forward(req, hw, tokens=tokens, tp=tp)
        fwd = fwd + adapters
        bwd = gemms + adapters.scale(2.0) + attention.scale(attention_bwd) + elementwise.scale(2.0)
    # Selective recompute re-runs the attention core (Korthikanti et al. 2022, section 5);
    # with FlashAttention that is already inside its backward, so only cheap pointwise ops
    # are redone. Full recompute re-runs the whole forward.
    selective = attention if req.attention == "materialized" else elementwise
    share = _recompute_fraction(req)
    recompute = Roofline(
        where(rc == FULL, fwd.total * share, where(rc == SELECTIVE, selective.total, 0.0)),
        where(
            rc == FULL,
            fwd.memory_bound * share,
            where(rc == SELECTIVE, selective.memory_bound, 0.0),
        ),
    )
    return LayerTime(fwd, bwd, recompute, attention)


def tensor_and_context_comm_s(
    req: EstimateRequest,
    *,
    tokens: Floats,
    tp: Floats,
    cp: Floats,
    rc: Floats,
    attention: Roofline,
    net: comms.Links | None = None,
) -> Floats:
    """Per layer and micro-batch, the scale-up traffic nothing hides.

    Tensor parallelism with sequence parallelism: forward and backward each do two
    all-gathers and two reduce-scatters of the layer's activations; full recompute redoes
    the forward ones. Nothing of it overlaps in the default Megatron schedule. Context
    parallelism passes K and V around a ring (context_exchange_s)."""
    m = req.model
    net = net or links_of(req)
    tp_bw, tp_lat = net.over(span=tp)
    act_bytes = tokens * m.hidden * BYTES["bf16"]
    rs = comms.reduce_scatter_s(act_bytes, tp, tp_bw, tp_lat)
    tp_layer = 8 * rs + where(rc == FULL, 4 * rs * _recompute_fraction(req), 0.0)
    return tp_layer + context_exchange_s(
        req, tokens=tokens, tp=tp, cp=cp, attention=attention, net=net
    )


def context_exchange_s(
    req: EstimateRequest,
    *,
    tokens: Floats,
    tp: Floats,
    cp: Floats,
    attention: Roofline,
    net: comms.Links | None = None,
) -> Floats:
    """Ring attention's K/V traffic that attention compute does not hide, per layer and
    micro-batch. Forward passes each rank's K and V chunk around the ring in cp - 1 steps;
    backward passes K and V again and their gradients back (Megatron-Core/TE's
    AttnFuncWithCPAndKVP2P): 2(cp - 1) chunk sends. Each step's send overlaps the attention of
    the block the rank already holds, so a pass exposes only what its sends take beyond its
    attention time. The ranks sit tp apart, so the ring runs over NVLink while tp x cp fits a
    node and over each rank's NIC beyond."""
    m = req.model
    if all_at_most(cp, 1):
        # No ring without context parallelism: every layout's exchange below would come to 0.
        return zeros_like(floats(tokens) * tp * cp)
    cp_bw, cp_lat = (net or links_of(req)).over(span=tp * cp, stride=tp)
    kv_bytes = tokens * 2 * m.kv_dim / tp * BYTES["bf16"]
    one_pass = comms.all_to_all_s(kv_bytes * cp, cp, cp_bw, cp_lat)  # (cp - 1) chunk sends
    forward = maximum(one_pass - attention.total, 0.0)
    backward = maximum(2 * one_pass - attention.total * attention_backward_factor(req), 0.0)
    exposed: Floats = forward + backward
    return exposed


def expert_comm_s(
    req: EstimateRequest,
    *,
    tokens: Floats,
    tp: Floats,
    cp: Floats,
    dp: Floats,
    ep: npt.ArrayLike | None = None,
    net: comms.Links | None = None,
) -> Floats:
    """MoE: dispatch and combine all-to-alls forward and backward across expert-parallel
    ranks, per layer and micro-batch."""
    m = req.model
    if m.experts <= 1:
        # A dense model sends nothing: the all-to-all below would come to 0 for every layout.
        return zeros_like(floats(tokens) * tp * cp * dp)
    ep = expert_ranks(m, dp, req.fixed_ep if ep is None else ep)
    ep_bw, ep_lat = (net or links_of(req)).over(span=tp * cp * ep, stride=tp * cp)
    k = m.active_experts if m.experts > 1 else 0
    return 4 * comms.all_to_all_s(tokens * k * m.hidden * BYTES["bf16"] / tp, ep, ep_bw, ep_lat)


def output_head(req: EstimateRequest, hw: Hardware, *, tokens: Floats, tp: Floats) -> Roofline:
    """The output head and the loss, forward and backward, on the last pipeline stage (which
    therefore sets the pace)."""
    m = req.model
    logit_bytes = stack_of(req).kernels.logit_bytes
    return hw.gemm_16bit(tokens, m.hidden, m.vocab / tp).scale(3.0) + streaming(
        tokens * m.vocab / tp * logit_bytes * 3, bw=hw.bw
    )


def pipeline_p2p_s(
    req: EstimateRequest,
    *,
    tokens: Floats,
    tp: Floats,
    cp: Floats,
    dp: Floats,
    pp: Floats,
    vp: Floats,
    net: comms.Links | None = None,
) -> Floats:
    """Activations cross each stage boundary forward and backward, vp times per micro-batch
    when interleaved; a boundary is one hop through one device's NIC (or its scale-up link)."""
    net = net or links_of(req)
    pp_bw, pp_lat = net.over(span=tp * cp * dp * pp, stride=net.per_node)
    act_bytes = tokens * req.model.hidden * BYTES["bf16"]
    return where(pp > 1, 2 * vp * (act_bytes / tp / pp_bw + pp_lat), 0.0)


@dataclass(frozen=True)
class StageTime:
    """The stage that sets the pipeline's pace, for one micro-batch: a full stage, or the last
    one with its layers and the output head (see shapes.stage_layers)."""

    compute: Roofline
    scale_up_s: Floats  # tensor- and context-parallel traffic nothing hides
    fabric_s: Floats  # expert all-to-alls
    p2p_s: Floats  # activations across stage boundaries
    layers: Floats  # transformer layers on that stage

    @property
    def total_s(self) -> Floats:
        return self.compute.total + self.scale_up_s + self.fabric_s + self.p2p_s


def stage_time(
    req: EstimateRequest,
    machine: Machine,
    layer: LayerTime,
    *,
    tokens: Floats,
    tp: Floats,
    cp: Floats,
    dp: Floats,
    pp: Floats,
    vp: Floats,
    rc: Floats,
    ep: npt.ArrayLike | None = None,
) -> StageTime:
    stages = stage_layers(req.model.layers, pp)
    net = machine.net
    scale_up = tensor_and_context_comm_s(
        req, tokens=tokens, tp=tp, cp=cp, rc=rc, attention=layer.attention, net=net
    )
    expert = expert_comm_s(req, tokens=tokens, tp=tp, cp=cp, dp=dp, ep=ep, net=net)
    head = output_head(req, machine.hw, tokens=tokens, tp=tp)
    per_layer_s = layer.total.total + scale_up + expert
    # The slowest stage sets the pace: the last, which also runs the head, unless it gave up a
    # layer for it and a full stage takes longer.
    last_paces = stages.last * per_layer_s + head.total >= stages.most * per_layer_s
    layers = where(last_paces, stages.last, stages.most)
    return StageTime(
        compute=layer.total.scale(layers) + head.scale(where(last_paces, 1.0, 0.0)),
        scale_up_s=scale_up * layers,
        fabric_s=expert * layers,
        p2p_s=pipeline_p2p_s(req, tokens=tokens, tp=tp, cp=cp, dp=dp, pp=pp, vp=vp, net=net),
        layers=layers,
    )


def exposed_data_parallel_s(
    req: EstimateRequest,
    *,
    trainable: Floats,
    tp: Floats,
    cp: Floats,
    dp: Floats,
    zero: Floats,
    rc: Floats,
    window: Floats,
    micro_batches: Floats,
    per_mb_s: Floats,
    net: comms.Links | None = None,
) -> Floats:
    """Data-parallel traffic (with context-parallel ranks, which hold the same weights) that
    the backward pass does not hide. `window` is the backward time that can hide a once-per-
    step reduction; `per_mb_s` the stage time ZeRO-3 traffic overlaps with every micro-batch."""
    group = dp * cp
    grad_bytes = trainable * BYTES["fp32"]
    param_bytes = trainable * BYTES["bf16"]
    bw, lat = (net or links_of(req)).over(span=tp * cp * dp, stride=tp)
    once = where(
        zero == 0,
        comms.all_reduce_s(grad_bytes, group, bw, lat),
        comms.reduce_scatter_s(grad_bytes, group, bw, lat)
        + comms.reduce_scatter_s(param_bytes, group, bw, lat),
    )
    # ZeRO-3 / FSDP gathers the weights for forward and again for backward every micro-batch
    # (and once more under full recompute), and reduce-scatters gradients every micro-batch.
    gathers = 2 + where(rc == FULL, 1, 0)
    per_mb = gathers * comms.reduce_scatter_s(param_bytes, group, bw, lat) + comms.reduce_scatter_s(
        grad_bytes, group, bw, lat
    )
    return where(
        zero >= 3,
        micro_batches * maximum(per_mb - eff.DP_OVERLAP * per_mb_s, 0.0),
        maximum(once - window, 0.0),
    )


def training_step(
    req: EstimateRequest,
    machine: Machine | None = None,
    /,
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
) -> StepTime:
    """Seconds per training step of every layout, and where they go (`global_batch`,
    sequences per step, per layout when the search chooses it; `machine`, the card and links
    per layout when they differ, else the question's)."""
    tp, pp, dp, cp, vp, mb, zero, rc = (
        floats(x) for x in (tp, pp, dp, cp, vp, micro_batch, zero_stage, recompute_code)
    )
    machine = machine or machine_of(req)
    hw = machine.hw
    tokens = mb * req.seq_len / cp
    batch = sequences_per_step(global_batch, req.global_batch)
    micro_batches = maximum(floor(batch / maximum(dp * mb, 1)), 1)
    # Expert-parallel ranks: the layout's where the search chose them, else the question's.
    ranks = expert_ranks(req.model, dp, req.fixed_ep if ep is None else ep)
    layer = layer_time(req, hw, tokens=tokens, tp=tp, cp=cp, dp=dp, rc=rc, ep=ranks)

    stage = stage_time(
        req, machine, layer, tokens=tokens, tp=tp, cp=cp, dp=dp, pp=pp, vp=vp, rc=rc, ep=ranks
    )
    per_micro_batch = stage.total_s
    # 1F1B: (m + (p-1)/v) stage-times per step (Narayanan et al. 2021, equation 1).
    bubble = (pp - 1) / vp * per_micro_batch
    pipeline = micro_batches * per_micro_batch + bubble

    trainable = trainable_on_device(req, tp=tp, pp=pp, dp=dp, ep=ranks)
    dp_exposed = exposed_data_parallel_s(
        req,
        trainable=trainable,
        tp=tp,
        cp=cp,
        dp=dp,
        zero=zero,
        rc=rc,
        window=eff.DP_OVERLAP * layer.backward.total * stage.layers,
        micro_batches=micro_batches,
        per_mb_s=per_micro_batch,
        net=machine.net,
    )
    # The optimizer streams its shard of the states once per step.
    optimizer = trainable / where(zero >= 1, dp * cp, 1) * OPTIMIZER_STEP_BYTES / hw.bw

    step = pipeline + dp_exposed + optimizer
    scale = micro_batches + (pp - 1) / vp
    return StepTime(
        step_s=step,
        compute_s=(stage.compute.total - stage.compute.memory_bound) * scale,
        memory_s=stage.compute.memory_bound * scale + optimizer,
        tp_comm_s=stage.scale_up_s * scale,
        pp_bubble_s=bubble,
        fabric_s=dp_exposed + (stage.fabric_s + stage.p2p_s) * scale,
        recompute_s=layer.recompute.total * stage.layers * scale,
        optimizer_s=optimizer,
        micro_batches=micro_batches,
    )
