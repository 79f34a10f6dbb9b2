import json
import math

import pytest

from planner.engine import MODEL_VERSION
from planner.engine.efficiency import young_daly_interval_s
from planner.engine.simulate.training import CampaignSpec, simulate_campaign

DAY_S = 86_400.0
# Llama 3 scale (Dubey et al. 2024, section 3.3.4): 16,384 GPUs at 2e-5 failures per GPU-hour
# fail every 3.05 h. A 30 s checkpoint write keeps write time / MTBF near 0.003, where Young's
# first-order optimum is accurate (Daly 2006 puts the exact one 2.5 % lower).
LLAMA3_CLUSTER = {"devices": 16_384, "work_s": 30 * DAY_S, "checkpoint_write_s": 30.0}


def expected_completion_s(spec: CampaignSpec) -> float:
    """Exact mean for this model: a segment of exposed length s under failures at rate L, each
    followed by downtime R, takes (e^(L s) - 1)(1/L + R) on average."""
    rate, interval = spec.failure_rate_per_s, spec.interval_s
    segments = math.ceil(spec.work_s / interval)
    down = spec.detect_s + spec.restart_s
    full = interval + spec.checkpoint_write_s
    last = spec.work_s - (segments - 1) * interval
    per = lambda s: math.expm1(rate * s) * (1 / rate + down)  # noqa: E731
    return (segments - 1) * per(full) + per(last)


def test_without_failures_completion_is_work_plus_checkpoints_exactly():
    spec = CampaignSpec(
        devices=1024,
        work_s=10 * DAY_S,
        checkpoint_write_s=45.0,
        checkpoint_interval_s=3_600.0,
        failures_per_gpu_hour=0.0,
        trials=200,
    )
    result = simulate_campaign(spec)
    # 240 hours of work in 1 h segments: 239 checkpoints, none after the last segment.
    expected = 10 * DAY_S + 239 * 45.0
    assert result.completion_s == {
        "p50": expected,
        "p90": expected,
        "p99": expected,
        "mean": expected,
    }
    assert result.failures_mean == 0
    assert result.goodput == pytest.approx(10 * DAY_S / expected, abs=1e-6)
    assert result.best_interval_s is None
    assert result.young_daly_interval_s is None


def test_without_failures_and_no_interval_the_job_never_checkpoints():
    spec = CampaignSpec(
        devices=8, work_s=DAY_S, checkpoint_write_s=10.0, failures_per_gpu_hour=0.0, trials=10
    )
    assert simulate_campaign(spec).completion_s["mean"] == DAY_S


def test_stragglers_stretch_compute_but_not_checkpoint_writes():
    spec = CampaignSpec(
        devices=64,
        work_s=1_000.0,
        checkpoint_write_s=5.0,
        checkpoint_interval_s=100.0,
        failures_per_gpu_hour=0.0,
        straggler_slowdown=0.2,
        trials=10,
    )
    result = simulate_campaign(spec)
    assert result.completion_s["mean"] == pytest.approx(1_000 / 0.8 + 9 * 5.0)
    assert result.lost_s["stragglers"] == pytest.approx(250.0)


def test_default_interval_is_young_daly():
    spec = CampaignSpec(**LLAMA3_CLUSTER, trials=50, grid_trials=0)
    mtbf = 3_600 / (16_384 * 2e-5)
    assert spec.interval_s == pytest.approx(young_daly_interval_s(30.0, mtbf))
    assert simulate_campaign(spec).checkpoint_interval_s == pytest.approx(
        math.sqrt(2 * 30 * mtbf), abs=1e-3
    )


def test_best_interval_found_by_search_is_within_ten_percent_of_young_daly():
    result = simulate_campaign(CampaignSpec(**LLAMA3_CLUSTER, trials=200, grid_trials=600, seed=3))
    assert result.best_interval_s == pytest.approx(result.young_daly_interval_s, rel=0.10)
    grid = result.interval_grid
    assert len(grid["interval_s"]) == 25
    assert grid["interval_s"][0] == pytest.approx(result.young_daly_interval_s / 10, rel=1e-4)
    # The curve is a valley: both ends (0.1x and 10x) cost more than the refined optimum.
    assert (
        min(grid["mean_completion_s"][0], grid["mean_completion_s"][-1]) > result.best_completion_s
    )


