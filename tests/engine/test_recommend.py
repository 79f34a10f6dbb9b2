"""The recommender: which builds it considers, which it rejects and why, and how it ranks the
rest. Small catalogs built by hand: two data-centre cards, one consumer card, two servers."""

import dataclasses

import pytest

from planner.engine.cost import PriceList, UnitPrice
from planner.engine.facility import RackSpec, ServerFacilitySpec
from planner.engine.recommend import (
    AcceleratorOption,
    PlanQuestion,
    RackGroupOption,
    Said,
    ServerOption,
    recommend,
    rerank,
    server_counts,
    sharded_state_gib,
)
from planner.engine.recommend.builds import build_fabric
from planner.engine.recommend.capacity import serving_plan
from planner.engine.recommend.ranking import why_first
from planner.engine.specs import GIB, FabricSpec
from tests.engine.conftest import A100, H100, LLAMA3_8B, LLAMA3_70B, RTX3090, serve, train

CARDS = (
    AcceleratorOption("h100", H100, scale_up_link="NVLink"),
    AcceleratorOption("a100", A100, scale_up_link="NVLink"),
    AcceleratorOption("rtx3090", RTX3090, consumer_cooling=True, ecc=False),
)


def price(amount: float) -> UnitPrice:
    return UnitPrice(amount=amount, origin="reference", source="https://example.com/list")


PRICES = PriceList(
    accelerators={"h100": price(30_000), "a100": price(15_000), "rtx3090": price(1_500)},
    servers={"hgx": price(50_000)},  # the chassis alone; the workstation has no price
    rent={"h100": price(2.5), "a100": price(1.2), "rtx3090": price(0.2)},
)
HGX = ServerOption(
    "hgx",
    slots=8,
    fits=frozenset({"h100", "a100"}),
    facility={
        "h100": ServerFacilitySpec(power_kw=10.2, units=8, kg=130),
        "a100": ServerFacilitySpec(power_kw=6.5, units=6, kg=120),
    },
    nic_ports=8,
    nic_gbps=400,
)
WORKSTATION = ServerOption(
    "workstation",
    slots=4,
    fits=frozenset({"rtx3090"}),
    facility={"rtx3090": ServerFacilitySpec(power_kw=1.8, units=4, open_air_cards=True)},
)

LLAMA3_8B_TRAIN = train(LLAMA3_8B)
LORA_8B = dataclasses.replace(train(LLAMA3_8B, global_batch=16), task="finetune", method="lora")


def question(workload, **kw) -> PlanQuestion:
    kw.setdefault("max_count", 16)
    kw.setdefault("prices", PRICES)
    return PlanQuestion(workload=workload, accelerators=CARDS, servers=(HGX, WORKSTATION), **kw)


@pytest.fixture(scope="module")
def finetune_ranking():
    return recommend(question(LORA_8B))


def every_build(ranking):
    return [*ranking.candidates, *ranking.rejected]


def test_the_recommender_never_offers_a_card_in_a_server_that_does_not_list_it(
    finetune_ranking,
):
    # The workstation lists only the RTX 3090; the HGX chassis only the H100 and A100.
    pairs = {(c.server, c.accelerator) for c in every_build(finetune_ranking)}
    assert pairs == {("hgx", "h100"), ("hgx", "a100"), ("workstation", "rtx3090")}


def test_builds_fill_one_server_by_doubling_then_add_whole_servers():
    # Eight slots: 1, 2 and 4 cards in one server, then 1, 2, 4... full servers up to 32 cards.
    assert server_counts(PlanQuestion(LLAMA3_8B_TRAIN, CARDS, (HGX,), max_count=32), HGX) == [
        (1, 1),
        (1, 2),
        (1, 4),
        (1, 8),
        (2, 8),
        (4, 8),
    ]
    # A floor of four cards drops the smaller builds.
    assert server_counts(
        PlanQuestion(LLAMA3_8B_TRAIN, CARDS, (HGX,), min_count=4, max_count=32), HGX
    ) == [(1, 4), (1, 8), (2, 8), (4, 8)]


