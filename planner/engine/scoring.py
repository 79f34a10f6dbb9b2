"""The five dimensions a build is judged on (the seeds' 显存容量, 显存带宽, 互联, 散热形态,
驱动/软件支持), each scored 0-100 with a one-line reason, and their weighted sum."""

from __future__ import annotations

from collections.abc import Mapping

from planner.engine.messages import Message, binding_label, message

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


def memory_capacity(*, need_gib: float, capacity_gib: float) -> tuple[float, Message]:
    if need_gib > capacity_gib:
        return 0.0, message(
            "score.memory_capacity.over",
            need_gib=need_gib,
            over_gib=need_gib - capacity_gib,
            capacity_gib=capacity_gib,
        )
    headroom = 1 - need_gib / capacity_gib
    return clamp(60 + 40 * headroom / FULL_HEADROOM), message(
        "score.memory_capacity.uses",
        need_gib=need_gib,
        capacity_gib=capacity_gib,
        headroom_percent=100 * headroom,
    )


def memory_bandwidth(
    *, task: str, per_token_s: float, best_per_token_s: float, bound_share: float, bw_gb_s: float
) -> tuple[float, Message]:
    """Time per token spent waiting on memory (decode steps for serving; norms, activations
    and the optimizer for training), against the best build in the plan."""
    share = best_per_token_s / per_token_s if per_token_s > 0 else 1.0
    if task == "inference":
        reason = message("score.memory_bandwidth.decode", bw_gb_s=bw_gb_s, best_percent=100 * share)
    else:
        reason = message(
            "score.memory_bandwidth.training",
            bw_gb_s=bw_gb_s,
            bound_percent=100 * bound_share,
            best_percent=100 * share,
        )
    return clamp(100 * share), reason


def interconnect(
    *, eta_interconnect: float, link: str, tp: int, dp: int, nodes: int
) -> tuple[float, Message]:
    where = (
        message("score.where.one_server")
        if nodes == 1
        else message("score.where.servers", nodes=nodes)
    )
    return clamp(100 * eta_interconnect), message(
        "score.interconnect",
        percent=100 * (1 - eta_interconnect),
        # Cards without a scale-up link (the catalog says "none") talk over PCIe.
        link=link if link and link.lower() != "none" else "PCIe",
        tp=tp,
        dp=dp,
        where=where,
    )


def cooling(
    *,
    hostable: bool,
    binding: str | None,
    eta_thermal: float,
    consumer_cooling: bool,
    kw_per_u: float,
) -> tuple[float, Message]:
    if not hostable:
        return 0.0, message("score.cooling.not_hostable", binding=binding_label(binding or ""))
    score = 100 * eta_thermal
    notes: list[Message] = []
    if consumer_cooling:
        score = min(score, 35)
        notes.append(message("score.cooling.consumer"))
    if eta_thermal < 1:
        notes.append(message("score.cooling.derated", percent=100 * eta_thermal))
    # Dense servers are fine where the rack is built for them; past ~1.5 kW per U, air cooling
    # struggles without rear-door or liquid help.
    if kw_per_u > 1.5:
        score -= 10
        notes.append(message("score.cooling.kw_per_u", kw_per_u=kw_per_u))
    if not notes:
        return clamp(score), message("score.cooling.suits")
    return clamp(score), message("score.cooling", notes=notes)


def software(
    *,
    task: str,
    stack: str,
    training: str,
    inference: str,
    ecc: bool,
    partitions: int,
    precision_native: bool,
) -> tuple[float, Message]:
    maturity = inference if task == "inference" else training
    score = MATURITY_SCORE.get(maturity, 20)
    use = "inference" if task == "inference" else "training"
    notes = [
        message(f"score.software.{use}", stack=stack, maturity=message(f"maturity.{maturity}"))
    ]
    if not ecc and task != "inference":
        score -= 15
        notes.append(message("score.software.no_ecc"))
    if not precision_native:
        score -= 10
        notes.append(message("score.software.emulated"))
    if partitions and task == "inference":
        score += 5
        notes.append(message("score.software.partitions", partitions=partitions))
    return clamp(score), message("score.software", notes=notes)


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
