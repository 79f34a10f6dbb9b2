"""MoE as it runs: grouped expert GEMMs sized by the tokens each expert gets, the router and
the token permutation, and expert parallelism `ep` in memory and in the step."""

import dataclasses
import json
from pathlib import Path

import numpy as np

from planner.engine.compute import grouped_gemm_share
from planner.engine.contract import RequestError
from planner.engine.contract.items import InlineModel
from planner.engine.estimate import estimate
from planner.engine.memory import training_memory
from planner.engine.specs import ModelSpec, ParallelSpec
from planner.engine.step import expert_comm_s, training_step
from tests.engine.conftest import H100, MIXTRAL, train
from tests.engine.contract.test_estimate import error_of

MOE_REPORT = (
    Path(__file__).resolve().parents[2] / "planner/validation/measurements/h200-2026-12-03/moe.json"
)


def _fixed(model=MIXTRAL, ep=0, count=16, per_node=8):
    layout = ParallelSpec(tp=1, pp=1, dp=count, micro_batch=1, zero_stage=1, ep=ep)
    req = train(model, H100, count=count, seq_len=4096, global_batch=count * 8, micro_batch=1)
    return dataclasses.replace(req, per_node=per_node, parallelism=layout)


def _layout(req):
    p = req.parallelism
    return {
        "tp": p.tp,
        "pp": p.pp,
        "dp": p.dp,
        "cp": 1,
        "vp": 1,
        "micro_batch": 1,
        "zero_stage": p.zero_stage,
        "recompute_code": 1,
    }


def test_grouped_gemms_keep_less_of_the_dense_rate_the_smaller_each_experts_work():
    # H200 moe.json: measured grouped time over a dense GEMM of the same FLOPs.
    report = json.loads(MOE_REPORT.read_text(encoding="utf-8"))
    for run in report["results"]:
        tokens_per_expert = run["tokens"] * run["top_k"] / run["experts"]
        work = 2 * tokens_per_expert * run["hidden"] * run["expert_inter"]
        measured = (
            run["dense_same_flops"]["forward_backward_s"] / run["grouped_mm"]["forward_backward_s"]
        )
        # Routing and permutation are in the measured grouped time and counted apart by the
        # engine, so the share is at or above the measured ratio.
        assert measured * 0.85 < float(grouped_gemm_share(work)) < measured * 1.5, run["shape"]
    assert grouped_gemm_share(1e9) < grouped_gemm_share(1e10) < grouped_gemm_share(1e11) <= 1


def test_the_same_active_compute_split_over_more_smaller_experts_runs_slower():
    few = dataclasses.replace(MIXTRAL, experts=8, active_experts=2, ffn=14336)
    many = dataclasses.replace(MIXTRAL, experts=64, active_experts=16, ffn=14336 // 8)
    few_s = float(training_step(_fixed(few, ep=8), **_layout(_fixed(few, ep=8))).step_s)
    many_s = float(training_step(_fixed(many, ep=8), **_layout(_fixed(many, ep=8))).step_s)
    assert many_s > 1.1 * few_s


def test_expert_parallelism_shards_the_experts_and_pays_an_all_to_all():
    def run(ep, per_node=8):
        req = _fixed(ep=ep, per_node=per_node)
        mem = training_memory(req, **_layout(req))
        one = np.ones(1)
        all_to_all = expert_comm_s(req, tokens=4096 * one, tp=one, cp=one, dp=16 * one)
        return float(mem["weights"]), float(all_to_all[0])

    w1, a1 = run(1)
    w8, a8 = run(8)
    assert w8 < w1 / 3  # experts are most of Mixtral's weights
    assert a1 == 0 < a8
    # Over the scale-out fabric (one device per server) the all-to-all costs more.
    _, a8_fabric = run(8, per_node=1)
    assert a8_fabric > a8


def test_ep_is_given_back_in_the_answer_and_checked_by_the_contract():
    answer = estimate(_fixed(ep=4), advise=False)
    assert answer.parallelism["ep"] == 4
    assert estimate(_fixed(), advise=False).parallelism["ep"] == 8  # min(experts, dp)
    dense = ModelSpec(params=1e9, layers=8, hidden=1024, heads=8, kv_heads=8, ffn=4096, vocab=1000)
    assert estimate(_fixed(dense), advise=False).parallelism["ep"] == 1


def test_an_ep_that_does_not_divide_the_experts_is_refused_by_name():
    error = error_of(
        model={
            key: value
            for key, value in dataclasses.asdict(MIXTRAL).items()
            if key in InlineModel.model_fields and key != "name"
        },
        global_batch=64,
        parallelism={"tp": 1, "dp": 8, "ep": 3},
    )
    assert isinstance(error, RequestError)
    assert error.field == "parallelism.ep"


def test_the_router_costs_more_with_more_experts():
    few = dataclasses.replace(MIXTRAL, experts=8)
    many = dataclasses.replace(MIXTRAL, experts=64)
    # Same active experts and expert size: the router's scores and top-k widen, the grouped
    # GEMMs each get fewer tokens.
    few_s = float(training_step(_fixed(few, ep=8), **_layout(_fixed(few, ep=8))).step_s)
    many_s = float(training_step(_fixed(many, ep=8), **_layout(_fixed(many, ep=8))).step_s)
    assert many_s > few_s


def test_an_ep_below_one_is_refused_by_name():
    assert error_of(parallelism={"tp": 1, "dp": 8, "ep": 0}).field == "parallelism.ep"


def test_the_search_tries_every_expert_parallel_degree_that_tiles_the_data_parallel_ranks():
    from planner.engine.parallel import candidate_layouts

    req = train(MIXTRAL, H100, count=16, seq_len=4096, global_batch=128)
    layouts = candidate_layouts(req)
    by_dp = {}
    for dp, ep in zip(layouts.dp.tolist(), layouts.ep.tolist(), strict=True):
        by_dp.setdefault(dp, set()).add(ep)
    assert by_dp[16] == {1, 2, 4, 8}  # divisors of 8 experts that divide 16
    assert by_dp[2] == {1, 2}
    dense = candidate_layouts(train(count=16, seq_len=4096, global_batch=128))
    assert set(dense.ep.tolist()) == {0}


def test_a_searched_expert_parallel_degree_is_the_one_the_answer_reports_and_times():
    req = train(MIXTRAL, H100, count=16, seq_len=4096, global_batch=128)
    answer = estimate(req)
    chosen = answer.parallelism["ep"]
    assert MIXTRAL.experts % chosen == 0 and answer.parallelism["dp"] % chosen == 0
    fixed = dataclasses.replace(
        req,
        parallelism=ParallelSpec(
            **{
                k: answer.parallelism[k]
                for k in ("tp", "pp", "dp", "cp", "vp", "micro_batch", "zero_stage")
            },
            recompute=answer.parallelism["recompute"],
            ep=chosen,
        ),
    )
    assert estimate(fixed).throughput["tokens_per_s"] == answer.throughput["tokens_per_s"]
