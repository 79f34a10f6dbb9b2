import pytest

from planner.engine import scoring


def test_memory_capacity_is_zero_when_it_does_not_fit_and_full_with_30_percent_free():
    assert scoring.memory_capacity(need_gib=90, capacity_gib=80)[0] == 0
    assert scoring.memory_capacity(need_gib=56, capacity_gib=80)[0] == 100
    tight, reason = scoring.memory_capacity(need_gib=79, capacity_gib=80)
    assert 60 <= tight < 62 and reason.code == "score.memory_capacity.uses"


def test_bandwidth_is_relative_to_the_best_build():
    best = scoring.memory_bandwidth(
        task="inference", per_token_s=1.0, best_per_token_s=1.0, bound_share=1, bw_gb_s=3350
    )
    half = scoring.memory_bandwidth(
        task="inference", per_token_s=2.0, best_per_token_s=1.0, bound_share=1, bw_gb_s=1600
    )
    assert best[0] == 100 and half[0] == 50


def test_a_rack_that_cannot_host_scores_zero_on_cooling_and_consumer_cards_are_capped():
    assert (
        scoring.cooling(
            hostable=False,
            binding="cooling type",
            eta_thermal=1,
            consumer_cooling=False,
            kw_per_u=1,
        )[0]
        == 0
    )
    assert (
        scoring.cooling(
            hostable=True, binding=None, eta_thermal=0.9, consumer_cooling=True, kw_per_u=0.3
        )[0]
        <= 35
    )
    assert (
        scoring.cooling(
            hostable=True, binding=None, eta_thermal=1, consumer_cooling=False, kw_per_u=1.0
        )[0]
        == 100
    )


def test_software_follows_maturity_and_ecc():
    cuda = scoring.software(
        task="train",
        stack="CUDA",
        training="mature",
        inference="mature",
        ecc=True,
        partitions=7,
        precision_native=True,
    )
    cann = scoring.software(
        task="train",
        stack="CANN",
        training="limited",
        inference="good",
        ecc=True,
        partitions=0,
        precision_native=True,
    )
    geforce = scoring.software(
        task="train",
        stack="CUDA",
        training="mature",
        inference="mature",
        ecc=False,
        partitions=0,
        precision_native=True,
    )
    assert cann[0] < geforce[0] < cuda[0]


def test_weights_normalise_and_zero_removes_a_dimension():
    weights = scoring.normalised_weights(
        "train",
        {
            "memory_capacity": 0,
            "memory_bandwidth": 0,
            "interconnect": 0,
            "cooling": 0,
            "software": 5,
        },
    )
    assert weights["software"] == 1 and sum(weights.values()) == pytest.approx(1)
    scores = dict.fromkeys(scoring.DIMENSIONS, 10.0) | {"software": 80.0}
    assert scoring.overall(scores, weights) == 80
    assert scoring.normalised_weights(
        "train", dict.fromkeys(scoring.DIMENSIONS, 0)
    ) == pytest.approx(dict.fromkeys(scoring.DIMENSIONS, 0.2))
