"""How many requests per second a serving build sustains under a TTFT/TPOT bound: tensor
parallelism, the batch per replica (up to what the KV cache holds) and the replicas searched,
each replica's load read off a queueing model of the scheduler the serving simulation plays
(`planner.engine.simulate.scheduler`: continuous batching, a prefill step for every request
waiting at a step boundary, KV blocks reserved up front) on the same fitted step times.

One replica at a load of `rate` requests/s, prompts of P tokens, answers of O:
- prefill takes a share rho_p = rate x (prefill time per request) of the replica's time, and
  stalls every decode step it falls between;
- a decode step over n sequences takes d(n) = a + b n, so each running request gets a token
  every S = d(n) / (1 - rho_p) seconds, and Little's law gives n = rate (O - 1) S: together
  S = a / (1 - rho_p - b rate (O - 1)), the decode rate going to infinity at saturation;
- a request holds a slot of the batch for its TTFT plus (O - 1) S; with B slots it waits for
  one as in an M/M/B queue (Erlang C), the tail read at the SLO's percentile;
- its TTFT is the step under way (a decode step, or a prefill of the arrivals a step gathers,
  their count at the percentile; chained prefills near saturation), its own prefill shared
  with the arrivals meanwhile, and the wait for a slot; its TPOT varies with the arrivals
  during its own decode (more prefills to wait through, a wider batch). Every term grows
  with the rate, so the latencies never fall as the rate rises.
The SLO is met at the 99th percentile (the simulation's attainment of 0.99)."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

from planner.engine.memory import inference_memory, usable_memory_bytes
from planner.engine.messages import message, plain
from planner.engine.replica import StepModel, max_batch_per_replica, step_model_from_engine
from planner.engine.specs import EstimateRequest

PERCENTILE = 0.99  # an SLO holds when 99 % of requests meet it
Z_99 = 2.3263  # the standard normal's 99th percentile
# Without a latency bound a queue could run at its saturation rate and grow without end; the
# plan keeps this share of it (an M/M/1 queue at 90 % load waits 9 service times on average).
UNBOUNDED_LOAD_SHARE = 0.9
_RATE_STEPS = 40  # bisection steps on the rate: 2^-40 of the saturation rate
_TP_OPTIONS = (1, 2, 4, 8, 16, 32, 64)


@dataclass(frozen=True)
class Lengths:
    prompt: int
    output: int


@dataclass(frozen=True)
class ReplicaLoad:
    """One replica at one rate: the p99 latencies and the mean running batch; `stable` False
    when the rate is past what the replica can serve at all."""

    stable: bool
    limit: str = ""  # unstable: "saturation" (the decode rate runs out) or "batch" (the slots)
    ttft_s: float = math.inf
    tpot_s: float = math.inf
    running: float = math.inf


@dataclass(frozen=True)
class ServingPlan:
    """The layout a build serves with, and what it sustains under the SLO."""

    tp: int
    batch_per_replica: int  # the scheduler's batch limit (vLLM's max_num_seqs)
    max_batch_per_replica: int  # what the KV cache holds at the question's lengths
    replicas: int
    capacity_rps: float
    ttft_ms: float | None  # p99 at the capacity
    tpot_ms: float | None
    binding: str  # what stops a higher rate: "ttft", "tpot", "batch" or "saturation"
    # p99 latencies at the question's rate, spread evenly over the replicas, with the batch
    # limit above: what users see on a normal day rather than at the edge. None without a
    # rate, or when the build cannot serve it.
    target_rps: float | None = None
    target_ttft_ms: float | None = None
    target_tpot_ms: float | None = None

    def as_dict(self) -> dict[str, object]:
        said = {
            "rps": self.capacity_rps,
            "replicas": self.replicas,
            "tp": self.tp,
            "batch": self.batch_per_replica,
            "max_batch": self.max_batch_per_replica,
            "binding": message(f"serving.binding.{self.binding}"),
        }
        why = (
            message("serving.capacity.one", **said)
            if self.replicas == 1
            else message("serving.capacity", **said)
        )
        return {**dataclasses.asdict(self), "why": plain(why)}


def _poisson_quantile(mean: float, q: float = PERCENTILE) -> int:
    """The smallest k with P(N <= k) >= q for N ~ Poisson(mean)."""
    if mean <= 0:
        return 0
    if mean > 200:  # normal approximation, with the continuity correction
        return math.ceil(mean + Z_99 * math.sqrt(mean) - 0.5)
    term = total = math.exp(-mean)
    k = 0
    while total < q:
        k += 1
        term *= mean / k
        total += term
    return k


def _erlang_c(servers: int, load: float) -> float:
    """The probability an arrival waits in an M/M/c queue with `servers` and offered `load`
    (Erlang B by its recurrence, then Erlang C)."""
    if load >= servers:
        return 1.0
    blocked = 1.0
    for k in range(1, servers + 1):
        blocked = load * blocked / (k + load * blocked)
    return blocked / (1 - (load / servers) * (1 - blocked))


def _first_token_s(step: StepModel, prompt: int, *, rate: float, decode_step: float) -> float:
    """p99 TTFT without a wait for a slot. An arrival waits out the step under way, then is
    prefilled in one step with everyone who arrived meanwhile. Steps gather arrivals: a prefill
    after a decode step takes those of the decode step, and near saturation prefills follow
    one another, each taking the arrivals of the last, their mean length the fixed point
    x = prefill(rate x prompt), fixed / (1 - rho) for rho the prompt tokens' share of the
    prefill rate. The step waited on is the longer of a decode step and a prefill of the
    arrivals of either at the percentile; its own prefill takes the mean arrivals of that wait
    along. Every term grows with the rate, so the p99 never falls as the rate rises."""
    rho = rate * prompt * step.prefill_per_token_s
    chained = step.prefill_fixed_s / (1 - rho) if rho < 1 else math.inf
    gathered = _poisson_quantile(rate * max(decode_step, chained))
    waited = max(decode_step, step.prefill_s(gathered * prompt) if gathered else 0.0)
    return waited + step.prefill_s((1 + rate * waited) * prompt)


def _prefill_per_request_s(step: StepModel, prompt: int, waiting: float) -> float:
    """A prefill step takes everyone waiting at once: its time shared among them, a step
    holding on average the Poisson count of arrivals given it holds one at least."""
    together = waiting / -math.expm1(-waiting) if waiting > 1e-9 else 1.0
    return step.prefill_s(together * prompt) / together


def replica_load(step: StepModel, lengths: Lengths, *, rate: float, batch: int) -> ReplicaLoad:
    """p99 TTFT and TPOT of one replica serving `rate` requests/s with at most `batch` running
    (the module's docstring gives the model)."""
    prompt, decodes = lengths.prompt, max(lengths.output - 1, 0)
    a = step.decode_fixed_s
    # Per running sequence: its own cost and its mean context over its decode.
    b = step.decode_per_seq_s + step.decode_per_token_s * (prompt + 1 + max(decodes - 1, 0) / 2)
    per_request, wall = step.prefill_s(prompt), a
    for _ in range(4):  # arrivals during a step share its prefill; settles in a few rounds
        per_request = _prefill_per_request_s(step, prompt, rate * wall)
        rho_p = rate * per_request
        free = 1 - rho_p - b * rate * decodes
        if free <= 0:
            return ReplicaLoad(stable=False, limit="saturation")
        wall = a / free
    running = rate * decodes * wall
    first = _first_token_s(step, prompt, rate=rate, decode_step=a + b * running)
    held = first + decodes * wall  # seconds a request holds its slot
    slots = rate * held
    if slots >= batch:
        return ReplicaLoad(stable=False, limit="batch")
    waits = _erlang_c(batch, slots)
    slot_wait = 0.0
    if waits > 1 - PERCENTILE:
        slot_wait = held / (batch - slots) * math.log(waits / (1 - PERCENTILE))
    tpot = wall
    if decodes:
        # Arrivals during a request's decode: each adds a prefill to wait through and, for the
        # steps it overlaps, a sequence to the batch (a Poisson count of rate x S per step);
        # the prefills' own arrivals stretch it further, as a busy period does (1 / (1 - rho)).
        c = per_request
        variance = running * (b * b * 2 * decodes * decodes / 3 + c * c + b * c * decodes)
        tpot = wall + Z_99 * math.sqrt(variance) / decodes / (1 - rate * per_request)
    return ReplicaLoad(stable=True, ttft_s=first + slot_wait, tpot_s=tpot, running=slots)


def _meets(load: ReplicaLoad, ttft_ms: float | None, tpot_ms: float | None) -> bool:
    return (
        load.stable
        and (ttft_ms is None or load.ttft_s * 1000 <= ttft_ms)
        and (tpot_ms is None or load.tpot_s * 1000 <= tpot_ms)
    )


def replica_rate(
    step: StepModel,
    lengths: Lengths,
    *,
    batch: int,
    ttft_ms: float | None,
    tpot_ms: float | None,
) -> float:
    """The most requests/s one replica serves with at most `batch` running, its p99 latencies
    within the bounds (0.0 when even a trickle misses them). Latencies grow with the rate, so
    the rate is bisected below where the replica saturates."""
    hi = 1.0
    while replica_load(step, lengths, rate=hi, batch=batch).stable:
        hi *= 2
    lo = 0.0
    if ttft_ms is None and tpot_ms is None:
        for _ in range(_RATE_STEPS):
            mid = (lo + hi) / 2
            lo, hi = (
                (mid, hi)
                if replica_load(step, lengths, rate=mid, batch=batch).stable
                else (lo, mid)
            )
        return lo * UNBOUNDED_LOAD_SHARE
    if not _meets(
        replica_load(step, lengths, rate=hi * 2**-_RATE_STEPS, batch=batch), ttft_ms, tpot_ms
    ):
        return 0.0
    for _ in range(_RATE_STEPS):
        mid = (lo + hi) / 2
        ok = _meets(replica_load(step, lengths, rate=mid, batch=batch), ttft_ms, tpot_ms)
        lo, hi = (mid, hi) if ok else (lo, mid)
    return lo


def _tp_options(request: EstimateRequest) -> list[int]:
    """Tensor-parallel groups inside one server that divide the heads and whose weights fit."""
    out = []
    for tp in _TP_OPTIONS:
        if tp > min(request.count, request.per_node) or request.model.heads % tp:
            continue
        weights = float(inference_memory(request, tp=tp)["weights"])
        if weights < usable_memory_bytes(request.accelerator):
            out.append(tp)
    return out


def _batch_limit(load: ReplicaLoad, most: int) -> int:
    """The batch limit to run with: the smallest under which no more than 1 - PERCENTILE of
    requests wait for a slot at this load (Erlang C); a wider one only reserves KV cache the
    load does not fill. At most what the KV cache holds."""
    lo, hi = max(1, math.ceil(load.running)), most
    if lo >= hi or _erlang_c(hi, load.running) > 1 - PERCENTILE:
        return hi
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if _erlang_c(mid, load.running) <= 1 - PERCENTILE else (mid, hi)
    return hi if _erlang_c(lo, load.running) > 1 - PERCENTILE else lo


def _binding(load: ReplicaLoad, bounds: tuple[float | None, float | None]) -> str:
    """What stops a slightly higher rate."""
    if not load.stable:
        return load.limit
    ttft_ms, tpot_ms = bounds
    if tpot_ms is not None and load.tpot_s * 1000 > tpot_ms:
        return "tpot"
    if ttft_ms is not None and load.ttft_s * 1000 > ttft_ms:
        return "ttft"
    return "saturation"


def _at_target(
    step: StepModel, lengths: Lengths, *, target_rps: float | None, replicas: int, batch: int
) -> dict[str, float | None]:
    """p99 latencies with the target rate shared evenly by the replicas (None past capacity)."""
    if not target_rps:
        return {"target_rps": target_rps}
    load = replica_load(step, lengths, rate=target_rps / replicas, batch=batch)
    if not load.stable:
        return {"target_rps": target_rps}
    return {
        "target_rps": target_rps,
        "target_ttft_ms": round(load.ttft_s * 1000, 3),
        "target_tpot_ms": round(load.tpot_s * 1000, 3),
    }


def serving_plan(
    request: EstimateRequest,
    *,
    ttft_ms: float | None,
    tpot_ms: float | None,
    target_rps: float | None = None,
) -> ServingPlan | None:
    """The layout of `request.count` devices (`request.per_node` to a server) that serves the
    most requests/s within the bounds: each tensor-parallel group, the batch per replica up to
    what its KV cache holds, as many replicas as the devices make; with `target_rps`, its
    latencies at that rate too. None when no group's weights leave room for one request's KV
    cache."""
    lengths = Lengths(request.inference.prompt_len, request.inference.output_len)
    bounds = (ttft_ms, tpot_ms)
    best: tuple[float, int, int, int, StepModel] | None = None
    for tp in _tp_options(request):
        most = max_batch_per_replica(request, tp=tp)
        if most < 1:
            continue
        step = step_model_from_engine(request, tp=tp)
        rate = replica_rate(step, lengths, batch=most, ttft_ms=ttft_ms, tpot_ms=tpot_ms)
        replicas = request.count // tp
        if best is None or rate * replicas > best[0] * best[2] * (1 + 1e-9):
            best = (rate, tp, replicas, most, step)
    if best is None:
        return None
    rate, tp, replicas, most, step = best
    at = replica_load(step, lengths, rate=rate, batch=most)
    batch = _batch_limit(at, most) if rate else 1
    beyond = replica_load(step, lengths, rate=rate * 1.01 + 1e-9, batch=most)
    return ServingPlan(
        tp=tp,
        batch_per_replica=batch,
        max_batch_per_replica=most,
        replicas=replicas,
        capacity_rps=round(rate * replicas, 3),
        ttft_ms=round(at.ttft_s * 1000, 3) if rate and at.stable else None,
        tpot_ms=round(at.tpot_s * 1000, 3) if rate and at.stable else None,
        binding=_binding(beyond, bounds),
        **_at_target(step, lengths, target_rps=target_rps, replicas=replicas, batch=batch),
    )
