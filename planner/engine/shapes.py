"""Model-shape arithmetic: how a transformer's parameters divide, how many of them the busiest
device holds, the FLOPs a token costs and the bytes its KV cache takes. Vectorised where a
layout is involved: arguments may be numpy arrays of candidate layouts."""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from planner.engine.arrays import Floats, ceil, floats, maximum, minimum, ones_like, values, where
from planner.engine.specs import BYTES, LORA_TARGETS, EstimateRequest, ModelSpec

# Targets whose base map is split by output columns under tensor parallelism (their LoRA B
# splits with them); the others are split by input rows (their A splits).
COLUMN_PARALLEL_TARGETS = ("q", "k", "v", "gate", "up")
MLP_TARGETS = ("gate", "up", "down")


@dataclass(frozen=True)
class ParamSplit:
    """How a model's parameters divide between the transformer body and its embeddings."""

    body: float  # all transformer layers
    per_layer: float
    embedding_total: float  # input embedding plus an untied output head
    embedding_one: float
    expert_share: float  # fraction of a layer's parameters that sit in routed experts


@functools.lru_cache(maxsize=256)
def param_split(model: ModelSpec) -> ParamSplit:
    norms = 2 * model.hidden
    per_layer = model.attention_params_per_layer + model.experts * model.expert_params_per_layer
    # Shared experts see every token, as attention does: outside the routed share.
    per_layer += model.shared_expert_params_per_layer
    per_layer += norms + (model.hidden * model.experts if model.experts > 1 else 0)
    body = per_layer * model.layers
    embedding_one = model.embedding_params
    embedding_total = max(model.params - body, embedding_one)
    expert_share = (
        model.experts * model.expert_params_per_layer / per_layer if model.experts > 1 else 0.0
    )
    return ParamSplit(body, per_layer, embedding_total, embedding_one, expert_share)


@dataclass(frozen=True)
class StageLayers:
    """Transformer layers on a pipeline's fullest, first and last stages, per layout."""

    most: npt.NDArray[np.float64]
    first: npt.NDArray[np.float64]
    last: npt.NDArray[np.float64]


def stage_layers(layers: int, pp: npt.ArrayLike) -> StageLayers:
    """_stage_layers; one layout's answer is kept (a fixed-layout estimate asks five times)."""
    if type(pp) in (int, float):
        return _one_layout_stages(layers, float(pp))  # type: ignore[arg-type]
    return _stage_layers(layers, pp)


@functools.lru_cache(maxsize=1024)
def _one_layout_stages(layers: int, pp: float) -> StageLayers:
    return _stage_layers(layers, pp)


def _stage_layers(layers: int, pp: npt.ArrayLike) -> StageLayers:
    """How `layers` spread over `pp` stages. Every stage has room for ceil(layers / pp); where
    that leaves two or more places empty, the first and the last stage each hold one layer
    fewer, their place going to the embedding and to the output head with the loss (Llama 3
    405B: 126 layers on 16 stages, 7 on the first and last, 8 on the others; Dubey et al. 2024,
    arXiv 2407.21783, section 3.3.2). With one place empty, the last stage, which also runs the
    head, gives it up."""
    p = floats(pp)
    most = ceil(layers / p)
    empty = p * most - layers
    last = most - where((p > 1) & (empty >= 1), 1.0, 0.0)
    first = most - where((p > 1) & (empty >= 2), 1.0, 0.0)
    return StageLayers(most=most, first=first, last=last)


def expert_ranks(model: ModelSpec, dp: npt.ArrayLike, ep: npt.ArrayLike | None = None) -> Floats:
    """Ranks the routed experts are spread over: `ep` (the question's, or the layout's), else
    (None or 0) as many of the data-parallel ranks as there are experts; 1 for a dense model."""
    d = floats(dp)
    if model.experts <= 1:
        return ones_like(d)
    default = minimum(float(model.experts), d)
    if ep is None:
        return default
    e = floats(ep)
    out: Floats = where(e > 0, e, default)
    return out


def params_on_busiest_device(
    model: ModelSpec,
    tp: npt.ArrayLike,
    pp: npt.ArrayLike,
    dp: npt.ArrayLike,
    ep: npt.ArrayLike | None = None,
) -> npt.NDArray[np.float64]:
    """Parameters held by the device with the most: the first stage (with the embedding), the
    last (with an untied output head) or a full one in between (see stage_layers), whose
    layers are split by tensor parallelism and routed experts by expert parallelism (`ep`, or
    up to the data-parallel degree, as Megatron and DeepSpeed-MoE lay them out)."""
    one = all(type(x) in (int, float) for x in (tp, pp, dp)) and (
        ep is None or type(ep) in (int, float)
    )
    if one:
        # One layout's figure is kept: a fixed-layout estimate asks for it three times.
        key = (model, tp, pp, dp, ep)
        held = _ONE_LAYOUT_PARAMS.get(key)
        if held is not None:
            return held
    split = param_split(model)
    t, p, d = (floats(x) for x in (tp, pp, dp))
    ranks = expert_ranks(model, d, ep)
    layer = split.per_layer * ((1 - split.expert_share) + split.expert_share / ranks)
    stages = stage_layers(model.layers, p)
    staged = maximum(
        maximum(
            layer * stages.first + split.embedding_one,
            layer * stages.last + (split.embedding_total - split.embedding_one),
        ),
        layer * stages.most,
    )
    busiest: npt.NDArray[np.float64] = (
        where(p > 1, staged, layer * model.layers + split.embedding_total) / t
    )
    if one:
        if len(_ONE_LAYOUT_PARAMS) >= _ONE_LAYOUTS_HELD:
            _ONE_LAYOUT_PARAMS.clear()
        _ONE_LAYOUT_PARAMS[key] = busiest
    return busiest


