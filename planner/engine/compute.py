"""The roofline: an operation runs compute-bound at an achievable fraction of the dense peak, or
bandwidth-bound, whichever is slower; and one transformer layer's forward pass built from such
operations. Vectorised: token counts and parallel degrees may be numpy arrays of layouts."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy.typing as npt

from planner.engine import efficiency as eff
from planner.engine.arrays import Floats, floats, maximum, minimum, where, zeros_like
from planner.engine.shapes import COLUMN_PARALLEL_TARGETS, MLP_TARGETS, lora_target_shapes
from planner.engine.specs import BYTES, GB, AcceleratorSpec, EstimateRequest
from planner.engine.stack import framework_of, stack_of

# Where a card lacks a format, the 16-bit units do the work (V100 and Ascend 310P run int4
# weight-only inference on fp16); fp32 is the last resort.
FALLBACK_PRECISIONS = ("bf16", "fp16", "fp32")
# Fused 4-bit kernels unpack a weight, convert it and apply its group scale in about two
# instructions per weight (Marlin converts pairs with one lop3 and one half2 FMA), once per
# tile of up to 64 tokens (Marlin's largest thread-block tile, 4 x 16 rows).
DEQUANT_INSTRUCTIONS_PER_WEIGHT = 2.0
DEQUANT_TILE_TOKENS = 64
# Grouped expert GEMMs (grouped_gemm_share): share = 0.287 x (GFLOP per group)^0.241.
GROUPED_GEMM_SHARE_AT_1_GFLOP = 0.287
GROUPED_GEMM_EXPONENT = 0.241
# The router's softmax and top-k pass over the token-by-expert scores about three times in
# fp32; dispatch and combine read and write each routed copy of the hidden state twice.
ROUTER_PASSES = 3
PERMUTE_PASSES = 4
# Norms, residual adds, activation and casts: about 12 passes over the hidden state and 3 over
# the MLP's intermediate tensors per layer forward.
HIDDEN_PASSES = 12
MLP_PASSES = 3


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


def fp8_recipe(req: EstimateRequest) -> str | None:
    """The FP8 scaling recipe a request trains with (None when it does not train in FP8): the
    question's, else Transformer Engine's default for the card (MXFP8 where the tensor cores
    apply block scales, delayed per-tensor scaling elsewhere)."""
    if req.precision != "fp8":
        return None
    if req.fp8_recipe is not None:
        return req.fp8_recipe
    return "mxfp8" if req.accelerator.block_scaled_fp8 else "delayed"


def attention_reference(architecture: str) -> float:
    """Causal flash attention's share of the 16-bit peak on a card of `architecture` at the
    reference block length."""
    return eff.FLASH_ATTENTION_EFFICIENCY_BY_ARCHITECTURE.get(
        architecture, eff.FLASH_ATTENTION_EFFICIENCY
    )


def attention_share(reference: Floats | float, block_tokens: npt.ArrayLike) -> Floats:
    """The share at blocks of `block_tokens` queries and keys (the sequence, or its context-
    parallel chunk) of a card whose share at the reference length is `reference`."""
    length = maximum(floats(block_tokens), 1.0)
    at_reference = eff.ATTENTION_REFERENCE_TOKENS / (
        eff.ATTENTION_REFERENCE_TOKENS + eff.ATTENTION_HALF_TOKENS
    )
    share: Floats = reference * (length / (length + eff.ATTENTION_HALF_TOKENS)) / at_reference
    return share


def attention_efficiency(architecture: str, block_tokens: npt.ArrayLike) -> Floats:
    """Causal flash attention's share of the 16-bit peak on a card of `architecture` for
    blocks of `block_tokens` queries and keys (the sequence, or its context-parallel chunk)."""
    return attention_share(attention_reference(architecture), block_tokens)


def attention_kernels(req: EstimateRequest) -> str:
    """The architecture whose attention kernels the stack runs: Megatron-Core calls Transformer
    Engine's fused attention (cuDNN), which has kernels per architecture; the PyTorch stacks call
    scaled_dot_product_attention's FlashAttention-2 kernels, the same on every card ("")."""
    return req.accelerator.architecture if framework_of(req) == "megatron" else ""


