"""Continuous batching under a paged KV cache, event by event.

Each replica runs a vLLM-like scheduler (vLLM v0's default, chunked prefill off). At every step
boundary it either
- runs one prefill step for waiting requests taken first come, first served, as many as fit the
  free KV blocks, the batch limit and the prefill token budget (a prompt longer than the budget
  goes alone), or, when the head of the queue cannot be admitted,
- runs one decode step for all running requests.
A request is admitted only when blocks for its whole prompt plus output fit the free KV budget,
so a running request never runs out of cache and nothing is preempted (vLLM reserves blocks as
tokens arrive and preempts on exhaustion; reserving up front is the conservative version). A
request whose prompt plus output exceeds a replica's whole budget is rejected.

The prefill produces the first token (TTFT ends there); each decode step produces one more.
Between events the running batch is constant and a decode step's time grows linearly with the
context it reads, so a run of k decode steps has a closed form (an arithmetic series) and the
simulation jumps from event to event: arrivals, ends of prefill steps, the next completion, and
the step boundary after an arrival that can be admitted. Arrivals go to the replica with the
fewest outstanding requests (join the shortest queue, waiting plus running).

The loop itself runs over arrays in `event_loop`, compiled where numba is installed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from planner.engine.arrays import Floats, Ints
from planner.engine.simulate import event_loop as loop
from planner.engine.simulate.serving_spec import ServingSpec

QUEUE_SAMPLES = 400  # samples over the arrival window; the drain after it adds more
PROGRESS_EVERY = 1 << 14  # arrivals between progress reports


@dataclass(frozen=True)
class Trace:
    """What the event loop leaves for the summary."""

    first_token: np.ndarray  # seconds; NaN where a request never got one
    finished: np.ndarray
    rejected: int
    samples: list[tuple[float, int, int]]  # time, waiting, running
    arrivals_end_s: float
    mean_decode_batch: float
    max_running: int
    events: int


def _replicas(
    replicas: int, kv_blocks: int, running_room: int
) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    """Each replica's state and the two heaps, before the first arrival. At most `running_room`
    requests run at once on a replica (min of max batch and KV blocks: each holds a block)."""
    rep = np.zeros((replicas, loop.REP_COLUMNS), dtype=np.int64)
    rep[:, loop.KV_FREE] = kv_blocks
    rep[:, [loop.WAIT_HEAD, loop.WAIT_TAIL, loop.BATCH_HEAD]] = -1
    state = (
        rep,
        np.zeros((replicas, loop.REP_F_COLUMNS)),
        np.zeros((replicas, running_room), dtype=np.int64),
        np.zeros((replicas, running_room), dtype=np.int64),
    )
    # Every replica sits in both heaps from the start; equal keys are ordered by index.
    heaps = (
        np.full(replicas, np.inf),
        np.arange(replicas, dtype=np.int64),
        np.arange(replicas, dtype=np.int64),
        np.zeros(replicas),
        np.arange(replicas, dtype=np.int64),
        np.arange(replicas, dtype=np.int64),
    )
    return state, heaps


def _advance(*args: Any) -> Any:
    """The compiled loop up to its next pause; a signal's exception (a task's time limit) that
    numba wrapped on the way in or out is raised as itself."""
    try:
        return loop.advance(*args)
    except SystemError as error:
        raised = loop.raised_in_a_handler(error)
        if raised is error:
            raise
        raise raised from None


def run(
    spec: ServingSpec,
    arrivals: Floats,
    prompts: Ints,
    outputs: Ints,
    report: Callable[[float], None],
) -> Trace:
    """Play the arrivals through the replicas, event by event, until every request is done."""
    n, replicas = len(arrivals), spec.replicas
    kv_blocks = spec.kv_budget_tokens // spec.block_tokens
    blocks = -(-(prompts + outputs) // spec.block_tokens)
    reqs = (
        np.ascontiguousarray(prompts, dtype=np.int64),
        np.ascontiguousarray(outputs, dtype=np.int64),
        blocks.astype(np.int64),
        np.full(n, np.nan),  # first token
        np.full(n, np.nan),  # finished
        np.zeros(n, dtype=np.int64),  # a running request's share of its replica's BASE
        np.full(n, -1, dtype=np.int64),  # the next request waiting on the same replica
    )
    state, heaps = _replicas(replicas, kv_blocks, max(1, min(spec.max_batch, kv_blocks, n)))
    # Queue samples: every `dt` over the arrival window, continuing through the drain.
    horizon = float(arrivals[-1]) if n else 0.0
    dt = horizon / QUEUE_SAMPLES if horizon > 0 else 1.0
    step = spec.step
    params = np.array(
        [
            step.prefill_fixed_s,
            step.prefill_per_token_s,
            step.prefill_floor_s,
            step.decode_fixed_s,
            step.decode_per_seq_s,
            step.decode_per_token_s,
            dt,
        ]
    )
    limits = np.array([spec.max_batch, spec.max_prefill_tokens, kv_blocks], dtype=np.int64)
    counters, next_sample = np.zeros(loop.STATE_SIZE, dtype=np.int64), np.zeros(1)
    room = QUEUE_SAMPLES + 16
    samples = (np.empty(room), np.empty(room, dtype=np.int64), np.empty(room, dtype=np.int64))
    stop = 0
    arrivals = np.ascontiguousarray(arrivals, dtype=np.float64)
    while True:
        paused, samples = _advance(
            stop, arrivals, reqs, state, heaps, params, limits, counters, next_sample, samples
        )
        if not paused:
            break
        report(0.99 * stop / n)
        stop += PROGRESS_EVERY
    rep = state[0]
    taken = int(counters[loop.SAMPLES])
    decode_steps = int(rep[:, loop.DECODE_STEPS].sum())
    return Trace(
        first_token=reqs[3],
        finished=reqs[4],
        rejected=int(counters[loop.REJECTED]),
        samples=list(
            zip(
                samples[0][:taken].tolist(),
                samples[1][:taken].tolist(),
                samples[2][:taken].tolist(),
                strict=True,
            )
        ),
        arrivals_end_s=horizon,
        mean_decode_batch=int(rep[:, loop.BATCH_STEPS].sum()) / max(decode_steps, 1),
        max_running=int(rep[:, loop.PEAK].max()),
        events=int(counters[loop.EVENTS]),
    )