def test_a_server_sold_only_fully_populated_comes_only_in_whole_units():
    dgx = dataclasses.replace(HGX, whole_only=True)
    question = PlanQuestion(LLAMA3_8B_TRAIN, CARDS, (dgx,), max_count=32)
    assert server_counts(question, dgx) == [(1, 8), (2, 8), (4, 8)]
    ranking = recommend(question)
    assert {c.count % 8 for c in every_build(ranking)} == {0}


def test_several_servers_without_fabric_ports_are_rejected_and_say_so(finetune_ranking):
    apart = [c for c in every_build(finetune_ranking) if c.server == "workstation" and c.nodes > 1]
    assert apart and all(c.failures[0].code == "failure.no_fabric_ports" for c in apart)


def test_fewer_nic_ports_than_cards_narrow_the_fabric_and_say_so():
    fabric = FabricSpec(per_gpu_gb_s=50.0)  # 400 Gbit/s per accelerator
    two_ports = dataclasses.replace(HGX, nic_ports=2, nic_gbps=400)
    narrowed, note = build_fabric(fabric, two_ports, nodes=2, per_node=8)
    # 2 x 400 Gbit/s shared by 8 cards: 100 Gbit/s, 12.5 GB/s each.
    assert narrowed.per_gpu_gb_s == pytest.approx(12.5)
    assert note.code == "fabric.fewer_ports" and note.params["per_card_gbps"] == pytest.approx(100)
    assert build_fabric(fabric, HGX, nodes=2, per_node=8) == (fabric, None)
    assert build_fabric(fabric, two_ports, nodes=1, per_node=8) == (fabric, None)


def test_without_a_fabric_named_the_servers_own_ports_are_the_network():
    fabric = FabricSpec(per_gpu_gb_s=25.0)  # the default 200 Gbit/s
    widened, note = build_fabric(fabric, HGX, nodes=2, per_node=8, given=False)
    # 8 x 400 Gbit/s for 8 cards: 400 Gbit/s, 50 GB/s each.
    assert widened.per_gpu_gb_s == pytest.approx(50.0)
    assert note.code == "fabric.from_server" and note.params["per_card_gbps"] == pytest.approx(400)


def test_a_partly_filled_server_draws_its_base_load_and_its_cards():
    server = dataclasses.replace(HGX, max_power_kw=10.2, base_power_w=4600)
    ranking = recommend(PlanQuestion(LLAMA3_8B_TRAIN, CARDS, (server,), max_count=8))
    by_count = {c.count: c for c in every_build(ranking) if c.accelerator == "h100" and c.fit}
    # 4,600 W platform + 2 x 700 W; fully populated, the published 10.2 kW.
    assert by_count[2].fit["it_power_kw"] == pytest.approx(6.0)
    assert by_count[8].fit["it_power_kw"] == pytest.approx(10.2)


def test_every_build_is_either_ranked_or_rejected(finetune_ranking):
    # hgx: 1, 2, 4, 8 and 16 cards of each of two accelerators; workstation: 1, 2, 4, 8, 16.
    assert finetune_ranking.evaluated == 2 * 5 + 5
    assert len(every_build(finetune_ranking)) == finetune_ranking.evaluated


def cost_order(candidates):
    """Each build's (tier, amount) under the cost objective: TCOs, then rents, then neither."""
    tiers = {"tco": 0, "rent": 1, None: 2}
    return [(tiers[c.cost["basis"]], c.cost["amount"] or 0.0) for c in candidates]


def test_by_default_builds_with_a_tco_come_first_then_rent_only_then_unpriced(
    finetune_ranking,
):
    candidates = finetune_ranking.candidates
    assert all(not c.failures for c in candidates)
    assert cost_order(candidates) == sorted(cost_order(candidates))
    # Every build has a rent rate here; the HGX builds also a purchase price, so theirs is
    # the TCO; the workstation has no price of its own, so its cost is the rent of the job.
    assert {c.cost["basis"] for c in candidates} == {"tco", "rent"}
    first = finetune_ranking.first
    assert first.code == "first.cost_tco"
    assert first.params["amount"] == candidates[0].cost["amount"]
    assert first.params["viable"] == len(candidates)
    # The sentence counts the builds the first was compared with: those priced to own.
    assert first.params["priced"] == sum(c.cost["basis"] == "tco" for c in candidates)