def dense_peak(acc: AcceleratorSpec, precision: str) -> float:
    """Dense TFLOP/s for a precision, falling back to the 16-bit units the card has."""
    for candidate in (precision, *FALLBACK_PRECISIONS):
        rate = acc.peak_tflops(candidate)
        if rate:
            return rate
    raise ValueError(f"{acc.name or 'the accelerator'} has no usable peak rate")


class Roofline(NamedTuple):
    """Operation time, and the part of it spent waiting on memory rather than math. A named
    tuple: one layer's time makes dozens, and a frozen dataclass costs a microsecond each to
    build where a tuple costs a fifth of that."""

    total: Floats
    memory_bound: Floats

    def __add__(self, other: Roofline) -> Roofline:  # type: ignore[override]
        return Roofline(self.total + other.total, self.memory_bound + other.memory_bound)

    def scale(self, k: Floats | float) -> Roofline:
        return Roofline(self.total * k, self.memory_bound * k)


def gemm(
    M: npt.ArrayLike,
    K: npt.ArrayLike,
    N: npt.ArrayLike,
    *,
    peak_flops: Floats | float,
    efficiency: Floats | float,
    bw: Floats | float,
    operand_bytes: float,
    count: Floats | float = 1.0,
) -> Roofline:
    """An M x K by K x N matrix multiply, `count` times: compute-bound at the achievable share
    of the peak (less for small dimensions), or bound by reading both operands and writing the
    16-bit result."""
    M, K, N = (floats(x) for x in (M, K, N))
    smallest = minimum(minimum(M, K), N)
    shape_eff = smallest / (smallest + eff.SMALL_GEMM_DIM)
    compute = 2 * M * K * N / (peak_flops * efficiency * shape_eff)
    memory = ((M * K + K * N) * operand_bytes + M * N * BYTES["bf16"]) / bw
    total = maximum(compute, memory) * count
    return Roofline(total, where(memory > compute, total, 0.0))


def streaming(bytes_moved: npt.ArrayLike, *, bw: Floats | float) -> Roofline:
    """Bytes read or written by a bandwidth-bound kernel."""
    t = floats(bytes_moved) / bw
    return Roofline(t, t)


@dataclass(frozen=True)
class Hardware:
    """A card's roofline for one precision: floats for one build, or arrays of one value per
    layout when many builds are timed at once (planner.engine.many)."""

    gemm_peak: Floats | float  # FLOP/s
    gemm_eff: Floats | float
    other_peak: Floats | float
    other_eff: Floats | float  # the 16-bit GEMMs' share of other_peak
    bw: Floats | float  # achievable bytes/s
    operand_bytes: float
    attention_reference: Floats | float  # flash attention's share of other_peak

    def gemm(self, M: npt.ArrayLike, K: npt.ArrayLike, N: npt.ArrayLike) -> Roofline:
        """A GEMM at the precision the model's weights run in."""
        return gemm(
            M,
            K,
            N,
            peak_flops=self.gemm_peak,
            efficiency=self.gemm_eff,
            bw=self.bw,
            operand_bytes=self.operand_bytes,
        )

    def gemm_16bit(
        self, M: npt.ArrayLike, K: npt.ArrayLike, N: npt.ArrayLike, count: Floats | float = 1.0
    ) -> Roofline:
        """A GEMM kept in 16 bits whatever the layers run in: Transformer Engine leaves the
        output head outside its FP8 region (Megatron-Core builds it as a plain column-parallel
        linear), so it runs at the 16-bit peak."""
        return gemm(
            M,
            K,
            N,
            peak_flops=self.other_peak,
            efficiency=self.other_eff,
            bw=self.bw,
            operand_bytes=BYTES["bf16"],
            count=count,
        )


