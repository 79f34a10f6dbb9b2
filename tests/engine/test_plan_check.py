from planner.engine.simulate.plan_check import check_simulation, simulated_failure


def served(attainment, ttft_p99=None, tpot_p99=None):
    return {
        "slo": {"attainment": attainment},
        "ttft_ms": {"p99": ttft_p99},
        "tpot_ms": {"p99": tpot_p99},
    }


def test_a_build_within_the_slo_for_99_in_100_requests_passes():
    assert simulated_failure(served(0.99, 120.0, 20.0)) is None
    assert simulated_failure({"slo": {"attainment": None}}) is None  # no bound to miss


def test_a_build_short_of_it_fails_with_the_simulated_figures():
    failure = simulated_failure(served(0.95, 812.4, 31.25))
    assert failure.code == "failure.simulated_slo"
    assert dict(failure.params) == {
        "percent": 95.0,
        "target": 99.0,
        "ttft_p99_ms": 812.4,
        "tpot_p99_ms": 31.25,
    }
    assert simulated_failure(served(0.0)).code == "failure.simulated_slo.bare"


def test_every_build_is_asked_the_same_requests():
    asked = check_simulation({"kind": "serving", "rate_per_s": 20.0})
    assert asked == {"kind": "serving", "rate_per_s": 20.0, "requests": 100_000, "seed": 0}
