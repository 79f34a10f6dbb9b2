"""Many builds answered in one pass (planner.engine.many) give each build the answer it gets
alone: over every training row of the validation tables, with the layout left to the search and
beside other cards and counts, and over whole plans. And a question that fixes its layout gets
the same answer in Python numbers (parallel.evaluate's one-layout path) as in arrays."""

import dataclasses

import numpy as np
import pytest

from planner.engine import layout_sets, many, parallel
from planner.engine.estimate import estimate
from planner.engine.facility import ServerFacilitySpec
from planner.engine.many import estimate_many
from planner.engine.memory import training_memory
from planner.engine.recommend import AcceleratorOption, PlanQuestion, ServerOption, recommend
from planner.engine.recommend import builds as plan_builds
from planner.engine.specs import AcceleratorSpec
from planner.validation.measured import load_measured_cases
from planner.validation.public import load_cases
from tests.engine.conftest import A100, H100, LLAMA3_8B, LLAMA3_70B, MIXTRAL, RTX3090, train

# A card without bf16 (the plan falls back to fp16 there) and one with FP8 block scaling, so a
# pass holds builds of several precisions and FP8 recipes.
V100 = dataclasses.replace(
    A100,
    name="V100 (test)",
    memory_gib=32,
    memory_bw_gb_s=900,
    tflops={"fp16": 125.0, "fp32": 15.7},
    architecture="Volta",
)
B200 = dataclasses.replace(
    H100,
    name="B200 (test)",
    memory_gib=180,
    memory_bw_gb_s=8000,
    tflops={"bf16": 2250.0, "fp16": 2250.0, "fp8": 4500.0},
    architecture="Blackwell",
)


def build(card, count, per_node, precision, fabric, calibration=None):
    """What a build puts in place of the workload's card, cluster and precision."""
    return {
        "accelerator": card,
        "count": count,
        "per_node": per_node,
        "precision": precision,
        "fabric": fabric,
        "calibration": calibration,
    }


def requests(workload, builds):
    return [dataclasses.replace(workload, **b) for b in builds]


def one_by_one(workload, builds):
    return [_alone(req) for req in requests(workload, builds)]


def together(workload, builds):
    return [None if a is None else a.as_dict() for a in estimate_many(requests(workload, builds))]


