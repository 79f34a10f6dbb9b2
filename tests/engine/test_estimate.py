import dataclasses
from types import MappingProxyType

import pytest

from planner.engine import MODEL_VERSION
from planner.engine.estimate import estimate
from planner.engine.specs import ETA_KEYS, ReliabilitySpec
from tests.engine.conftest import LLAMA3_8B, LLAMA3_70B, RTX3090, serve, train

CONTRACT_KEYS = {
    "memory": {
        "per_device_gib",
        "weights_gib",
        "gradients_gib",
        "optimizer_gib",
        "activations_gib",
        "kv_cache_gib",
        "overhead_gib",
        "fits",
    },
    "parallelism": {"tp", "pp", "dp", "micro_batch", "zero_stage", "recompute"},
    "throughput": {"tokens_per_s", "tokens_per_s_per_device", "model_tflops_per_device", "mfu"},
    "time": {"seconds", "days"},
    "inference": {"prefill_tokens_per_s", "decode_tokens_per_s", "ttft_ms", "tpot_ms"},
    "efficiency": set(ETA_KEYS),
}


@pytest.mark.parametrize(
    "request_", [train(), serve(), dataclasses.replace(train(), task="finetune", method="lora")]
)
def test_answer_has_every_key_of_the_contract(request_):
    answer = estimate(request_).as_dict()
    for section, keys in CONTRACT_KEYS.items():
        assert keys <= answer[section].keys(), section
    # Sentences are messages: a code with its figures, written out at the edge.
    assert answer["bottleneck"]["code"].startswith("bottleneck.")
    assert isinstance(answer["warnings"], list)
    assert all(set(e) == {"code", "params"} for e in answer["explanations"].values())
    assert answer["model_version"] == MODEL_VERSION
    assert set(answer["explanations"]) == set(ETA_KEYS)
    assert all(0 < answer["efficiency"][k] <= 1 for k in ETA_KEYS)


def test_time_is_tokens_over_goodput():
    answer = estimate(train(LLAMA3_8B, count=8, tokens=1e11))
    goodput = answer.throughput["tokens_per_s"] * answer.efficiency["eta_fault"]
    assert answer.time["seconds"] == pytest.approx(1e11 / goodput, rel=1e-3)
    assert answer.time["days"] == pytest.approx(answer.time["seconds"] / 86400, rel=1e-3)


def test_eta_fault_falls_with_cluster_size():
    small = estimate(train(LLAMA3_70B, count=64, global_batch=512)).efficiency["eta_fault"]
    large = estimate(train(LLAMA3_70B, count=4096, global_batch=4096)).efficiency["eta_fault"]
    assert large < small < 1


def test_eta_fault_follows_the_failure_rate_given():
    calm = train(
        LLAMA3_70B,
        count=1024,
        global_batch=1024,
        reliability=ReliabilitySpec(failures_per_gpu_hour=1e-6),
    )
    stormy = dataclasses.replace(calm, reliability=ReliabilitySpec(failures_per_gpu_hour=1e-4))
    assert estimate(stormy).efficiency["eta_fault"] < estimate(calm).efficiency["eta_fault"]


def test_an_override_replaces_the_factor_and_scales_throughput():
    base = estimate(train(LLAMA3_8B, count=8))
    halved = base.efficiency["eta_sched"] / 2
    over = estimate(train(LLAMA3_8B, count=8, efficiency=MappingProxyType({"eta_sched": halved})))
    assert over.efficiency["eta_sched"] == pytest.approx(halved, rel=1e-3)
    assert over.throughput["tokens_per_s"] == pytest.approx(
        base.throughput["tokens_per_s"] / 2, rel=1e-3
    )
    assert any(w.code == "override" and w.params["factor"] == "eta_sched" for w in over.warnings)


def test_overriding_eta_fault_changes_time_not_throughput():
    base = estimate(train(LLAMA3_8B, count=8))
    over = estimate(train(LLAMA3_8B, count=8, efficiency=MappingProxyType({"eta_fault": 0.5})))
    assert over.throughput["tokens_per_s"] == base.throughput["tokens_per_s"]
    assert over.time["seconds"] > 1.9 * base.time["seconds"]


def test_consumer_cards_are_derated_and_warned_about():
    answer = estimate(
        dataclasses.replace(
            train(LLAMA3_8B, RTX3090, count=1, global_batch=8, seq_len=512),
            task="finetune",
            method="qlora",
        )
    )
    assert answer.efficiency["eta_thermal"] < 1
    assert any(w.code == "warning.consumer_cards" for w in answer.warnings)


def test_bottleneck_names_the_largest_cost():
    assert estimate(serve(LLAMA3_8B, batch=1)).bottleneck.code == "bottleneck.memory_bandwidth"
    assert estimate(train(LLAMA3_8B, count=8)).bottleneck.code == "bottleneck.compute"
    # Tensor parallelism over 8 PCIe cards without NVLink spends its time on the link.
    from tests.engine.conftest import H100

    pcie = dataclasses.replace(H100, scale_up_gb_s=None, pcie_gb_s=31.5)
    from planner.engine.specs import ParallelSpec

    layout = ParallelSpec(tp=8, pp=1, dp=1, micro_batch=1, zero_stage=0, recompute="full")
    assert (
        estimate(
            train(LLAMA3_8B, pcie, count=8, global_batch=8, parallelism=layout)
        ).bottleneck.code
        == "bottleneck.scale_up_link"
    )


def test_search_reports_the_fastest_layout_that_fits():
    answer = estimate(train(LLAMA3_70B, count=64, global_batch=512, seq_len=4096))
    assert answer.memory["fits"]
    assert answer.search["evaluated"] > 100 and answer.search["feasible"] > 0
    layout = answer.parallelism
    assert layout["tp"] * layout["pp"] * layout["dp"] * layout["cp"] == 64