def test_a_build_priced_to_own_ranks_before_a_cheaper_rent_only_one(finetune_ranking):
    # An RTX 3090 workstation rents for the job at 0.20 USD an hour: a few dollars, far below
    # any HGX's four-year TCO; a TCO and a rent are not the same quantity, so the HGX leads.
    candidates = finetune_ranking.candidates
    owned = [c for c in candidates if c.cost["basis"] == "tco"]
    rented = [c for c in candidates if c.cost["basis"] == "rent"]
    assert owned and rented
    assert min(c.cost["amount"] for c in rented) < min(c.cost["amount"] for c in owned)
    assert candidates.index(rented[0]) > candidates.index(owned[-1])
    assert candidates[0].server == "hgx"


def test_without_any_build_priced_to_own_the_rent_of_the_job_ranks_and_is_said():
    rent_only = dataclasses.replace(PRICES, servers={})
    ranking = recommend(question(LORA_8B, prices=rent_only))
    assert {c.cost["basis"] for c in ranking.candidates} == {"rent"}
    amounts = [c.cost["amount"] for c in ranking.candidates]
    assert amounts == sorted(amounts)
    assert ranking.first.code == "first.cost_rent"
    assert ranking.first.params["priced"] == len(ranking.candidates)


def test_the_sentence_names_the_basis_the_first_build_is_compared_on(finetune_ranking):
    said = Said.of(question(LORA_8B))
    candidates = finetune_ranking.candidates
    rented = [c for c in candidates if c.cost["basis"] == "rent"]
    # Ranked among TCOs it says "to own"; among rents alone, "to rent".
    assert why_first(candidates, said, "cost").code == "first.cost_tco"
    assert why_first(rented, said, "cost").code == "first.cost_rent"
    assert why_first(rented, said, "cost").params["priced"] == len(rented)


def test_builds_without_a_figure_for_the_objective_follow_by_fewest_devices():
    no_rent = dataclasses.replace(PRICES, rent={})
    ranking = recommend(question(LORA_8B, prices=no_rent, objective="rent"))
    assert all(c.cost["rent_job"] is None for c in ranking.candidates)
    counts = [c.count for c in ranking.candidates]
    assert counts == sorted(counts)
    assert ranking.first.code == "first.no_figure"


@pytest.mark.parametrize(
    ("objective", "figure"),
    [
        ("capex", lambda c: c.cost["capex"]),
        ("rent", lambda c: c.cost["rent_job"]),
        ("time", lambda c: c.estimate["time"]["seconds"]),
        ("devices", lambda c: c.count),
        ("tokens_per_joule", lambda c: -c.cost["tokens_per_joule"]),
        ("score", lambda c: -c.overall),
    ],
)
def test_each_objective_orders_the_builds_that_have_its_figure(objective, figure):
    ranking = recommend(question(LORA_8B, objective=objective))
    values = [figure(c) for c in ranking.candidates if figure(c) is not None]
    assert values and values == sorted(values)
    assert ranking.objective == objective
    assert ranking.first.code.startswith("first.")


def test_builds_that_differ_only_in_count_never_tie_on_cost(finetune_ranking):
    # The serving question of the issue: more cards rent for more hours.
    ranking = recommend(question(serve(LLAMA3_8B, batch=16, output=128)))
    by_build: dict[tuple[str, str], set[float]] = {}
    for c in ranking.candidates:
        by_build.setdefault((c.accelerator, c.server), set()).add(c.cost["amount"])
    for (accelerator, server), amounts in by_build.items():
        same = [c for c in ranking.candidates if (c.accelerator, c.server) == (accelerator, server)]
        assert len(amounts) == len(same)


