"""The probe's arithmetic without a GPU, and the measurement it made on an NVIDIA H200
(tests/fixtures/h200-probe.json, written by `python -m planner.probe` on the device)."""

import json
from dataclasses import asdict
from pathlib import Path

import pytest

from planner.engine.shapes import param_split
from planner.engine.specs import ModelSpec
from planner.probe import kernels, probe

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "h200-probe.json"


def test_matmul_rate_counts_two_flops_per_multiply_add():
    assert kernels.matmul_tflops(8192, 8192, 8192, 1.0) == pytest.approx(2 * 8192**3 / 1e-3 / 1e12)


def test_allreduce_bus_bandwidth_follows_nccl_tests():
    # nccl-tests: busbw = algbw x 2(n-1)/n; with 8 ranks, 1 GB in 10 ms is 100 GB/s algbw.
    assert kernels.allreduce_busbw_gb_s(10**9, 8, 10.0) == pytest.approx(100 * 2 * 7 / 8)


def test_median_of_no_samples_is_an_error():
    with pytest.raises(ValueError):
        probe.median_ms([])


def test_timing_uses_events_after_warmup_with_a_fake_device():
    calls = []

    class Event:
        def __init__(self, enable_timing):
            self.t = None

        def record(self):
            self.t = len(calls)

        def synchronize(self):
            pass

        def elapsed_time(self, other):
            return float(other.t - self.t)  # one "ms" per call in between

    class Cuda:
        @staticmethod
        def synchronize():
            pass

    Cuda.Event = Event

    class FakeTorch:
        cuda = Cuda

    samples = probe.time_cuda(FakeTorch, lambda: calls.append(1), warmup=2, repeats=4, inner=3)
    assert samples == [1.0, 1.0, 1.0, 1.0] and len(calls) == 2 + 4 * 3


@pytest.mark.parametrize("shape", probe.TRAINING_STEPS, ids=lambda s: s.name)
def test_probe_models_count_parameters_as_the_engine_does(shape):
    spec = ModelSpec(
        params=0,
        layers=shape.layers,
        hidden=shape.hidden,
        heads=shape.heads,
        kv_heads=shape.kv_heads,
        ffn=shape.ffn,
        vocab=shape.vocab,
    )
    split = param_split(spec)
    assert shape.params == pytest.approx(split.body + 2 * spec.embedding_params, rel=1e-3)


def test_the_h200_measurement_is_complete_and_plausible():
    data = json.loads(FIXTURE.read_text())
    assert data["schema"] == probe.SCHEMA and data["device"]["name"] == "NVIDIA H200"
    rates = {k: v["tflops"] for k, v in data["matmul"].items()}
    # Dense datasheet peaks: bf16 989, fp8 1979, tf32 495, fp32 67 TFLOP/s. Measured rates sit
    # below them, and keep their order.
    assert rates["fp8"] > rates["bf16"] > rates["tf32"] > rates["fp32"]
    assert 0.6 < rates["bf16"] / 989.4 < 0.9
    assert 3000 < data["memory"]["d2d_gb_s"] < 4800 * 2
    small, medium = data["training"]
    assert small["tokens_per_s"] > medium["tokens_per_s"] > 0
    assert data["decode"][0]["tokens_per_s"] > 0


class _FakeEvent:
    clock = [0.0]

    def __init__(self, enable_timing):
        self.t = None

    def record(self):
        self.t = _FakeEvent.clock[0]

    def synchronize(self):
        pass

    def elapsed_time(self, other):
        return other.t - self.t


class _FakeTorch:
    """Enough of torch for the all-reduce sweep: tensors are byte counts, time is simulated."""

    bfloat16 = "bf16"

    class cuda:
        Event = _FakeEvent

        @staticmethod
        def synchronize():
            pass

    @staticmethod
    def rand(n, device, dtype):
        return {"elements": n}


class _FakeCollective:
    """An all-reduce over `ranks` devices on a link of `gb_s` bus bandwidth."""

    def __init__(self, ranks, gb_s):
        self.ranks, self.gb_s, self.calls = ranks, gb_s, 0

    def get_world_size(self, group=None):
        return len(group) if group is not None else self.ranks

    def all_reduce(self, tensor, group=None):
        self.calls += 1
        ranks = self.get_world_size(group)
        size = tensor["elements"] * 2
        seconds = size * 2 * (ranks - 1) / ranks / (self.gb_s * 1e9)
        _FakeEvent.clock[0] += seconds * 1000


def test_allreduce_sweep_reports_the_links_bus_bandwidth_with_a_fake_collective():
    collective = _FakeCollective(ranks=8, gb_s=360.0)
    rows = probe.measure_allreduce(_FakeTorch, collective, sizes=(2**20, 2**28))
    assert [r["bytes"] for r in rows] == [2**20, 2**28]
    assert all(r["ranks"] == 8 for r in rows)
    assert all(r["busbw_gb_s"] == pytest.approx(360.0, rel=1e-3) for r in rows)
    assert collective.calls == 2 * (3 + 10)  # warm-up and timed calls for each size


