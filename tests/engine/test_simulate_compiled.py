"""The serving event loop runs over arrays, compiled with numba; the same source runs as plain
Python where numba is missing or NUMBA_DISABLE_JIT=1. Both must give, to the last bit, the answers
recorded from the object-based loop it replaced (tests/engine/data/serving_recorded.json, written
by that loop on the cases of tests/engine/simulate_cases.py)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from planner.engine.simulate import event_loop, scheduler
from planner.engine.simulate.arrivals import draw_requests
from planner.engine.simulate.serving import simulate_serving
from tests.engine.simulate_cases import CASES

ROOT = Path(__file__).resolve().parents[2]
RECORDED = json.loads((ROOT / "tests/engine/data/serving_recorded.json").read_text())


def answers(name: str) -> dict:
    """What the recording holds for one case: the summary, and exact sums of the per-request
    first-token and finish times (hex floats, so equality is to the bit)."""
    spec = CASES[name]
    arrivals, prompts, outputs = draw_requests(spec)
    trace = scheduler.run(spec, arrivals, prompts, outputs, lambda _fraction: None)
    order = np.arange(len(trace.finished))
    result = simulate_serving(spec).as_dict()
    result.pop("model_version")  # the figures, whatever the engine's version
    got = {
        "result": result,
        "first_token_sum": float(np.nansum(trace.first_token)).hex(),
        "finished_sum": float(np.nansum(trace.finished)).hex(),
        "finished_weighted": float(np.nansum(trace.finished * order)).hex(),
    }
    return json.loads(json.dumps(got))


@pytest.mark.parametrize("name", sorted(CASES))
def test_compiled_loop_gives_the_recorded_answers(name):
    assert answers(name) == RECORDED[name]


def test_the_loop_is_compiled_where_numba_is_installed():
    pytest.importorskip("numba")
    assert hasattr(event_loop.advance, "py_func")  # a numba dispatcher, not the plain function


def test_the_same_source_run_as_plain_python_gives_the_recorded_answers():
    script = (
        "import json, sys; sys.path.insert(0, '.');"
        "from tests.engine.test_simulate_compiled import CASES, answers;"
        "print(json.dumps({name: answers(name) for name in CASES}))"
    )
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    out = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(out.stdout) == RECORDED


def test_least_loaded_replica_breaks_ties_by_lowest_index():
    load = np.array([2.0, 1.0, 1.0, 3.0])
    heap, pos = np.arange(4), np.arange(4)
    for r in range(4):
        event_loop._reorder(heap, pos, load, r)
    assert heap[0] == 1
    load[1] += 1
    event_loop._reorder(heap, pos, load, 1)
    assert heap[0] == 2
    load[2] += 1
    event_loop._reorder(heap, pos, load, 2)
    assert heap[0] == 0  # 0, 1 and 2 all hold two: the lowest index goes first


class TimeLimit(Exception):
    """Stands for Celery's SoftTimeLimitExceeded, which a signal handler raises."""


def test_a_time_limit_raised_while_numba_enters_the_loop_reaches_the_caller(monkeypatch):
    # numba wraps an exception a signal handler raises inside its dispatcher in SystemErrors;
    # the task's `except SoftTimeLimitExceeded` must still see the limit, or the run is never
    # marked timed out.
    def advance(*_args):
        try:
            raise TimeLimit
        except TimeLimit as limit:
            raise SystemError(
                "CPUDispatcher(advance) returned a result with an exception set"
            ) from limit

    monkeypatch.setattr(event_loop, "advance", advance)
    spec = CASES[sorted(CASES)[0]]
    arrivals, prompts, outputs = draw_requests(spec)
    with pytest.raises(TimeLimit):
        scheduler.run(spec, arrivals, prompts, outputs, lambda _fraction: None)


def test_a_system_error_of_the_loop_itself_stays_as_it_is(monkeypatch):
    def advance(*_args):
        raise SystemError("a bug in the loop")

    monkeypatch.setattr(event_loop, "advance", advance)
    spec = CASES[sorted(CASES)[0]]
    arrivals, prompts, outputs = draw_requests(spec)
    with pytest.raises(SystemError, match="a bug in the loop"):
        scheduler.run(spec, arrivals, prompts, outputs, lambda _fraction: None)
