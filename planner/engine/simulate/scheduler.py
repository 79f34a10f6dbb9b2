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

This is the hot path of a million-request run: per-request state lives in plain lists, a
replica's in slotted attributes, and the loop keeps its counters in locals.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from heapq import heappop, heappush

import numpy as np

from planner.engine.simulate.serving_spec import ServingSpec

QUEUE_SAMPLES = 400  # samples over the arrival window; the drain after it adds more
PROGRESS_EVERY = 1 << 14  # arrivals between progress reports

_IDLE, _PREFILL, _DECODE = 0, 1, 2


class _Requests:
    """Per-request state, indexed by arrival order."""

    __slots__ = ("blocks", "contrib", "finished", "first_token", "output", "prompt")

    def __init__(self, prompts: np.ndarray, outputs: np.ndarray, block_tokens: int) -> None:
        n = len(prompts)
        self.prompt: list[int] = prompts.tolist()
        self.output: list[int] = outputs.tolist()
        self.blocks: list[int] = (-(-(prompts + outputs) // block_tokens)).tolist()
        self.first_token = [math.nan] * n
        self.finished = [math.nan] * n
        self.contrib = [0] * n  # a running request's share of its replica's `base`


class _Replica:
    """One replica's scheduler. Its step boundaries go on the shared event heap as (time,
    replica, version); a boundary whose version is no longer the replica's is stale."""

    __slots__ = (
        "base",
        "batch",
        "batch_steps",
        "d_fixed",
        "d_seq",
        "d_tok",
        "decode_a",
        "decode_steps",
        "dstep",
        "events",
        "index",
        "kv_free",
        "max_batch",
        "max_prefill",
        "mode",
        "n",
        "p_fixed",
        "p_floor",
        "p_tok",
        "peak",
        "reqs",
        "run_steps",
        "running",
        "t0",
        "version",
        "waiting",
    )

    def __init__(
        self,
        index: int,
        spec: ServingSpec,
        kv_blocks: int,
        reqs: _Requests,
        events: list[tuple[float, int, int]],
    ) -> None:
        step = spec.step
        self.index, self.reqs, self.events = index, reqs, events
        self.p_fixed, self.p_tok = step.prefill_fixed_s, step.prefill_per_token_s
        self.p_floor = step.prefill_floor_s
        self.d_fixed, self.d_seq = step.decode_fixed_s, step.decode_per_seq_s
        self.d_tok = step.decode_per_token_s
        self.max_batch, self.max_prefill = spec.max_batch, spec.max_prefill_tokens
        self.waiting: deque[int] = deque()
        self.running: list[tuple[int, int]] = []  # (decode step it finishes at, request)
        self.n = 0  # running requests
        self.peak = 0  # most requests running at once
        self.base = 0  # sum of (prompt + 1 - decode step joined) over running requests
        self.dstep = 0  # decode steps done
        self.decode_steps = self.batch_steps = 0  # decode steps run, and sequences over them
        self.kv_free = kv_blocks
        self.mode = _IDLE
        self.batch: list[int] = []  # requests in the prefill step under way
        self.t0 = 0.0  # start of the decode run under way
        self.decode_a = 0.0  # its first step's time
        self.run_steps = 0  # its length in steps
        self.version = 0  # bumps whenever the scheduled boundary changes

    def _prefill(self, t: float, tokens: int) -> None:
        duration = self.p_fixed + self.p_tok * tokens
        self.version += 1
        p_floor = self.p_floor
        heappush(
            self.events,
            (t + (duration if duration > p_floor else p_floor), self.index, self.version),
        )

    def finish_prefill(self, t: float) -> int:
        """The prefill step's requests have their first token; those asking for one token are
        done (returned), the others join the decode batch."""
        reqs, dstep, running = self.reqs, self.dstep, self.running
        first_token, output, prompt, contrib = (
            reqs.first_token,
            reqs.output,
            reqs.prompt,
            reqs.contrib,
        )
        done = joined = added = 0
        for rid in self.batch:
            first_token[rid] = t
            out = output[rid]
            if out <= 1:
                reqs.finished[rid] = t
                self.kv_free += reqs.blocks[rid]
                done += 1
            else:
                heappush(running, (dstep + out - 1, rid))
                c = prompt[rid] + 1 - dstep
                contrib[rid] = c
                added += c
                joined += 1
        self.base += added
        self.n += joined
        if self.n > self.peak:
            self.peak = self.n
        return done

    def finish_decode_run(self, t: float) -> int:
        """The decode run's steps are done; the requests that reached their last token leave
        (returned: how many)."""
        reqs, k, running = self.reqs, self.run_steps, self.running
        finished, blocks, contrib = reqs.finished, reqs.blocks, reqs.contrib
        self.decode_steps += k
        self.batch_steps += k * self.n
        dstep = self.dstep = self.dstep + k
        done = freed = removed = 0
        while running and running[0][0] <= dstep:
            rid = heappop(running)[1]
            finished[rid] = t
            freed += blocks[rid]
            removed += contrib[rid]
            done += 1
        self.kv_free += freed
        self.base -= removed
        self.n -= done
        return done

    def start_next(self, t: float) -> int:
        """At a step boundary: a prefill step if the head of the queue fits (returns how many
        it admits), else a decode run up to the next completion, else idle."""
        waiting, blocks, n_run = self.waiting, self.reqs.blocks, self.n
        if waiting and n_run < self.max_batch and blocks[waiting[0]] <= self.kv_free:
            prompt = self.reqs.prompt
            batch: list[int] = []
            tokens, room, free = 0, self.max_batch - n_run, self.kv_free
            while waiting and room and blocks[waiting[0]] <= free:
                head = waiting[0]
                if batch and tokens + prompt[head] > self.max_prefill:
                    break
                waiting.popleft()
                batch.append(head)
                tokens += prompt[head]
                free -= blocks[head]
                room -= 1
            self.kv_free, self.batch, self.mode = free, batch, _PREFILL
            self._prefill(t, tokens)
            return len(batch)
        if n_run:
            k = self.running[0][0] - self.dstep
            a = self.d_fixed + self.d_seq * n_run + self.d_tok * (self.base + n_run * self.dstep)
            self.mode, self.t0, self.decode_a, self.run_steps = _DECODE, t, a, k
            self.version += 1
            end = t + k * a + self.d_tok * n_run * k * (k - 1) / 2
            heappush(self.events, (end, self.index, self.version))
        else:
            self.mode = _IDLE
        return 0

    def admit(self, t: float, rid: int) -> bool:
        """An arrival. An idle replica (nothing runs, nothing waits) prefills it alone, now
        (returns True); otherwise it waits, and a decode run is cut short at its next step
        boundary if the request could be admitted there."""
        blocks = self.reqs.blocks
        if self.mode == _IDLE:
            self.kv_free -= blocks[rid]
            self.batch, self.mode = [rid], _PREFILL
            self._prefill(t, self.reqs.prompt[rid])
            return True
        was_empty = not self.waiting
        self.waiting.append(rid)
        if (
            self.mode == _DECODE
            and was_empty
            and self.n < self.max_batch
            and blocks[rid] <= self.kv_free
        ):
            self._cut_decode_run(t)
        return False

    def _cut_decode_run(self, t: float) -> None:
        """End the decode run at the first step boundary at or after t: the smallest j with
        j a + c j (j - 1) / 2 >= t - t0, where c = per-token cost x batch."""
        a, c, elapsed = self.decode_a, self.d_tok * self.n, t - self.t0
        if c > 0:
            half = a - c / 2
            j = math.ceil((-half + math.sqrt(half * half + 2 * c * elapsed)) / c)
        else:
            j = math.ceil(elapsed / a) if a > 0 else 0
        j = max(j, 0)
        while j * a + c * j * (j - 1) / 2 < elapsed:
            j += 1
        while j > 0 and (j - 1) * a + c * (j - 1) * (j - 2) / 2 >= elapsed:
            j -= 1
        if j < self.run_steps:
            self.run_steps = j
            self.version += 1
            heappush(self.events, (self.t0 + j * a + c * j * (j - 1) / 2, self.index, self.version))


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


def run(
    spec: ServingSpec,
    arrivals: np.ndarray,
    prompts: np.ndarray,
    outputs: np.ndarray,
    report: Callable[[float], None],
) -> Trace:
    """Play the arrivals through the replicas, event by event, until every request is done."""
    reqs = _Requests(prompts, outputs, spec.block_tokens)
    arr_t, blocks, n = arrivals.tolist(), reqs.blocks, len(arrivals)
    kv_blocks = spec.kv_budget_tokens // spec.block_tokens
    events: list[tuple[float, int, int]] = []
    reps = [_Replica(r, spec, kv_blocks, reqs, events) for r in range(spec.replicas)]
    load = [0] * spec.replicas  # outstanding requests per replica
    n_waiting = n_running = rejected = n_events = i = 0
    # Queue samples: every `dt` over the arrival window, continuing through the drain.
    horizon = arr_t[-1] if n else 0.0
    dt = horizon / QUEUE_SAMPLES if horizon > 0 else 1.0
    samples: list[tuple[float, int, int]] = []
    next_sample, single, inf = 0.0, spec.replicas == 1, math.inf
    while True:
        t_arr = arr_t[i] if i < n else inf
        if events and events[0][0] <= t_arr:
            # A step boundary of replica r.
            t, r, version = heappop(events)
            rep = reps[r]
            if version != rep.version:
                continue
            n_events += 1
            while t >= next_sample:
                samples.append((next_sample, n_waiting, n_running))
                next_sample += dt
            done = rep.finish_prefill(t) if rep.mode == _PREFILL else rep.finish_decode_run(t)
            admitted = rep.start_next(t)
            load[r] -= done
            n_running += admitted - done
            n_waiting -= admitted
            continue
        if i >= n:
            break
        # An arrival.
        t = t_arr
        n_events += 1
        while t >= next_sample:
            samples.append((next_sample, n_waiting, n_running))
            next_sample += dt
        if not i % PROGRESS_EVERY:
            report(0.99 * i / n)
        rid, i = i, i + 1
        if blocks[rid] > kv_blocks:
            rejected += 1
            continue
        r = 0 if single else load.index(min(load))
        load[r] += 1
        if reps[r].admit(t, rid):
            n_running += 1
        else:
            n_waiting += 1
    return _trace(reqs, reps, rejected=rejected, samples=samples, horizon=horizon, events=n_events)


def _trace(
    reqs: _Requests,
    reps: list[_Replica],
    *,
    rejected: int,
    samples: list[tuple[float, int, int]],
    horizon: float,
    events: int,
) -> Trace:
    decode_steps = sum(rep.decode_steps for rep in reps)
    return Trace(
        first_token=np.array(reqs.first_token),
        finished=np.array(reqs.finished),
        rejected=rejected,
        samples=samples,
        arrivals_end_s=horizon,
        mean_decode_batch=sum(rep.batch_steps for rep in reps) / max(decode_steps, 1),
        max_running=max(rep.peak for rep in reps),
        events=events,
    )