def hardware(req: EstimateRequest) -> Hardware:
    gemm_p, other_p = compute_precision(req.precision)
    acc = req.accelerator
    gemm_peak = dense_peak(acc, gemm_p)
    other_peak = dense_peak(acc, other_p)
    thermal = eff.CONSUMER_THERMAL_FACTOR if acc.consumer_cooling else 1.0
    gemm_eff = eff.GEMM_EFFICIENCY.get(gemm_p, 0.75)
    other_eff = eff.GEMM_EFFICIENCY.get(other_p, 0.75)
    if fp8_recipe(req) == "mxfp8":
        gemm_eff *= eff.MXFP8_GEMM_SHARE
    bw_eff = eff.MEMORY_BW_EFFICIENCY
    if req.calibration is not None:
        # Measured on this card: the probe's matrix-multiply rate and copy bandwidth.
        gemm_eff = req.calibration.gemm_efficiency.get(gemm_p, gemm_eff)
        other_eff = req.calibration.gemm_efficiency.get(other_p, other_eff)
        bw_eff = req.calibration.memory_bw_efficiency or bw_eff
    # Eager and compiled PyTorch reach a share of the fused stack's GEMM rate.
    gemm_share = stack_of(req).kernels.gemm_share
    return Hardware(
        gemm_peak=gemm_peak * 1e12 * thermal,
        gemm_eff=gemm_eff * gemm_share,
        other_peak=other_peak * 1e12 * thermal,
        other_eff=other_eff * gemm_share,
        bw=acc.memory_bw_gb_s * GB * bw_eff,
        operand_bytes=BYTES.get(gemm_p, 2.0),
        attention_reference=attention_reference(attention_kernels(req)),
    )


def attention_forward(
    req: EstimateRequest,
    hw: Hardware,
    *,
    tokens: npt.ArrayLike,
    tp: npt.ArrayLike,
    cp: npt.ArrayLike,
) -> Roofline:
    """The attention core (scores and their weighted sum) of one layer on one device."""
    m = req.model
    t = floats(tp)
    T = floats(tokens)
    seq = req.seq_len
    local_seq = seq / floats(cp)
    batch = T / local_seq
    if req.attention == "flash":
        # Causal FlashAttention computes half of the s x s scores.
        flops = 4 * batch * local_seq * seq * m.hidden / t * 0.5
        # Context parallelism runs the attention as blocks of the local chunk's length.
        share = attention_share(hw.attention_reference, local_seq)
        attn_t = flops / (hw.other_peak * share)
        return Roofline(attn_t, zeros_like(attn_t))
    # Batched QK^T and AV per head (K or N is the head dimension), then mask, softmax and
    # dropout over the materialised scores: about four passes of 2-byte scores.
    heads = m.heads / t
    qk = hw.gemm_16bit(local_seq, m.head_dim, seq, count=batch * heads)
    av = hw.gemm_16bit(local_seq, seq, m.head_dim, count=batch * heads)
    scores = streaming(4 * batch * heads * local_seq * seq * BYTES["bf16"], bw=hw.bw)
    return qk + av + scores


def elementwise_forward(
    req: EstimateRequest,
    hw: Hardware,
    *,
    tokens: npt.ArrayLike,
    tp: npt.ArrayLike,
    sequence_parallel: bool = True,
) -> Roofline:
    """Norms, residual adds, activation and casts of one layer, bandwidth-bound, plus the
    launch cost of the layer's kernels."""
    m = req.model
    t = floats(tp)
    T = floats(tokens)
    k = m.active_experts if m.experts > 1 else 1
    up = m.mlp_matrices - 1
    # The hidden state is split by tp only under sequence parallelism.
    hidden_split = t if sequence_parallel else 1.0
    kernels = stack_of(req).kernels
    # Unfused stacks pass over the same tensors several times more (planner.engine.stack).
    passes_hidden = HIDDEN_PASSES * kernels.elementwise_factor
    passes_mlp = MLP_PASSES * kernels.elementwise_factor
    recipe = fp8_recipe(req)
    if recipe is not None:
        # The FP8 GEMMs' inputs and output gradients quantised by the recipe's cast kernels.
        passes_hidden = passes_hidden + eff.FP8_CAST_HIDDEN_PASSES[recipe]
        passes_mlp = passes_mlp + eff.FP8_CAST_MLP_PASSES[recipe]
    elementwise = streaming(
        (passes_hidden * T * m.hidden / hidden_split + passes_mlp * T * k * up * m.ffn / t)
        * BYTES["bf16"],
        bw=hw.bw,
    )
    launches = kernels.kernels_per_layer * kernels.launch_s
    return Roofline(elementwise.total + launches, elementwise.memory_bound)


