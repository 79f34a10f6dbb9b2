"""The constants behind the loss factors, each with where it comes from, and the eta factors
the answer reports. The seeds' premise: effective compute = peak x eta_mem x eta_interconnect x
eta_sched x eta_thermal x eta_fault."""

from __future__ import annotations

import math
from dataclasses import dataclass

# Fraction of the dense tensor peak that a training job's GEMMs sustain. Microbenchmarks of
# cuBLAS reach ~80 % in BF16 on A100 and H100; inside a real step, sustained clocks under
# full power and memory interference bring that to ~70 %. FP8 GEMMs run at a similar share
# of their doubled peak. Together with SMALL_GEMM_DIM, FLASH_ATTENTION_EFFICIENCY and
# compute.FP8_CAST_PASSES these were fitted once against planner/validation/
# training_public.csv (35 published runs; `make validate` prints the table).
GEMM_EFFICIENCY = {
    "fp32": 0.85,
    "tf32": 0.72,
    "bf16": 0.72,
    "fp16": 0.72,
    "fp8": 0.70,
    "int8": 0.70,
}
# A GEMM whose smallest dimension is d runs at d / (d + SMALL_GEMM_DIM) of that: tiles go
# partly empty and waves quantise (NVIDIA's "Matrix Multiplication Background" guide).
SMALL_GEMM_DIM = 64
# FlashAttention-2 sustains 50-73 % of peak forward and 40-50 % backward (Dao 2023, figures
# 5-6), less inside a training step; the causal kernels skip the masked half.
FLASH_ATTENTION_EFFICIENCY = 0.40
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
