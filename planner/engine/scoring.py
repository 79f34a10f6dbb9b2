"""The five dimensions a build is judged on (the seeds' 显存容量, 显存带宽, 互联, 散热形态,
驱动/软件支持), each scored 0-100 with a one-line reason, and their weighted sum."""

from __future__ import annotations

from collections.abc import Mapping

DIMENSIONS = ("memory_capacity", "memory_bandwidth", "interconnect", "cooling", "software")

# Where each kind of job spends its time: training leans on interconnect and memory, serving on
# bandwidth (decode streams the weights every token), fine-tuning on fitting at all.
DEFAULT_WEIGHTS = {
    "train": {
        "memory_capacity": 0.20,
        "memory_bandwidth": 0.15,
        "interconnect": 0.30,
        "cooling": 0.15,
        "software": 0.20,
    },
    "finetune": {
        "memory_capacity": 0.35,
        "memory_bandwidth": 0.15,
        "interconnect": 0.10,
        "cooling": 0.15,
        "software": 0.25,
    },
    "inference": {
        "memory_capacity": 0.20,
        "memory_bandwidth": 0.35,
        "interconnect": 0.10,
        "cooling": 0.15,
        "software": 0.20,
    },
}
MATURITY_SCORE = {"mature": 100, "good": 75, "limited": 45, "experimental": 20}
# Full headroom at 30 % free memory: room for longer sequences, bigger batches, fragmentation.
FULL_HEADROOM = 0.30


def clamp(x: float) -> float:
    return max(0.0, min(100.0, x))


def memory_capacity(*, need_gib: float, capacity_gib: float) -> tuple[float, str]:
    if need_gib > capacity_gib:
        return (
            0.0,
            f"needs {need_gib:.1f} GiB per device, {need_gib - capacity_gib:.1f} GiB over its {capacity_gib:g} GiB",
        )
    headroom = 1 - need_gib / capacity_gib
    return clamp(
        60 + 40 * headroom / FULL_HEADROOM
    ), f"uses {need_gib:.1f} of {capacity_gib:g} GiB ({100 * headroom:.0f} % headroom)"


def memory_bandwidth(
    *, task: str, per_token_s: float, best_per_token_s: float, bound_share: float, bw_gb_s: float
) -> tuple[float, str]:
    """Time per token spent waiting on memory (decode steps for serving; norms, activations
    and the optimizer for training), against the best build in the plan."""
    share = best_per_token_s / per_token_s if per_token_s > 0 else 1.0
    what = (
        "decode"
        if task == "inference"
        else f"{100 * bound_share:.0f} % of device time is memory-bound;"
    )
    return clamp(
        100 * share
    ), f"{bw_gb_s:,.0f} GB/s: {what} {100 * share:.0f} % of the best build's speed there"


def interconnect(
    *, eta_interconnect: float, link: str, tp: int, dp: int, nodes: int
) -> tuple[float, str]:
    where = "inside one server" if nodes == 1 else f"over {nodes} servers"
    return clamp(100 * eta_interconnect), (
        f"{100 * (1 - eta_interconnect):.0f} % of the step on {link or 'PCIe'} and the fabric (TP {tp}, DP {dp}, {where})"
    )


def cooling(
    *,
    hostable: bool,
    binding: str | None,
    eta_thermal: float,
    consumer_cooling: bool,
    kw_per_u: float,
) -> tuple[float, str]:
    if not hostable:
        return 0.0, f"the site cannot host it ({binding})"
    score = 100 * eta_thermal
    notes = []
    if consumer_cooling:
        score = min(score, 35)
        notes.append("open-air consumer cooling in a closed chassis")
    if eta_thermal < 1:
        notes.append(f"clocks derated to {100 * eta_thermal:.0f} %")
    # Dense servers are fine where the rack is built for them; past ~1.5 kW per U, air cooling
    # struggles without rear-door or liquid help.
    if kw_per_u > 1.5:
        score -= 10
        notes.append(f"{kw_per_u:.1f} kW per U")
    return clamp(score), "; ".join(notes) or "suits the rack's cooling"


def software(
    *,
    task: str,
    stack: str,
    training: str,
    inference: str,
    ecc: bool,
    partitions: int,
    precision_native: bool,
) -> tuple[float, str]:
    maturity = inference if task == "inference" else training
    score = MATURITY_SCORE.get(maturity, 20)
    notes = [f"{stack} {maturity} for {'inference' if task == 'inference' else 'training'}"]
    if not ecc and task != "inference":
        score -= 15
        notes.append("no ECC for long runs")
    if not precision_native:
        score -= 10
        notes.append("precision emulated")
    if partitions and task == "inference":
        score += 5
        notes.append(f"{partitions} hardware partitions")
    return clamp(score), ", ".join(notes)


def normalised_weights(task: str, weights: Mapping[str, float] | None) -> dict[str, float]:
    chosen = dict(DEFAULT_WEIGHTS[task])
    if weights:
        chosen.update({k: float(v) for k, v in weights.items() if k in DIMENSIONS})
    total = sum(max(v, 0.0) for v in chosen.values())
    if total <= 0:
        return {k: 1 / len(DIMENSIONS) for k in DIMENSIONS}
    return {k: max(chosen[k], 0.0) / total for k in DIMENSIONS}


def overall(scores: Mapping[str, float], weights: Mapping[str, float]) -> float:
    """Weighted mean of the five scores; a zero weight removes that dimension."""
    return round(sum(scores[k] * weights[k] for k in DIMENSIONS), 2)
