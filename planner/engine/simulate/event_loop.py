"""The serving simulation's event loop over arrays, compiled with numba where it is installed
(`cache=True`: each installation compiles once) and run as plain Python where it is not or where
NUMBA_DISABLE_JIT=1: one source, the same answers either way (the tests run both).

The scheduler it plays is described in `scheduler`. The data fit a compiler: per-request state in
numpy arrays indexed by arrival order; each replica's waiting queue a linked list through `nxt`
(the prefill batch is the head of that list, so it needs no copy); each replica's running
requests a binary heap of the decode step they finish at, in a row of `run_step`/`run_rid`; the
next step boundary of every replica in an indexed heap keyed by (time, replica), which orders
events exactly as a heap of (time, replica, version) tuples with stale entries skipped did; the
load per replica in a second indexed heap keyed by (outstanding requests, replica), so the
least-loaded replica, lowest index first, is its top, found in O(1) and kept in O(log R).

The loop pauses before the arrival numbered `stop` so the caller can report progress, and
resumes from `state` where it left off.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from planner.engine.arrays import Floats, Ints

try:
    from numba import njit as _njit

    def compiled(fn: Callable[..., Any]) -> Any:
        return _njit(cache=True)(fn)

except ImportError:  # numba missing: the same functions, run by the interpreter

    def compiled(fn: Callable[..., Any]) -> Any:
        return fn


def raised_in_a_handler(error: SystemError) -> BaseException:
    """The exception a signal handler raised (a task's time limit, Ctrl-C) where it landed while
    numba was entering or leaving a compiled call: numba wraps it in SystemErrors, and the
    caller's `except SoftTimeLimitExceeded` would miss it. The end of the chain of causes; the
    error itself when it has none."""
    cause: BaseException = error
    while cause.__cause__ is not None:
        cause = cause.__cause__
    return cause


IDLE, PREFILL, DECODE = 0, 1, 2

# Columns of `rep`, the integer state of each replica.
MODE = 0
KV_FREE = 1  # free KV blocks
RUNNING = 2  # requests in the decode batch
PEAK = 3  # most requests running at once
BASE = 4  # sum of (prompt + 1 - decode step joined) over running requests
DSTEP = 5  # decode steps done
DECODE_STEPS = 6  # decode steps run
BATCH_STEPS = 7  # sequences over those steps
RUN_STEPS = 8  # length of the decode run under way
WAIT_HEAD = 9  # first waiting request, -1 for none
WAIT_TAIL = 10
BATCH_HEAD = 11  # first request of the prefill step under way
BATCH_LEN = 12
RUN_SIZE = 13  # entries in the replica's running heap
REP_COLUMNS = 14

# Columns of `rep_f`: the decode run under way, its start and its first step's time.
T0, DECODE_A = 0, 1
REP_F_COLUMNS = 2

# `params`: step times of one replica and the queue's sampling interval.
P_FIXED, P_TOK, P_FLOOR, D_FIXED, D_SEQ, D_TOK, SAMPLE_DT = range(7)

# `state`: the loop's counters between pauses; `fstate`: the next queue sample's time.
ARRIVAL, N_WAITING, N_RUNNING, REJECTED, EVENTS, SAMPLES = range(6)
STATE_SIZE = 6


# Indexed heaps over replicas: heap[0] is the replica with the smallest (key, index). -----------


@compiled
def _less(key: Floats, a: int, b: int) -> bool:
    return key[a] < key[b] or (key[a] == key[b] and a < b)


@compiled
def _reorder(heap: Ints, pos: Ints, key: Floats, r: int) -> None:
    """Restore the heap after key[r] changed: sift r up, then down."""
    i = pos[r]
    while i > 0:
        parent = (i - 1) >> 1
        other = heap[parent]
        if not _less(key, r, other):
            break
        heap[i] = other
        pos[other] = i
        i = parent
    size = len(heap)
    while True:
        child = 2 * i + 1
        if child >= size:
            break
        if child + 1 < size and _less(key, heap[child + 1], heap[child]):
            child += 1
        if not _less(key, heap[child], r):
            break
        heap[i] = heap[child]
        pos[heap[i]] = i
        i = child
    heap[i] = r
    pos[r] = i


# A replica's running requests: a binary heap on the decode step each finishes at. -------------


@compiled
def _run_push(run_step: Ints, run_rid: Ints, rep: Ints, r: int, step: int, rid: int) -> None:
    i = rep[r, RUN_SIZE]
    rep[r, RUN_SIZE] = i + 1
    while i > 0:
        parent = (i - 1) >> 1
        if run_step[r, parent] <= step:
            break
        run_step[r, i] = run_step[r, parent]
        run_rid[r, i] = run_rid[r, parent]
        i = parent
    run_step[r, i] = step
    run_rid[r, i] = rid


@compiled
def _run_pop(run_step: Ints, run_rid: Ints, rep: Ints, r: int) -> int:
    top = run_rid[r, 0]
    size = rep[r, RUN_SIZE] - 1
    rep[r, RUN_SIZE] = size
    step, rid = run_step[r, size], run_rid[r, size]
    i = 0
    while True:
        child = 2 * i + 1
        if child >= size:
            break
        if child + 1 < size and run_step[r, child + 1] < run_step[r, child]:
            child += 1
        if run_step[r, child] >= step:
            break
        run_step[r, i] = run_step[r, child]
        run_rid[r, i] = run_rid[r, child]
        i = child
    if size > 0:
        run_step[r, i] = step
        run_rid[r, i] = rid
    return int(top)


# One replica's scheduler. ----------------------------------------------------------------------


@compiled
def _prefill(ev_time: Floats, params: Floats, r: int, t: float, tokens: int) -> None:
    duration = params[P_FIXED] + params[P_TOK] * tokens
    floor = params[P_FLOOR]
    ev_time[r] = t + (duration if duration > floor else floor)


@compiled
def _finish_prefill(
    r: int,
    t: float,
    rep: Ints,
    prompt: Ints,
    output: Ints,
    blocks: Ints,
    first_token: Floats,
    finished: Floats,
    contrib: Ints,
    nxt: Ints,
    run_step: Ints,
    run_rid: Ints,
) -> int:
    """The prefill step's requests have their first token; those asking for one token are done
    (returned), the others join the decode batch."""
    dstep = rep[r, DSTEP]
    done = joined = added = 0
    rid = rep[r, BATCH_HEAD]
    for _ in range(rep[r, BATCH_LEN]):
        first_token[rid] = t
        out = output[rid]
        if out <= 1:
            finished[rid] = t
            rep[r, KV_FREE] += blocks[rid]
            done += 1
        else:
            _run_push(run_step, run_rid, rep, r, dstep + out - 1, rid)
            c = prompt[rid] + 1 - dstep
            contrib[rid] = c
            added += c
            joined += 1
        rid = nxt[rid]
    rep[r, BASE] += added
    rep[r, RUNNING] += joined
    if rep[r, RUNNING] > rep[r, PEAK]:
        rep[r, PEAK] = rep[r, RUNNING]
    return done


@compiled
def _finish_decode_run(
    r: int,
    t: float,
    rep: Ints,
    blocks: Ints,
    finished: Floats,
    contrib: Ints,
    run_step: Ints,
    run_rid: Ints,
) -> int:
    """The decode run's steps are done; the requests that reached their last token leave
    (returned: how many)."""
    k = rep[r, RUN_STEPS]
    rep[r, DECODE_STEPS] += k
    rep[r, BATCH_STEPS] += k * rep[r, RUNNING]
    dstep = rep[r, DSTEP] + k
    rep[r, DSTEP] = dstep
    done = freed = removed = 0
    while rep[r, RUN_SIZE] > 0 and run_step[r, 0] <= dstep:
        rid = _run_pop(run_step, run_rid, rep, r)
        finished[rid] = t
        freed += blocks[rid]
        removed += contrib[rid]
        done += 1
    rep[r, KV_FREE] += freed
    rep[r, BASE] -= removed
    rep[r, RUNNING] -= done
    return done


@compiled
def _start_next(
    r: int,
    t: float,
    rep: Ints,
    rep_f: Floats,
    prompt: Ints,
    blocks: Ints,
    nxt: Ints,
    run_step: Ints,
    ev_time: Floats,
    params: Floats,
    limits: Ints,
) -> int:
    """At a step boundary: a prefill step if the head of the queue fits (returns how many it
    admits), else a decode run up to the next completion, else idle."""
    max_batch, max_prefill = limits[0], limits[1]
    head, n_run = rep[r, WAIT_HEAD], rep[r, RUNNING]
    if head >= 0 and n_run < max_batch and blocks[head] <= rep[r, KV_FREE]:
        tokens, room, free, count = 0, max_batch - n_run, rep[r, KV_FREE], 0
        rep[r, BATCH_HEAD] = head
        while head >= 0 and room and blocks[head] <= free:
            if count and tokens + prompt[head] > max_prefill:
                break
            tokens += prompt[head]
            free -= blocks[head]
            room -= 1
            count += 1
            head = nxt[head]
        rep[r, WAIT_HEAD] = head
        if head < 0:
            rep[r, WAIT_TAIL] = -1
        rep[r, KV_FREE], rep[r, BATCH_LEN], rep[r, MODE] = free, count, PREFILL
        _prefill(ev_time, params, r, t, tokens)
        return count
    if n_run:
        dstep = rep[r, DSTEP]
        k = run_step[r, 0] - dstep
        d_tok = params[D_TOK]
        a = params[D_FIXED] + params[D_SEQ] * n_run + d_tok * (rep[r, BASE] + n_run * dstep)
        rep[r, MODE], rep[r, RUN_STEPS] = DECODE, k
        rep_f[r, T0], rep_f[r, DECODE_A] = t, a
        ev_time[r] = t + k * a + d_tok * n_run * k * (k - 1) / 2
    else:
        rep[r, MODE] = IDLE
        ev_time[r] = np.inf
    return 0


@compiled
def _cut_decode_run(
    r: int, t: float, rep: Ints, rep_f: Floats, ev_time: Floats, params: Floats
) -> None:
    """End the decode run at the first step boundary at or after t: the smallest j with
    j a + c j (j - 1) / 2 >= t - t0, where c = per-token cost x batch."""
    a, t0 = rep_f[r, DECODE_A], rep_f[r, T0]
    c, elapsed = params[D_TOK] * rep[r, RUNNING], t - t0
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
    if j < rep[r, RUN_STEPS]:
        rep[r, RUN_STEPS] = j
        ev_time[r] = t0 + j * a + c * j * (j - 1) / 2


@compiled
def _admit(
    r: int,
    t: float,
    rid: int,
    rep: Ints,
    rep_f: Floats,
    prompt: Ints,
    blocks: Ints,
    nxt: Ints,
    ev_time: Floats,
    params: Floats,
    limits: Ints,
) -> bool:
    """An arrival. An idle replica prefills it alone, now (returns True); otherwise it waits,
    and a decode run is cut short at its next step boundary if the request could be admitted
    there."""
    if rep[r, MODE] == IDLE:
        rep[r, KV_FREE] -= blocks[rid]
        rep[r, BATCH_HEAD], rep[r, BATCH_LEN], rep[r, MODE] = rid, 1, PREFILL
        _prefill(ev_time, params, r, t, prompt[rid])
        return True
    nxt[rid] = -1
    was_empty = rep[r, WAIT_HEAD] < 0
    if was_empty:
        rep[r, WAIT_HEAD] = rid
    else:
        nxt[rep[r, WAIT_TAIL]] = rid
    rep[r, WAIT_TAIL] = rid
    if (
        rep[r, MODE] == DECODE
        and was_empty
        and rep[r, RUNNING] < limits[0]
        and blocks[rid] <= rep[r, KV_FREE]
    ):
        _cut_decode_run(r, t, rep, rep_f, ev_time, params)
    return False


# The loop. -------------------------------------------------------------------------------------


@compiled
def _grown(x: Any, size: int) -> Any:
    bigger = np.empty(2 * size, dtype=x.dtype)
    bigger[:size] = x[:size]
    return bigger


@compiled
def advance(
    stop: int,
    arrivals: Floats,
    reqs: tuple[Ints, Ints, Ints, Floats, Floats, Ints, Ints],
    replicas: tuple[Ints, Floats, Ints, Ints],
    heaps: tuple[Floats, Ints, Ints, Floats, Ints, Ints],
    params: Floats,
    limits: Ints,
    state: Ints,
    fstate: Floats,
    samples: tuple[Floats, Ints, Ints],
) -> tuple[bool, tuple[Floats, Ints, Ints]]:
    """Play events until every request is done (returns False) or until the arrival numbered
    `stop` is next (returns True). Returns the queue samples too, in arrays that may have grown.

    `limits`: max batch, max prefill tokens, KV blocks per replica."""
    prompt, output, blocks, first_token, finished, contrib, nxt = reqs
    rep, rep_f, run_step, run_rid = replicas
    ev_time, ev_heap, ev_pos, load, load_heap, load_pos = heaps
    samples_t, samples_w, samples_r = samples
    kv_blocks, dt = limits[2], params[SAMPLE_DT]
    n, inf = len(arrivals), np.inf
    i, n_waiting, n_running = state[ARRIVAL], state[N_WAITING], state[N_RUNNING]
    rejected, n_events, n_samples = state[REJECTED], state[EVENTS], state[SAMPLES]
    next_sample = fstate[0]
    paused = False
    while True:
        t_arr = arrivals[i] if i < n else inf
        r = ev_heap[0]
        t = ev_time[r]
        is_boundary = t < inf and t <= t_arr
        if not is_boundary:
            if i >= n:
                break
            if i == stop:
                paused = True
                break
            t = t_arr
        n_events += 1
        while t >= next_sample:
            if n_samples == len(samples_t):
                samples_t = _grown(samples_t, n_samples)
                samples_w = _grown(samples_w, n_samples)
                samples_r = _grown(samples_r, n_samples)
            samples_t[n_samples] = next_sample
            samples_w[n_samples] = n_waiting
            samples_r[n_samples] = n_running
            n_samples += 1
            next_sample += dt
        if is_boundary:
            # A step boundary of replica r.
            if rep[r, MODE] == PREFILL:
                done = _finish_prefill(
                    r, t, rep, prompt, output, blocks, first_token, finished, contrib, nxt,
                    run_step, run_rid,
                )  # fmt: skip
            else:
                done = _finish_decode_run(r, t, rep, blocks, finished, contrib, run_step, run_rid)
            admitted = _start_next(
                r, t, rep, rep_f, prompt, blocks, nxt, run_step, ev_time, params, limits
            )
            _reorder(ev_heap, ev_pos, ev_time, r)
            if done:
                load[r] -= done
                _reorder(load_heap, load_pos, load, r)
            n_running += admitted - done
            n_waiting -= admitted
            continue
        # An arrival.
        rid = i
        i += 1
        if blocks[rid] > kv_blocks:
            rejected += 1
            continue
        r = load_heap[0]
        load[r] += 1
        _reorder(load_heap, load_pos, load, r)
        if _admit(r, t, rid, rep, rep_f, prompt, blocks, nxt, ev_time, params, limits):
            n_running += 1
        else:
            n_waiting += 1
        _reorder(ev_heap, ev_pos, ev_time, r)
    state[ARRIVAL], state[N_WAITING], state[N_RUNNING] = i, n_waiting, n_running
    state[REJECTED], state[EVENTS], state[SAMPLES] = rejected, n_events, n_samples
    fstate[0] = next_sample
    return paused, (samples_t, samples_w, samples_r)
