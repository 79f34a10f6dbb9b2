"""The constants behind the loss factors, each with where it comes from, and the eta factors
the answer reports. The seeds' premise: effective compute = peak x eta_mem x eta_interconnect x
eta_sched x eta_thermal x eta_fault."""

from __future__ import annotations

import math
from dataclasses import dataclass

# Fraction of the dense tensor peak that a training job's GEMMs sustain. Microbenchmarks of
# cuBLAS reach ~80 % in BF16 on A100 and H100; inside a real step, sustained clocks under
# full power and memory interference bring that to ~70 %. FP8 GEMMs keep a smaller share of
# their doubled peak (the 16-bit epilogue and the scale loads do not halve, and clocks sag
# further at the higher power): 0.65, set on the FP8 calibration rows of Megatron-Core with
# Transformer Engine (NeMo 24.07 B27-B38; NeMo 25.09 F1, F3, F7, F11, F15). Together with SMALL_GEMM_DIM and FLASH_ATTENTION_EFFICIENCY these were
# fitted against the calibration rows of planner/validation/training_public.csv (`make
# validate` prints every row, and the held-out rows' errors by source).
GEMM_EFFICIENCY = {
    "fp32": 0.85,
    "tf32": 0.72,
    "bf16": 0.72,
    "fp16": 0.72,
    "fp8": 0.65,
    "int8": 0.70,
}
# A GEMM whose smallest dimension is d runs at d / (d + SMALL_GEMM_DIM) of that: tiles go
# partly empty and waves quantise (NVIDIA's "Matrix Multiplication Background" guide).
SMALL_GEMM_DIM = 64

# FP8 training as Transformer Engine runs it (TE's "Using FP8 with Transformer Engine" guide;
# transformer_engine/common/recipe). Its recipes differ in where the scaling factor of a tensor
# comes from, which sets what quantising the tensor costs:
#   delayed: per-tensor scale from the amax history of earlier steps; the cast kernel records
#            this step's amax as it writes, one pass (TE's default before Blackwell);
#   current: per-tensor scale from this step's amax, so the tensor is read once for its amax
#            before the cast (NeMo's FP8-CS recipes from 25.04);
#   mxfp8:   one E8M0 scale per 32 elements, found inside the cast kernel, applied by the
#            tensor cores (Blackwell's default recipe in TE 2.x).
FP8_RECIPES = ("delayed", "current", "mxfp8")
# The GEMMs that run in FP8: the four linear maps of each layer (QKV, attention output, MLP up
# and down); attention's score and value products stay in BF16, and so do the output head and
# the loss (TE's default: fp8_dpa off, the LM head outside the fp8_autocast region in
# Megatron-Core). Quantising their inputs costs streaming passes, each a 2-byte read or write
# of the tensor, counted per layer forward (backward does twice the forward's, as for the
# other pointwise work). Per layer and training step:
#   forward: the norm kernels before QKV and MLP-up write FP8 and its transpose directly
#            (LayerNormLinear, LayerNormMLP), half a pass more each; the attention output is
#            cast and transposed for the output projection (read + write: 2 passes); the
#            activation writes the MLP-down input in FP8 (half a pass over the ffn);
#   backward: each GEMM's output gradient is cast and transposed (cast_transpose: 2 passes)
#            for the data and weight gradients: QKV, attention-out and MLP-down outputs are
#            hidden-sized, MLP-up's is the (gated) intermediate.
# That is 3 + 6 = 9 hidden passes and 0.5 x 1/2 + 2 = 2.25 intermediate passes a step, or 3
# and 0.75 per forward-equivalent. Current scaling reads each of the eight quantised tensors
# once more for its amax: +2 hidden and +0.5 intermediate per forward-equivalent. MXFP8 finds
# its block scales in the cast, as delayed scaling does, and writes the row- and column-wise
# copies the transpose would have written.
FP8_CAST_HIDDEN_PASSES = {"delayed": 3.0, "current": 5.0, "mxfp8": 3.0}
FP8_CAST_MLP_PASSES = {"delayed": 0.75, "current": 1.25, "mxfp8": 0.75}
# Share of the per-tensor FP8 GEMM rate an MXFP8 GEMM keeps: the block scales are loaded with
# each K-tile. Set on the calibration rows F11/F13 (Llama 3 8B on DGX-B200, NeMo 25.09: 29,994
# tokens/s/GPU with FP8-CS and 29,388 with MXFP8, the same layout).
MXFP8_GEMM_SHARE = 0.97