def layer_forward(
    req: EstimateRequest,
    hw: Hardware,
    *,
    tokens: npt.ArrayLike,
    tp: npt.ArrayLike,
    cp: npt.ArrayLike,
    ep: npt.ArrayLike = 1,
    sequence_parallel: bool = True,
) -> tuple[Roofline, Roofline, Roofline]:
    """One transformer layer's forward pass on one device: (GEMMs, attention core,
    streaming ops) as Rooflines."""
    m = req.model
    t = floats(tp)
    T = floats(tokens)
    h, f = m.hidden, m.ffn
    up = m.mlp_matrices - 1
    gemms = hw.gemm(T, h, (h + 2 * m.kv_dim) / t) + hw.gemm(T, h / t, h)
    if m.experts > 1:
        gemms = gemms + expert_forward(req, hw, tokens=T, tp=t, ep=ep)
    else:
        gemms = gemms + hw.gemm(T, h, up * f / t) + hw.gemm(T, f / t, h)
    attention = attention_forward(req, hw, tokens=tokens, tp=tp, cp=cp)
    elementwise = elementwise_forward(
        req, hw, tokens=tokens, tp=tp, sequence_parallel=sequence_parallel
    )
    return gemms, attention, elementwise


def grouped_gemm_share(flops_per_group: npt.ArrayLike) -> Floats:
    """Share of a dense GEMM's rate that a grouped GEMM over many experts keeps, by the work in
    one group (one expert's GEMM): small groups leave tiles part-empty and the kernel's
    scheduling over groups costs per group. A power law set on the H200 MoE layer
    measurements at 16,384 tokens (planner/validation/measurements/h200-2026-12-03/moe.json,
    torch._grouped_mm, routing and permutation counted apart): Qwen3-30B-A3B's 128 experts of
    768 (3.2 GFLOP per group) at 0.38 of the dense rate, GPT-OSS-20B's 32 experts of 2,880
    (34 GFLOP) at 0.67; the same shapes at 4,096 tokens (0.8 and 8.5 GFLOP, measured 0.29
    and 0.52) come out 6-7 % low."""
    gflop = maximum(floats(flops_per_group) / 1e9, 1e-6)
    share: Floats = minimum(GROUPED_GEMM_SHARE_AT_1_GFLOP * gflop**GROUPED_GEMM_EXPONENT, 1.0)
    return share