def test_cards_and_a_bare_chassis_are_costed_line_by_line(finetune_ranking):
    build = next(
        c
        for c in every_build(finetune_ranking)
        if (c.server, c.accelerator, c.count) == ("hgx", "h100", 16)
    )
    lines = {line["item"]: line for line in build.cost["lines"]}
    assert lines["accelerator"]["quantity"] == 16 and lines["server"]["quantity"] == 2
    # No network price in this book: the capex counts cards and servers, and says so.
    assert build.cost["capex"] == 2 * 50_000 + 16 * 30_000
    assert "switch_port" in build.cost["missing"]
    assert build.cost["notes"][0]["code"] == "cost.left_out"


def test_full_training_states_that_cannot_fit_even_fully_sharded_skip_the_estimate():
    # Mixed-precision AdamW keeps 2 + 4 + 8 + 4 = 18 bytes per parameter: Llama 3 70B's 70.6e9
    # parameters need 1.2 TiB: 73.9 GiB per device over 16 cards, 295.7 GiB over four.
    assert sharded_state_gib(train(LLAMA3_70B), 16) == pytest.approx(
        LLAMA3_70B.params * 18 / 16 / GIB
    )
    ranking = recommend(question(train(LLAMA3_70B, global_batch=64)))
    four_h100 = next(c for c in ranking.rejected if (c.accelerator, c.count) == ("h100", 4))
    assert four_h100.estimate == {}
    assert four_h100.failures[0].code == "failure.sharded_state"
    assert four_h100.failures[0].params["floor_gib"] == pytest.approx(295.7, abs=0.05)


def test_lora_and_serving_have_no_sharded_state_floor():
    lora = dataclasses.replace(LLAMA3_8B_TRAIN, task="finetune", method="lora")
    assert sharded_state_gib(lora, 1) == 0.0
    assert sharded_state_gib(serve(LLAMA3_8B), 1) == 0.0


def test_a_capex_budget_rejects_the_builds_that_cost_more():
    # Small builds stay under 100,000 (one A100 with the chassis: 65,000); two full HGX
    # servers of H100s cost 2 x (50,000 + 240,000).
    ranking = recommend(question(LORA_8B, capex_budget=100_000))
    assert ranking.candidates
    priced = [c for c in ranking.candidates if c.cost["capex"] is not None]
    assert priced and all(c.cost["capex"] <= 100_000 for c in priced)
    # The workstation has no purchase price: it stays, saying its budget went unchecked.
    unpriced = [c for c in ranking.candidates if c.cost["capex"] is None]
    assert unpriced
    assert all(c.cost["notes"][-1]["code"] == "cost.budget_unchecked" for c in unpriced)
    over = [c for c in ranking.rejected if any(f.code == "failure.capex" for f in c.failures)]
    assert over and all(c.cost["capex"] > 100_000 for c in over)


def test_serving_builds_short_of_the_target_rate_are_rejected_with_their_capacity():
    # Capacity in requests/s is the most the build's searched layout serves within the bounds.
    ranking = recommend(
        question(serve(LLAMA3_8B, batch=16, output=128), target_rps=20, ttft_ms=500, tpot_ms=50)
    )
    short = met = 0
    for c in (c for c in every_build(ranking) if c.estimate):
        serving = c.estimate["serving"]
        capacity = serving["capacity_rps"]
        assert c.estimate["capacity_rps"] == capacity
        assert serving["tp"] * serving["replicas"] <= c.count
        assert 1 <= serving["batch_per_replica"] <= serving["max_batch_per_replica"]
        one = serving["replicas"] == 1
        assert serving["why"]["code"] == ("serving.capacity.one" if one else "serving.capacity")
        short_of_20 = [f for f in c.failures if f.code == "failure.rate"]
        assert bool(short_of_20) == (capacity < 20)
        assert all(f.params["target"] == 20 for f in short_of_20)
        short, met = short + (capacity < 20), met + (capacity >= 20)
    assert short and met