# Causal FlashAttention's share of the 16-bit peak, over forward and backward, at a block of
# ATTENTION_REFERENCE_TOKENS tokens. FlashAttention-2 on A100 sustains 50-73 % forward and
# 40-50 % backward (Dao 2023, figures 5-6), less inside a training step: 0.40, fitted with the
# A100 rows, and for every stack calling PyTorch's scaled_dot_product_attention. Megatron-Core
# on Hopper runs Transformer Engine's cuDNN fused attention, which like FlashAttention-3 uses
# warp-specialised wgmma with TMA (75 % of the H100 peak forward at 16k tokens, Shah et al.
# 2024, figure 5); its
# figure was set on the calibration row C5 (NeMo's Llama 2 7B at 64k tokens, context parallel
# 2, on DGX-H100, where attention is three quarters of the step; C1-C9 but C5 are held out)
# and Blackwell's is taken equal to Hopper's (cuDNN's fused kernels on both).
FLASH_ATTENTION_EFFICIENCY = 0.40
FLASH_ATTENTION_EFFICIENCY_BY_ARCHITECTURE = {"Hopper": 0.52, "Blackwell": 0.52}
# Longer blocks keep more of that: the per-row softmax rescaling and the tile edges weigh less.
# FlashAttention-2's causal fwd+bwd rate rises about 1.2x from 2k to 16k tokens (Dao 2023,
# figure 6, head dimension 128), which a saturating L / (L + 480) gives.
ATTENTION_REFERENCE_TOKENS = 2048
ATTENTION_HALF_TOKENS = 480

# Streaming kernels (norms, activations, casts) reach about 80 % of peak DRAM bandwidth
# (STREAM-like copies on A100/H100).
MEMORY_BW_EFFICIENCY = 0.80
# NCCL's bus bandwidth reaches about 75 % of the NVLink figure per direction, 70 % over PCIe
# and 85 % of the NIC line rate on InfiniBand/RoCE (nccl-tests on DGX A100/H100).
SCALE_UP_EFFICIENCY = 0.75
PCIE_EFFICIENCY = 0.70
FABRIC_EFFICIENCY = 0.85
# Launch and synchronisation cost of one kernel with CUDA graphs off (3-8 us measured).
KERNEL_OVERHEAD_S = 5e-6
KERNELS_PER_LAYER_FORWARD = 14
# Share of backward compute that can hide gradient reduction (bucketed overlap in DDP,
# Megatron's overlap-grad-reduce, FSDP prefetch).
DP_OVERLAP = 0.85
# A card cooled by open-air fans inside a closed chassis loses boost clocks under sustained
# load; 10 % is typical of GeForce cards holding thermal limits for hours.
CONSUMER_THERMAL_FACTOR = 0.90


@dataclass(frozen=True)
class Eta:
    value: float
    explanation: str
    overridden: bool = False


def young_daly_interval_s(checkpoint_s: float, mtbf_s: float) -> float:
    """Checkpoint interval that minimises lost work: sqrt(2 x checkpoint cost x MTBF)
    (Young 1974; Daly 2006)."""
    return math.sqrt(2 * checkpoint_s * mtbf_s)


def fault_efficiency(
    *, devices: int, failures_per_gpu_hour: float, checkpoint_s: float, restart_s: float
) -> tuple[float, float, float]:
    """Fraction of wall time doing useful work with checkpoints at the Young/Daly interval:
    1 - (checkpoint cost / interval + interval / (2 MTBF) + restart / MTBF).
    Returns (eta_fault, MTBF seconds, interval seconds)."""
    rate_per_s = devices * failures_per_gpu_hour / 3600
    if rate_per_s <= 0:
        return 1.0, math.inf, math.inf
    mtbf = 1 / rate_per_s
    interval = young_daly_interval_s(checkpoint_s, mtbf)
    if interval <= 0:
        # Nothing to save (no trainable state): only the restarts cost time.
        return max(0.05, 1 - restart_s / mtbf), mtbf, interval
    waste = checkpoint_s / interval + interval / (2 * mtbf) + restart_s / mtbf
    return max(0.05, 1 - waste), mtbf, interval
