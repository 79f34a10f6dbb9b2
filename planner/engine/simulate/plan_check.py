"""A serving plan's answers checked by simulation: its best builds each serve the plan's load in
the discrete-event simulation (the same requests for all: one seed, common random numbers), and a
build whose simulated SLO attainment falls short is rejected with the simulated figures as its
reason. The analytic ranking assumes steady batches; the simulation adds queueing, bursts of long
prompts and the KV cache filling up, which is where a build close to its SLO can miss it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from planner.engine.messages import Message, message
from planner.engine.simulate.question import MAX_SWEEP_CANDIDATES

CHECK_BUILDS = MAX_SWEEP_CANDIDATES  # the best builds checked, as many as a sweep runs
CHECK_REQUESTS = 100_000  # per build: p99 rests on a thousand requests
CHECK_SEED = 0  # one seed for every build: each sees the same arrivals and lengths
CHECK_ATTAINMENT = 0.99  # share of requests within every SLO bound that passes


def check_simulation(base: Mapping[str, Any]) -> dict[str, Any]:
    """The serving simulation asked of every checked build: the plan's own (rate, SLOs) at
    CHECK_REQUESTS requests on CHECK_SEED."""
    return {**base, "kind": "serving", "requests": CHECK_REQUESTS, "seed": CHECK_SEED}


def simulated_failure(
    result: Mapping[str, Any], *, attainment: float = CHECK_ATTAINMENT
) -> Message | None:
    """Why a build's simulated run misses its SLO, or None when it meets it: the share of
    requests that met every bound, against `attainment`, with the simulated p99s."""
    slo = result.get("slo") or {}
    reached = slo.get("attainment")
    if reached is None or reached >= attainment:
        return None
    ttft = (result.get("ttft_ms") or {}).get("p99")
    tpot = (result.get("tpot_ms") or {}).get("p99")
    if ttft is None or tpot is None:  # nothing completed, or no answer past one token
        return message("failure.simulated_slo.bare", percent=100 * reached, target=100 * attainment)
    return message(
        "failure.simulated_slo",
        percent=100 * reached,
        target=100 * attainment,
        ttft_p99_ms=ttft,
        tpot_p99_ms=tpot,
    )