def test_mean_completion_matches_the_analytic_expectation():
    spec = CampaignSpec(**LLAMA3_CLUSTER, trials=1_000, grid_trials=0, seed=11)
    result = simulate_campaign(spec)
    mean = result.completion_s["mean"]
    # Exact for this model (memoryless failures, downtime not exposed).
    assert mean == pytest.approx(expected_completion_s(spec), rel=0.005)
    # First order (Young 1974): each failure costs half a segment plus detect and restart.
    segments = math.ceil(spec.work_s / spec.interval_s)
    failure_free = spec.work_s + (segments - 1) * spec.checkpoint_write_s
    per_failure = (spec.interval_s + spec.checkpoint_write_s) / 2 + spec.detect_s + spec.restart_s
    assert mean == pytest.approx(failure_free / (1 - per_failure / spec.mtbf_s), rel=0.03)
    # Failures strike running time only, not the downtime each one adds.
    down = spec.detect_s + spec.restart_s
    assert result.failures_mean == pytest.approx(mean / (spec.mtbf_s + down), rel=0.02)


def test_time_lost_by_cause_adds_up_to_the_mean_completion():
    spec = CampaignSpec(
        devices=4_096,
        work_s=20 * DAY_S,
        checkpoint_write_s=60.0,
        throttle_episodes_per_hour=0.5,
        throttle_slowdown=0.3,
        throttle_mean_s=900.0,
        straggler_slowdown=0.03,
        trials=500,
        grid_trials=0,
    )
    result = simulate_campaign(spec)
    lost = result.lost_s
    assert spec.work_s + sum(lost.values()) == pytest.approx(result.completion_s["mean"], rel=1e-6)
    assert all(v > 0 for v in lost.values())
    # Throttling: 0.5 episodes an hour of 900 s each throttle 12.5 % of the straggled compute
    # time, which then runs 30 % slower.
    expected_throttle = spec.work_s / 0.97 * (0.5 * 900 / 3_600) * 0.3
    assert lost["throttling"] == pytest.approx(expected_throttle, rel=0.05)


def test_seeded_runs_are_deterministic_and_seeds_differ():
    spec = CampaignSpec(**LLAMA3_CLUSTER, trials=300, grid_trials=100, seed=7)
    first, again = simulate_campaign(spec).as_dict(), simulate_campaign(spec).as_dict()
    assert first == again
    other = simulate_campaign(CampaignSpec(**LLAMA3_CLUSTER, trials=300, grid_trials=100, seed=8))
    assert other.completion_s != first["completion_s"]


def test_result_serialises_to_json_with_the_model_version():
    out = simulate_campaign(CampaignSpec(**LLAMA3_CLUSTER, trials=100, grid_trials=100)).as_dict()
    assert out["model_version"] == MODEL_VERSION
    assert json.loads(json.dumps(out, allow_nan=False))["completion_days"]["p99"] > 30
    assert sum(out["histogram"]["counts"]) == 100


def test_progress_rises_to_one():
    seen = []
    simulate_campaign(
        CampaignSpec(**LLAMA3_CLUSTER, trials=100, grid_trials=100), progress=seen.append
    )
    assert seen == sorted(seen)
    assert seen[-1] == 1.0
    assert 0 <= seen[0] < 0.1


def test_spec_refuses_impossible_inputs():
    with pytest.raises(ValueError, match="straggler_slowdown"):
        CampaignSpec(devices=8, work_s=10.0, checkpoint_write_s=1.0, straggler_slowdown=1.0)
    with pytest.raises(ValueError, match="checkpoint_write_s"):
        CampaignSpec(devices=8, work_s=10.0, checkpoint_write_s=0.0)