def siblings(req, cards: tuple[AcceleratorSpec, ...]) -> list[dict]:
    """The row's own build, the same cluster of other cards, and half and twice the cluster."""
    own = build(
        req.accelerator, req.count, req.per_node, req.precision, req.fabric, req.calibration
    )
    out = [own]
    out += [{**own, "accelerator": card, "calibration": None} for card in cards]
    if req.count >= 2 * req.per_node:
        out.append({**own, "count": req.count // 2})
    if req.count <= 1024:
        out.append({**own, "count": req.count * 2})
    return out


def searched(req):
    return dataclasses.replace(req, parallelism=None)


TRAINING_ROWS = [
    *((c.id, c.request) for c in load_cases()),
    *((c.id, c.request) for c in load_measured_cases() if c.request.task != "inference"),
]


@pytest.mark.parametrize(("row", "req"), TRAINING_ROWS, ids=[r for r, _ in TRAINING_ROWS])
def test_every_validation_row_gets_its_own_answer_in_a_pass_beside_other_builds(row, req):
    workload = searched(req)
    cards = (H100, A100) if req.precision != "fp8" else (H100, B200)
    builds = siblings(workload, cards)
    assert together(workload, builds) == one_by_one(workload, builds), row


@pytest.mark.parametrize(("row", "req"), TRAINING_ROWS, ids=[r for r, _ in TRAINING_ROWS])
def test_memory_sized_once_per_distinct_part_is_the_layouts_memory_to_the_bit(row, req):
    # The batch left to the search too, so layouts of one shape differ in micro-batches; the
    # row's cluster beside one twice its size and one device, so parts are shared across
    # cluster sizes (and one has no collective buffers).
    workload = dataclasses.replace(searched(req), global_batch=None)
    clusters = [
        dataclasses.replace(workload, count=count, per_node=min(workload.per_node, count))
        for count in (workload.count, 2 * workload.count, 1)
    ]
    clusters = [c for c in clusters if len(parallel.candidate_layouts(c))]
    groups = [
        layout_sets.group_of([0], parallel.candidate_layouts(c), workload.model) for c in clusters
    ]
    table = layout_sets.table_of(groups, workload.model)
    sizes = [len(g.layouts) for g in groups]
    parts = table.memory(workload, np.repeat([c.count for c in clusters], sizes))
    for cluster, group, start, size in zip(clusters, groups, table.at, sizes, strict=True):
        whole = training_memory(cluster, **group.layouts.kwargs())
        assert parts.keys() == whole.keys()
        for name, value in whole.items():
            got = np.broadcast_to(parts[name], sum(sizes))[start : start + size]
            assert np.array_equal(got, value), (row, cluster.count, name)


def test_a_pass_over_precisions_recipes_and_calibrations_matches_one_by_one():
    workload = train(LLAMA3_70B, global_batch=None)
    cards = (H100, A100, RTX3090, V100)
    builds = [
        build(card, count, min(count, 8), "fp16" if card is V100 else "bf16", workload.fabric)
        for card in cards
        for count in (8, 16, 64, 256)
    ]
    answers = together(workload, builds)
    assert answers == one_by_one(workload, builds)
    assert sum(a is not None for a in answers) >= 10
    fp8 = dataclasses.replace(train(LLAMA3_8B, global_batch=None), precision="fp8")
    builds = [
        build(card, count, 8, "fp8", fp8.fabric) for card in (H100, B200) for count in (8, 64)
    ]
    assert together(fp8, builds) == one_by_one(fp8, builds)


def test_a_mixture_of_experts_pass_searches_expert_ranks_as_the_scalar_path_does():
    workload = train(MIXTRAL, global_batch=None)
    builds = [
        build(card, count, 8, "bf16", workload.fabric)
        for card in (H100, A100)
        for count in (16, 64)
    ]
    answers = together(workload, builds)
    assert answers == one_by_one(workload, builds)
    assert {a["parallelism"]["ep"] for a in answers if a} - {0}


def test_builds_left_without_a_layout_or_a_rate_say_so_in_both_paths():
    workload = train(LLAMA3_8B, global_batch=3)  # no data-parallel degree of 16 divides 3
    no_rate = dataclasses.replace(H100, tflops={})
    builds = [
        build(H100, 16, 8, "bf16", workload.fabric),
        build(no_rate, 8, 8, "bf16", workload.fabric),
        build(H100, 1, 1, "bf16", workload.fabric),
    ]
    assert together(workload, builds) == one_by_one(workload, builds)
    assert together(workload, builds)[1] is None


def test_the_bound_prunes_rows_but_never_the_chosen_one(monkeypatch):
    workload = train(LLAMA3_70B, global_batch=None)
    builds = [
        build(card, n, 8, "bf16", workload.fabric) for card in (H100, A100) for n in (64, 512)
    ]
    expected = one_by_one(workload, builds)
    timed = []
    real_step = many._step

    def counting(req, columns, operand_bytes, layouts, build, row):
        timed.append(len(row))
        return real_step(req, columns, operand_bytes, layouts, build, row)

    monkeypatch.setattr(many, "_step", counting)
    assert together(workload, builds) == expected
    searched_rows = sum(
        estimate(req, advise=False).search["evaluated"] for req in requests(workload, builds)
    )
    assert sum(timed) < searched_rows / 10


def plan(workload, **kw):
    cards = (
        AcceleratorOption("h100", H100, scale_up_link="NVLink"),
        AcceleratorOption("a100", A100, scale_up_link="NVLink"),
        AcceleratorOption("v100", V100),
        AcceleratorOption("rtx3090", RTX3090, consumer_cooling=True),
    )
    facility = ServerFacilitySpec(power_kw=6.5, units=6, kg=120)
    servers = (
        ServerOption(
            "hgx",
            8,
            frozenset({"h100", "a100", "v100"}),
            {c.slug: facility for c in cards},
            nic_ports=8,
            nic_gbps=400,
        ),
        ServerOption(
            "box4",
            4,
            frozenset({"a100", "rtx3090"}),
            {c.slug: facility for c in cards},
            nic_ports=1,
            nic_gbps=100,
        ),
    )
    return PlanQuestion(workload, cards, servers, max_count=kw.pop("max_count", 256), **kw)


@pytest.mark.parametrize(
    "workload",
    [
        train(LLAMA3_70B, global_batch=None),
        dataclasses.replace(train(LLAMA3_8B, global_batch=64), task="finetune", method="lora"),
        train(MIXTRAL, global_batch=None),
    ],
    ids=["70B pre-training", "8B LoRA", "Mixtral"],
)
def test_a_plan_ranks_the_same_whether_its_builds_are_estimated_together_or_one_by_one(
    workload, monkeypatch
):
    question = plan(workload)
    at_once = recommend(question).as_dict()
    monkeypatch.setattr(
        plan_builds,
        "estimate_many",
        lambda reqs: [_answer(req) for req in reqs],
    )
    assert recommend(question).as_dict() == at_once


def _answer(req):
    try:
        return estimate(req, advise=False)
    except ValueError:
        return None


def _alone(req):
    answer = _answer(req)
    return None if answer is None else answer.as_dict()


@pytest.mark.parametrize(("row", "req"), TRAINING_ROWS, ids=[r for r, _ in TRAINING_ROWS])
def test_a_fixed_layout_answers_the_same_in_python_numbers_as_in_arrays(row, req, monkeypatch):
    # parallel.evaluate times a single layout in Python numbers (planner.engine.arrays).
    in_numbers = _alone(req)
    monkeypatch.setattr(parallel, "_evaluate_one", lambda _req, _layouts: None)
    assert _alone(req) == in_numbers, row
