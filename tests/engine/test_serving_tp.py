"""Serving with the tensor parallelism the question fixes: answered for that group, and told
when it is a poor choice."""

import dataclasses

from planner.engine.estimate import estimate
from planner.engine.specs import ParallelSpec
from tests.engine.conftest import H100, LLAMA3_8B, LLAMA3_70B, serve


def _answer(req, tp=None, dp=None):
    if tp is not None:
        req = dataclasses.replace(req, parallelism=ParallelSpec(tp=tp, dp=dp or req.count // tp))
    return estimate(req, advise=False)


def _codes(answer):
    return [w.code for w in answer.warnings]


def test_the_questions_tensor_parallelism_is_kept():
    req = serve(LLAMA3_8B, H100, count=8, batch=32)
    searched = _answer(req)
    assert searched.parallelism["tp"] == 1 and searched.search["searched"]
    fixed = _answer(req, tp=4)
    assert (fixed.parallelism["tp"], fixed.parallelism["dp"]) == (4, 2)
    assert not fixed.search["searched"]
    # A quarter of the weights per device: each step is faster, but two replicas serve
    # fewer tokens per second than eight.
    assert fixed.inference["tpot_ms"] < searched.inference["tpot_ms"]
    assert fixed.inference["decode_tokens_per_s"] < searched.inference["decode_tokens_per_s"]
    assert "inference.tp_poor_choice" in _codes(fixed)


def test_the_engines_own_group_given_back_draws_no_remark():
    req = serve(LLAMA3_8B, H100, count=8, batch=32)
    assert _codes(_answer(req, tp=1)) == []
    assert _answer(req, tp=1).inference == _answer(req).inference


def test_a_group_too_small_for_the_model_does_not_fit():
    big = serve(LLAMA3_70B, H100, count=8, batch=8)
    assert _answer(big).memory["fits"]
    too_small = _answer(big, tp=1)
    assert not too_small.memory["fits"]
    assert too_small.bottleneck.code == "bottleneck.memory_capacity"


def test_a_group_across_servers_is_called_out():
    req = dataclasses.replace(serve(LLAMA3_70B, H100, count=16, batch=8), per_node=8)
    assert "inference.tp_spans_servers" in _codes(_answer(req, tp=16, dp=1))