_ONE_LAYOUTS_HELD = 1024
_ONE_LAYOUT_PARAMS: dict[tuple[ModelSpec, object, object, object, object], Floats] = {}


def lora_target_shapes(model: ModelSpec) -> dict[str, tuple[int, int, float]]:
    """Each adaptable linear map as (inputs, outputs, copies per layer): MLP maps exist once
    per routed expert, and again in the shared experts; a GELU MLP has no gate."""
    h, f = model.hidden, model.ffn
    experts = float(model.experts)
    shapes = {
        "q": (h, model.q_dim, 1.0),
        "k": (h, model.kv_dim, 1.0),
        "v": (h, model.kv_dim, 1.0),
        "o": (model.q_dim, h, 1.0),
        "up": (h, f, experts),
        "down": (f, h, experts),
    }
    if model.gated_mlp:
        shapes["gate"] = (h, f, experts)
    return shapes


def lora_params_per_layer(
    model: ModelSpec, *, rank: int, targets: tuple[str, ...] = LORA_TARGETS
) -> float:
    """LoRA's trainable parameters in one layer: each adapted map W (n_in x n_out) gains A
    (n_in x rank) and B (rank x n_out) (Hu et al. 2021). PEFT reports 39,976,960 trainable
    parameters for Llama-2-7B at rank 16 on all seven maps, and 4,194,304 at rank 8 on q and v
    (its print_trainable_parameters)."""
    shapes = lora_target_shapes(model)
    n_in, n_out, copies = 0, 1, 2
    total = 0.0
    for target in targets:
        if target in shapes:
            shape = shapes[target]
            total += rank * (shape[n_in] + shape[n_out]) * shape[copies]
    if model.shared_ffn:
        total += (
            rank
            * (model.hidden + model.shared_ffn)
            * sum(1 for t in targets if t in MLP_TARGETS and t in shapes)
        )
    return total


def lora_params(req: EstimateRequest) -> float:
    """Every adapter parameter of the request's model."""
    per_layer = lora_params_per_layer(req.model, rank=req.lora_rank, targets=req.lora_targets)
    return per_layer * req.model.layers


def trainable_params_on_busiest_device(
    model: ModelSpec,
    *,
    method: str,
    lora_rank: int,
    tp: npt.ArrayLike,
    pp: npt.ArrayLike,
    dp: npt.ArrayLike,
    lora_targets: tuple[str, ...] = LORA_TARGETS,
    ep: npt.ArrayLike | None = None,
) -> npt.NDArray[np.float64]:
    """Parameters the busiest device trains: all it holds for a full fine-tune or training, only
    its layers' adapters (split by tensor parallelism) for LoRA and QLoRA."""
    if method == "full":
        return params_on_busiest_device(model, tp, pp, dp, ep)
    layers_here = stage_layers(model.layers, pp).most
    adapters: npt.NDArray[np.float64] = (
        lora_params_per_layer(model, rank=lora_rank, targets=lora_targets)
        * layers_here
        / values(tp)
    )
    return adapters


def trainable_on_device(
    req: EstimateRequest,
    *,
    tp: npt.ArrayLike,
    pp: npt.ArrayLike,
    dp: npt.ArrayLike,
    ep: npt.ArrayLike | None = None,
) -> npt.NDArray[np.float64]:
    """trainable_params_on_busiest_device for the request's method, adapters and experts
    (`ep` per layout; None: the question's)."""
    return trainable_params_on_busiest_device(
        req.model,
        method=req.method,
        lora_rank=req.lora_rank,
        lora_targets=req.lora_targets,
        ep=req.fixed_ep if ep is None else ep,
        tp=tp,
        pp=pp,
        dp=dp,
    )


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


def kv_cache_bytes(
    model: ModelSpec,
    *,
    tokens: float,
    batch: int,
    kv_precision: str,
    tp: npt.ArrayLike = 1,
) -> npt.NDArray[np.float64]:
    """2 (K and V) x layers x kv_heads x head_dim x tokens x bytes, per request, times the
    batch; tensor parallelism splits the KV heads (replicated when tp exceeds them)."""
    kv_split = minimum(tp, model.kv_heads)
    kv: npt.NDArray[np.float64] = (
        2 * model.layers * model.kv_dim * tokens * batch * BYTES[kv_precision] / kv_split
    )
    return kv
