"""The factors outside the step time: eta_thermal (consumer cards lose clocks under sustained
load) and eta_fault (time lost to failures, checkpoints and restarts, Young/Daly), each with
the message that explains it."""

from __future__ import annotations

import math

from planner.engine import efficiency as eff
from planner.engine.messages import Message, message
from planner.engine.shapes import lora_params
from planner.engine.specs import BYTES, EstimateRequest

# A checkpoint holds bf16 weights plus fp32 master weights and two Adam moments: 14 bytes per
# parameter; LoRA checkpoints hold only the adapters, 16 bytes each with their states.
CHECKPOINT_BYTES_PER_PARAM = BYTES["bf16"] + 12
LORA_CHECKPOINT_BYTES_PER_PARAM = 16


def fault_factor(req: EstimateRequest) -> tuple[float, Message]:
    """eta_fault: the share of wall time left after failures, checkpoints and restarts."""
    if req.task == "inference":
        return 1.0, message("eta_fault.serving")
    rel = req.reliability
    trainable_bytes = req.model.params * CHECKPOINT_BYTES_PER_PARAM
    if req.method != "full":
        trainable_bytes = lora_params(req) * LORA_CHECKPOINT_BYTES_PER_PARAM
    checkpoint_s = trainable_bytes / (req.checkpoint_gb_s * 1e9)
    value, mtbf, interval = eff.fault_efficiency(
        devices=req.count,
        failures_per_gpu_hour=rel.failures_per_gpu_hour,
        checkpoint_s=checkpoint_s,
        restart_s=rel.restart_s,
    )
    if math.isinf(mtbf):
        return 1.0, message("eta_fault.none")
    return value, message(
        "eta_fault.training",
        devices=req.count,
        failures_per_gpu_hour=rel.failures_per_gpu_hour,
        mtbf_h=mtbf / 3600,
        checkpoint_s=checkpoint_s,
        checkpoint_gb_s=req.checkpoint_gb_s,
        interval_min=interval / 60,
        restart_min=rel.restart_s / 60,
        lost_percent=100 * (1 - value),
    )


def thermal_factor(req: EstimateRequest) -> tuple[float, Message]:
    """eta_thermal: consumer cards lose clocks under sustained load; datacentre cards do not."""
    if req.accelerator.consumer_cooling:
        return eff.CONSUMER_THERMAL_FACTOR, message(
            "eta_thermal.consumer", lower_percent=100 * (1 - eff.CONSUMER_THERMAL_FACTOR)
        )
    return 1.0, message("eta_thermal.datacentre")


def thermal_and_fault(req: EstimateRequest) -> tuple[dict[str, float], dict[str, Message]]:
    """eta_thermal and eta_fault, and their explanations."""
    thermal, thermal_note = thermal_factor(req)
    fault, fault_note = fault_factor(req)
    return (
        {"eta_thermal": thermal, "eta_fault": fault},
        {"eta_thermal": thermal_note, "eta_fault": fault_note},
    )