def _h200_datasheet():
    from types import MappingProxyType

    from planner.engine.specs import AcceleratorSpec

    return AcceleratorSpec(
        memory_gib=141,
        memory_bw_gb_s=4800,
        tflops=MappingProxyType({"bf16": 989.4}),
        scale_up_gb_s=450,
        scale_up_domain=8,
    )


def test_allreduce_rows_feed_the_calibrations_scale_up_share():
    from planner.engine.calibrate import derive

    h200 = _h200_datasheet()
    report = {
        "matmul": {"bf16": {"tflops": 780}},
        "memory": {"d2d_gb_s": 4200},
        "allreduce": [{"bytes": 2**28, "busbw_gb_s": 360.0}],
        "training": [],
    }
    assert derive(report, h200, name="x").spec.scale_up_efficiency == pytest.approx(0.8)


@pytest.mark.parametrize(
    ("world", "sizes"), [(1, [1]), (2, [1, 2]), (6, [1, 2, 4, 6]), (8, [1, 2, 4, 8])]
)
def test_one_launch_measures_groups_of_one_two_four_up_to_every_rank(world, sizes):
    assert probe.group_sizes(world) == sizes


class _FakeWorld(_FakeCollective):
    """Rank `rank` of `ranks`; groups are lists of ranks."""

    def __init__(self, rank, ranks, gb_s=360.0):
        super().__init__(ranks, gb_s)
        self.rank, self.groups, self.barriers = rank, [], 0

    def get_rank(self):
        return self.rank

    def new_group(self, ranks):
        self.groups.append(ranks)
        return ranks

    def barrier(self):
        self.barriers += 1


@pytest.mark.parametrize("rank", [0, 5])
def test_scaling_runs_each_group_on_its_ranks_and_every_rank_meets_at_each_barrier(
    rank, monkeypatch
):
    steps = []
    monkeypatch.setattr(
        probe,
        "measure_training",
        lambda torch, shape, *, dist, group: steps.append((shape, len(group))) or {"dp": 1},
    )
    monkeypatch.setattr(_FakeTorch.cuda, "empty_cache", staticmethod(lambda: None), raising=False)
    world = _FakeWorld(rank, ranks=8)
    allreduce, training = probe.measure_scaling(_FakeTorch, world, ["small", "medium"])
    # Every rank creates every group (a collective call) and waits after each.
    assert world.groups == [[0], [0, 1], [0, 1, 2, 3], list(range(8))]
    assert world.barriers == 4
    mine = [1, 2, 4, 8] if rank == 0 else [8]
    assert steps == [(shape, size) for size in mine for shape in ("small", "medium")]
    assert len(training) == 2 * len(mine)
    # The sweep runs on groups of two or more; a lone device has no link to measure.
    assert sorted({row["ranks"] for row in allreduce}) == [size for size in mine if size > 1]
    assert all(row["busbw_gb_s"] == pytest.approx(360.0, rel=1e-3) for row in allreduce)


def test_data_parallel_steps_are_asked_of_the_engine_as_measured_and_checked_not_fitted():
    from planner.engine.calibrate import derive, step_request

    h200 = _h200_datasheet()
    shape = {
        **asdict(probe.TRAINING_STEPS[0]),
        "params": probe.TRAINING_STEPS[0].params,
    }
    request = step_request({**shape, "dp": 4}, h200)
    assert (request.count, request.per_node, request.parallelism.dp) == (4, 4, 4)
    assert request.global_batch == 4 * shape["micro_batch"]
    report = {
        "matmul": {"bf16": {"tflops": 780}},
        "memory": {"d2d_gb_s": 4200},
        "allreduce": [{"bytes": 2**28, "busbw_gb_s": 360.0, "ranks": 4}],
        # The data-parallel row comes first; the end-to-end factor still comes from one device.
        "training": [
            {**shape, "dp": 4, "tokens_per_s": 4 * 80_000.0},
            {**shape, "dp": 1, "tokens_per_s": 80_000.0},
        ],
    }
    derived = derive(report, h200, name="x")
    rows = {r["figure"]: r for r in derived.rows if r["unit"] == "tokens/s"}
    assert set(rows) == {"training step 'small'", "training step 'small' on 4 GPUs"}
    assert rows["training step 'small'"]["reference"]
    assert not rows["training step 'small' on 4 GPUs"]["reference"]
    assert rows["training step 'small'"]["calibrated"] == pytest.approx(80_000, rel=1e-3)


DDP_FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "h200-probe-ddp1.json"


def test_data_parallel_on_one_h200_costs_what_the_plain_step_costs():
    # Measured with `torchrun --standalone --nproc-per-node 1 -m planner.probe` on the same kind
    # of card as h200-probe.json: DistributedDataParallel's own bookkeeping, with nothing to
    # all-reduce across, stays within a few per cent of the plain step.
    ddp = json.loads(DDP_FIXTURE.read_text())
    plain = json.loads(FIXTURE.read_text())
    assert ddp["device"]["name"] == plain["device"]["name"] == "NVIDIA H200"
    assert ddp["allreduce"] == []  # one rank: no link to measure
    plain_steps = {s["name"]: s for s in plain["training"]}
    for step in ddp["training"]:
        assert step["dp"] == 1
        assert step["tokens_per_s"] == pytest.approx(
            plain_steps[step["name"]]["tokens_per_s"], rel=0.05
        )