def expert_forward(
    req: EstimateRequest, hw: Hardware, *, tokens: Floats, tp: Floats, ep: npt.ArrayLike
) -> Roofline:
    """A MoE layer's experts on one device: the router, then each token's hidden state sent to
    its `active_experts` experts and their outputs combined back (a gather and a weighted
    scatter, bandwidth-bound), and the experts' GEMMs grouped, each expert taking its share of
    the routed tokens. Expert parallelism over `ep` ranks leaves experts / ep experts here,
    each seeing ep times the tokens (balanced routing)."""
    m = req.model
    h, f = m.hidden, m.ffn
    k = m.active_experts
    up = m.mlp_matrices - 1
    e = floats(ep)
    local_experts = maximum(m.experts / e, 1.0)
    per_expert = tokens * k / local_experts
    router = hw.gemm(tokens, h, m.experts) + streaming(
        ROUTER_PASSES * tokens * m.experts * BYTES["fp32"], bw=hw.bw
    )
    permute = streaming(PERMUTE_PASSES * tokens * k * h * BYTES["bf16"], bw=hw.bw)
    share = grouped_gemm_share(2 * per_expert * h * f / tp)
    experts = (hw.gemm(per_expert, h, up * f / tp) + hw.gemm(per_expert, f / tp, h)).scale(
        local_experts / share
    )
    shared = Roofline(zeros_like(tokens), zeros_like(tokens))
    if m.shared_ffn:
        shared = hw.gemm(tokens, h, up * m.shared_ffn / tp) + hw.gemm(tokens, m.shared_ffn / tp, h)
    return router + permute + experts + shared


def adapter_forward(
    req: EstimateRequest, hw: Hardware, *, tokens: npt.ArrayLike, tp: npt.ArrayLike
) -> Roofline:
    """LoRA's adapters of one layer, forward: x A then (x A) B for every adapted map, as the
    skinny GEMMs they are (the rank is their small dimension, so they run far below the
    tensor peak). Tensor parallelism splits B of column-parallel maps and A of row-parallel
    ones, as it splits their base weights."""
    m = req.model
    t = floats(tp)
    T = floats(tokens)
    r = req.lora_rank
    k = m.active_experts if m.experts > 1 else 1
    total = Roofline(zeros_like(T * t), zeros_like(T * t))
    for target, (n_in, n_out, _copies) in lora_target_shapes(m).items():
        if target not in req.lora_targets:
            continue
        rows = T * k if target in MLP_TARGETS else T
        split_out = target in COLUMN_PARALLEL_TARGETS
        a_in = n_in if split_out else n_in / t
        b_out = n_out / t if split_out else n_out
        total = total + hw.gemm(rows, a_in, r) + hw.gemm(rows, r, b_out)
    return total


def weight_only_dequant_s(
    req: EstimateRequest, *, weight_bytes: float, tokens: float, fused: bool, bw: float
) -> tuple[float, float]:
    """4-bit weight-only inference: the weights are stored in 4 bits and multiplied in 16, so
    every use dequantises them. Returns (seconds the dequantisation takes on the CUDA cores,
    overlapping the weight stream in a fused kernel; seconds of extra memory traffic a stack
    that dequantises to a 16-bit copy first adds in series).

    Fused kernels (Marlin, Machete, TensorRT-LLM's) unpack and scale each weight in registers
    once per tile of up to DEQUANT_TILE_TOKENS tokens, beside the tensor-core work; Marlin
    keeps the ideal 3.87x of a 4-bit stream over 16 bits up to 16-32 tokens and falls behind
    beyond, where the unpacking competes with the math (github.com/IST-DASLab/marlin, README
    "Techniques" and "Benchmarks"). bitsandbytes, which Hugging Face's 4-bit models run on,
    calls a fused kernel only for one token (gemv_4bit) and otherwise writes a dequantised
    16-bit copy of the weight and reads it back for a 16-bit GEMM (bitsandbytes
    autograd/_functions.py, matmul_4bit and MatMul4Bit)."""
    weights = weight_bytes / BYTES["int4"]
    if req.precision != "int4" or weights <= 0:
        return 0.0, 0.0
    if fused or tokens <= 1:
        tiles = math.ceil(tokens / DEQUANT_TILE_TOKENS)
        core_rate = (req.accelerator.peak_tflops("fp32") or 0.0) * 1e12 / 2  # FMA = 2 FLOPs
        if core_rate <= 0:
            return 0.0, 0.0
        return weights * DEQUANT_INSTRUCTIONS_PER_WEIGHT * tiles / core_rate, 0.0
    copies = weights * 2 * BYTES["bf16"]  # write the 16-bit copy, read it for the GEMM
    return 0.0, copies / bw