def test_a_serving_build_serves_in_proportion_to_its_replicas():
    # Same card, same layout per replica: four replicas serve four times one.
    ranking = recommend(
        question(serve(LLAMA3_8B, output=128), target_rps=20, ttft_ms=500, tpot_ms=50)
    )
    per_replica: dict[int, set[float]] = {}
    for c in every_build(ranking):
        if c.accelerator == "h100" and c.estimate:
            serving = c.estimate["serving"]
            per_replica.setdefault(serving["tp"], set()).add(
                round(serving["capacity_rps"] / serving["replicas"], 2)
            )
    assert per_replica and max(len(rates) for rates in per_replica.values()) == 1
    by_count = {
        c.count: c.estimate["serving"]
        for c in every_build(ranking)
        if c.accelerator == "h100" and c.estimate
    }
    assert by_count[8]["tp"] == by_count[2]["tp"]
    assert by_count[8]["capacity_rps"] == pytest.approx(4 * by_count[2]["capacity_rps"], rel=1e-3)


def test_a_site_whose_racks_take_no_liquid_cooled_server_rejects_it():
    liquid = ServerFacilitySpec(power_kw=10.2, units=8, kg=130, cooling="liquid")
    server = dataclasses.replace(HGX, fits=frozenset({"h100"}), facility={"h100": liquid})
    air_racks = (
        RackGroupOption("row a", RackSpec(power_kw=40, cooling_kw=40, units=42, max_kg=1500), 4),
    )
    ranking = recommend(PlanQuestion(LORA_8B, CARDS, (server,), racks=air_racks, max_count=8))
    assert ranking.candidates == []
    assert ranking.rejected
    assert all(
        any(
            f.code == "failure.racks" and f.params["binding"].code == "binding.cooling_type"
            for f in c.failures
        )
        for c in ranking.rejected
    )


def test_reranking_orders_by_the_new_weights_and_keeps_the_builds():
    ranking = recommend(question(LORA_8B))  # rerank rescores in place: not the shared one
    cooling_only = {
        "memory_capacity": 0,
        "memory_bandwidth": 0,
        "interconnect": 0,
        "software": 0,
        "cooling": 1,
    }
    before = {(c.server, c.accelerator, c.count) for c in ranking.candidates}
    reranked = rerank(ranking, Said("finetune", 4, "USD"), cooling_only, "score")
    assert {(c.server, c.accelerator, c.count) for c in reranked.candidates} == before
    overall = [c.overall for c in reranked.candidates]
    assert overall == [c.scores["cooling"] for c in reranked.candidates]
    assert overall == sorted(overall, reverse=True)
    assert reranked.rejected == ranking.rejected
    assert reranked.first.code == "first.score"
    # The same weights under the cost objective only break ties between equal costs.
    by_cost = rerank(ranking, Said("finetune", 4, "USD"), cooling_only, "cost")
    assert cost_order(by_cost.candidates) == sorted(cost_order(by_cost.candidates))
    assert by_cost.first.code == "first.cost_tco"


def test_the_only_build_that_meets_every_requirement_says_so(finetune_ranking):
    # One viable build is not "first of the 1 builds": it has a sentence of its own.
    only = finetune_ranking.candidates[:1]
    said = why_first(only, Said.of(question(LORA_8B)), finetune_ranking.objective)
    assert said is not None and said.code == "first.only"
    assert said.params["count"] == only[0].count
    two = why_first(finetune_ranking.candidates[:2], Said.of(question(LORA_8B)), "cost")
    assert two is not None and two.code != "first.only" and two.params["viable"] == 2


def test_one_replica_is_said_in_the_singular():
    plan = serving_plan(serve(LLAMA3_8B, output=128), ttft_ms=500, tpot_ms=50)
    assert plan is not None and plan.replicas == 1
    assert plan.as_dict()["why"]["code"] == "serving.capacity.one"
    four = serving_plan(serve(LLAMA3_8B, output=128, count=4), ttft_ms=500, tpot_ms=50)
    assert four is not None and four.replicas > 1
    assert four.as_dict()["why"]["code"] == "serving.capacity"
