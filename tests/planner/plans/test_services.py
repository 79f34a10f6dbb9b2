"""Recommendations over the real catalog, held to the seeds' examples."""

import pytest

from catalog.selectors import display_names
from planner.engine import RequestError
from planner.engine.replica import kv_budget_tokens_from_engine, step_model_from_engine
from planner.engine.simulate.serving import replicas_for_slo
from planner.engine.simulate.serving_spec import LengthDist, ServingSpec, Slo
from planner.estimates.services import estimate_request
from planner.plans.services import recommend_run
from tests.factories import PriceFactory

pytestmark = pytest.mark.django_db

LLAMA2_7B_TUNE = {
    "task": "finetune",
    "model": "meta-llama-2-7b",
    "seq_len": 512,
    "global_batch": 8,
    "tokens": 1e8,
}


def ranked(answer):
    return [(c["accelerator"], c["server"], c["count"]) for c in answer["candidates"]]


def rejected_reasons(answer, accelerator):
    return [r["reason"] for r in answer["rejected"] if r["accelerator"] == accelerator]


def test_full_finetune_of_7b_is_rejected_on_one_3090_while_lora_and_qlora_fit(loaded_catalog):
    # The seeds: full fine-tuning a 7B model on a 24 GB RTX 3090 runs out of memory on the
    # optimizer states alone; LoRA-style tuning fits.
    question = {"accelerators": ["nvidia-rtx-3090"], "count": {"max": 1}}
    full = recommend_run(data={**question, "workload": {**LLAMA2_7B_TUNE, "method": "full"}})
    assert full["candidates"] == []
    assert any("does not fit in memory" in r for r in rejected_reasons(full, "nvidia-rtx-3090"))
    assert "does not fit in memory" in full["why_none"]
    for method in ("lora", "qlora"):
        answer = recommend_run(data={**question, "workload": {**LLAMA2_7B_TUNE, "method": method}})
        assert ranked(answer) and answer["candidates"][0]["accelerator"] == "nvidia-rtx-3090", (
            method
        )


def test_a_7b_model_in_int8_serves_from_a_12_to_16_gb_card(loaded_catalog):
    from catalog.models import Accelerator

    cards = list(
        Accelerator.objects.filter(memory_gib__gte=12, memory_gib__lte=16).values_list(
            "slug", flat=True
        )
    )
    assert cards, "the catalog needs a 12-16 GB card for this check"
    workload = {
        "task": "inference",
        "model": "meta-llama-2-7b",
        "precision": "int8",
        "inference": {"batch": 1, "prompt_len": 512, "output_len": 128},
    }
    answer = recommend_run(data={"workload": workload, "accelerators": cards, "count": {"max": 1}})
    fitting = [c for c in answer["candidates"] if c["estimate"]["memory"]["per_device_gib"] <= 16]
    assert fitting, answer.get("why_none")
    assert all(c["estimate"]["memory"]["weights_gib"] < 8 for c in fitting)


def test_eight_dgx_a100_in_15_kw_air_racks_need_four_racks_bound_by_power(loaded_catalog):
    # A DGX A100 draws up to 6.5 kW: two fit a 15 kW rack, so eight need four racks.
    workload = {"task": "train", "model": "meta-llama-3-8b", "tokens": 1e10}
    site = {"racks": [{"count": 10, "power_kw": 15, "cooling_kw": 15, "units": 42, "max_kg": 1200}]}
    answer = recommend_run(
        data={
            "workload": workload,
            "site": site,
            "accelerators": ["nvidia-a100-sxm4-80gb"],
            "count": {"min": 64, "max": 64},
        }
    )
    dgx = next(c for c in answer["candidates"] if c["server"] == "nvidia-dgx-a100")
    assert dgx["nodes"] == 8
    assert dgx["fit"]["racks_needed"] == 4 and dgx["fit"]["binding"] == "power"
    assert dgx["fit"]["servers_per_rack"] == 2


def test_ascend_910b_scores_lower_on_software_than_h100(loaded_catalog):
    workload = {"task": "train", "model": "meta-llama-3-8b", "tokens": 1e10}
    answer = recommend_run(
        data={
            "workload": workload,
            "accelerators": ["nvidia-h100-sxm5-80gb", "huawei-ascend-910b"],
            "count": {"min": 8, "max": 8},
            "limit": 50,
        }
    )
    software = {c["accelerator"]: c["scores"]["software"] for c in answer["candidates"]}
    assert software["huawei-ascend-910b"] < software["nvidia-h100-sxm5-80gb"]
    reasons = {c["accelerator"]: c["reasons"]["software"] for c in answer["candidates"]}
    assert "CANN" in reasons["huawei-ascend-910b"] and "CUDA" in reasons["nvidia-h100-sxm5-80gb"]


def test_the_ranking_is_deterministic(loaded_catalog):
    question = {
        "workload": {"task": "train", "model": "meta-llama-3-8b", "tokens": 1e11},
        "count": {"min": 8, "max": 64},
        "limit": 100,
    }
    assert recommend_run(data=question) == recommend_run(data=question)


def test_a_zero_weight_removes_a_dimension(loaded_catalog):
    question = {
        "workload": {"task": "train", "model": "meta-llama-3-8b", "tokens": 1e11},
        "count": {"min": 8, "max": 8},
        "limit": 100,
    }
    only_software = recommend_run(
        data={
            **question,
            "objective": "score",
            "weights": {
                "memory_capacity": 0,
                "memory_bandwidth": 0,
                "interconnect": 0,
                "cooling": 0,
                "software": 1,
            },
        }
    )
    overall = [c["overall"] for c in only_software["candidates"]]
    assert overall == [c["scores"]["software"] for c in only_software["candidates"]]
    assert overall == sorted(overall, reverse=True)
    first = only_software["candidates"][0]
    name = display_names(slugs=[first["accelerator"]])[first["accelerator"]]
    assert only_software["why_first"].startswith(f"{first['count']} x {name} in ")
    # Under the default objective the weights only break ties between equal costs.
    by_cost = recommend_run(data=question)
    amounts = [c["cost"]["amount"] for c in by_cost["candidates"] if c["cost"]["amount"]]
    assert amounts == sorted(amounts)


def test_a_plan_with_no_viable_candidate_says_why(loaded_catalog):
    question = {
        "workload": {"task": "train", "model": "meta-llama-3-70b", "tokens": 2e12},
        "deadline_days": 1,
        "count": {"min": 8, "max": 16},
    }
    answer = recommend_run(data=question)
    assert answer["candidates"] == []
    assert "misses the deadline" in answer["why_none"]


def test_budget_rejects_builds_over_it_and_leaves_unpriced_ones_unchecked(loaded_catalog, cast):
    # The team prices the RTX 4090 and the four-card workstation it goes in; the RTX 5090 stays
    # unpriced.
    from catalog.models import Accelerator, ServerPlatform
    from planner.plans.services import plan_create

    card = Accelerator.objects.get(slug="nvidia-rtx-4090")
    tower = ServerPlatform.objects.get(slug="lambda-vector")
    PriceFactory(team=cast.team, accelerator=card, amount=1_599)
    PriceFactory(team=cast.team, item_kind="server", server=tower, accelerator=None, amount=1_000)
    question = {
        "workload": {
            "task": "finetune",
            "model": "meta-llama-2-7b",
            "method": "qlora",
            "tokens": 1e9,
            "seq_len": 512,
        },
        "accelerators": ["nvidia-rtx-4090", "nvidia-rtx-5090"],
        "servers": ["lambda-vector"],
        "count": {"max": 4},
        "budget": {"capex": 5000, "currency": "USD"},
    }
    plan = plan_create(data=question, user=cast.planner, team=cast.team)
    ranking = plan.ranking
    over = [r for r in ranking["rejected"] if r["failures"][0]["code"] == "failure.capex"]
    # Four 4090s and the workstation: 7,396 USD; one or two cards stay within 5,000.
    assert {r["count"] for r in over if r["accelerator"] == "nvidia-rtx-4090"} == {4}
    priced = [c for c in ranking["candidates"] if c["cost"]["capex"] is not None]
    assert priced and all(c["cost"]["capex"] <= 5000 for c in priced)
    assert {c["accelerator"] for c in priced} == {"nvidia-rtx-4090"}
    unpriced = [c for c in ranking["candidates"] if c["accelerator"] == "nvidia-rtx-5090"]
    assert unpriced
    assert all(
        any(n["code"] == "cost.budget_unchecked" for n in c["cost"]["notes"]) for c in unpriced
    )


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({}, "workload"),
        ({"workload": {"task": "train", "model": "nope"}}, "workload.model"),
        (
            {"workload": {"task": "train", "model": "meta-llama-3-8b", "accelerator": "nvidia-l4"}},
            "workload.accelerator",
        ),
        (
            {"workload": {"task": "train", "model": "meta-llama-3-8b"}, "count": {"min": 0}},
            "count.min",
        ),
        (
            {"workload": {"task": "train", "model": "meta-llama-3-8b"}, "weights": {"speed": 1}},
            "weights.speed",
        ),
        (
            {
                "workload": {"task": "train", "model": "meta-llama-3-8b"},
                "site": {"racks": [{"power_kw": -1}]},
            },
            "site.racks[0].power_kw",
        ),
        (
            {
                "workload": {"task": "train", "model": "meta-llama-3-8b"},
                "accelerators": ["gpu-9000"],
            },
            "accelerators",
        ),
    ],
)
def test_bad_questions_name_the_field(loaded_catalog, data, field):
    with pytest.raises(RequestError) as excinfo:
        recommend_run(data=data)
    assert excinfo.value.field == field


def test_recommend_command_prints_json_and_exits_2_on_bad_input(
    loaded_catalog, capsys, monkeypatch
):
    import io
    import json
    import sys

    from django.core.management import call_command

    monkeypatch.setattr(
        sys,
        "stdin",
        io.StringIO(
            json.dumps(
                {
                    "workload": {"task": "train", "model": "meta-llama-3-8b", "tokens": 1e10},
                    "count": {"min": 8, "max": 8},
                    "limit": 3,
                }
            )
        ),
    )
    call_command("recommend", "-")
    answer = json.loads(capsys.readouterr().out)
    assert len(answer["candidates"]) == 3 and answer["candidates"][0]["scores"].keys() == {
        "memory_capacity",
        "memory_bandwidth",
        "interconnect",
        "cooling",
        "software",
    }
    monkeypatch.setattr(sys, "stdin", io.StringIO('{"workload": {"task": "train", "model": "x"}}'))
    with pytest.raises(SystemExit) as excinfo:
        call_command("recommend", "-")
    assert excinfo.value.code == 2
    assert "workload.model" in capsys.readouterr().err


def test_a_saved_site_is_named_in_the_question(loaded_catalog):
    from accounts.services import team_get_or_create
    from planner.models import RackGroup, Site

    site = Site.objects.create(
        team=team_get_or_create(name="Infra"),
        name="Hall A",
        electricity_price_per_kwh=0.6,
        pue=1.4,
        currency="CNY",
    )
    RackGroup.objects.create(
        site=site, name="Row 1", count=2, power_kw=15, cooling_kw=15, units=42, max_kg=1200
    )
    question = {
        "workload": {"task": "train", "model": "meta-llama-3-8b", "tokens": 1e10},
        "site": "Hall A",
        "accelerators": ["nvidia-a100-sxm4-80gb"],
        "count": {"min": 64, "max": 64},
    }
    answer = recommend_run(data=question)
    assert answer["currency"] == "CNY"
    dgx = next(
        c for c in answer["candidates"] + answer["rejected"] if c["server"] == "nvidia-dgx-a100"
    )
    # Eight DGX A100 need four 15 kW racks; Hall A has two.
    assert any("over the site's racks" in f for f in dgx["failures"])
    with pytest.raises(RequestError) as excinfo:
        recommend_run(data={**question, "site": "Hall B"})
    assert excinfo.value.field == "site"


def test_a_plan_cannot_read_another_teams_site_by_name(loaded_catalog, cast):
    from planner.models import Site
    from planner.plans.services import plan_create

    Site.objects.create(
        team=cast.team,
        name="Secret hall",
        electricity_price_per_kwh=0.6,
        pue=1.4,
    )
    question = {
        "workload": {"task": "train", "model": "meta-llama-3-8b", "tokens": 1e10},
        "site": "Secret hall",
        "count": {"max": 8},
    }
    with pytest.raises(RequestError) as excinfo:
        plan_create(data=question, user=cast.outsider, team=cast.other_team)
    assert excinfo.value.field == "site"


def test_a_plan_uses_a_calibration_profile_for_its_card(loaded_catalog):
    import json
    from pathlib import Path

    from planner.calibrations.services import calibration_create

    probe = json.loads(
        (Path(__file__).resolve().parents[2] / "fixtures" / "h200-probe.json").read_text()
    )
    profile = calibration_create(probe=probe)
    question = {
        "workload": {"task": "train", "model": "meta-llama-3-8b", "tokens": 1e10},
        "accelerators": ["nvidia-h200-sxm-141gb", "nvidia-h100-sxm5-80gb"],
        "count": {"min": 8, "max": 8},
        "limit": 50,
    }
    plain = recommend_run(data=question)
    measured = recommend_run(data={**question, "calibration": profile.pk})

    def days(answer, card):
        return next(
            c["estimate"]["time"]["days"] for c in answer["candidates"] if c["accelerator"] == card
        )

    assert days(measured, "nvidia-h200-sxm-141gb") != days(plain, "nvidia-h200-sxm-141gb")
    assert days(measured, "nvidia-h100-sxm5-80gb") == days(plain, "nvidia-h100-sxm5-80gb")
    h200 = next(c for c in measured["candidates"] if c["accelerator"] == "nvidia-h200-sxm-141gb")
    assert h200["estimate"]["calibration"]["profile"] == profile.name
    with pytest.raises(RequestError) as excinfo:
        recommend_run(data={**question, "calibration": 999})
    assert excinfo.value.field == "calibration"


SYSTEM_QUESTION = {
    "workload": {"task": "train", "model": "meta-llama-3-8b", "tokens": 1e11},
    "accelerators": ["nvidia-h100-sxm5-80gb"],
    "servers": ["nvidia-dgx-h100"],
    "count": {"min": 8, "max": 16},
}


def system_lines(plan):
    return [
        line
        for c in plan.ranking["candidates"]
        for line in c["cost"]["lines"]
        if line["item"] == "system"
    ]


def test_a_teams_quote_for_a_system_changes_its_plan_and_no_other_teams(reference_prices, cast):
    from catalog.models import Accelerator, ServerPlatform
    from planner.plans.services import plan_create

    dgx = ServerPlatform.objects.get(slug="nvidia-dgx-h100")
    h100 = Accelerator.objects.get(slug="nvidia-h100-sxm5-80gb")
    quote = PriceFactory(
        team=cast.team,
        item_kind="system",
        server=dgx,
        accelerator=h100,
        amount=230_000,
        source="quote from Example Systems, ref Q-7",
    )
    ours = plan_create(data=SYSTEM_QUESTION, user=cast.planner, team=cast.team)
    theirs = plan_create(data=SYSTEM_QUESTION, user=cast["outsider"], team=cast.other_team)
    assert {(line["origin"], line["price_id"]) for line in system_lines(ours)} == {
        ("team", quote.pk)
    }
    assert all(line["unit"] == 230_000 for line in system_lines(ours))
    assert {line["origin"] for line in system_lines(theirs)} == {"reference"}
    assert all(line["unit"] == 270_000 for line in system_lines(theirs))


def test_a_price_past_its_validity_warns_in_the_plan(loaded_catalog, cast):
    import datetime as dt

    from catalog.models import Accelerator, ServerPlatform
    from planner.plans.services import plan_create

    dgx = ServerPlatform.objects.get(slug="nvidia-dgx-h100")
    h100 = Accelerator.objects.get(slug="nvidia-h100-sxm5-80gb")
    PriceFactory(
        team=cast.team,
        item_kind="system",
        server=dgx,
        accelerator=h100,
        amount=250_000,
        price_date=dt.date(2025, 1, 10),
        valid_until=dt.date(2025, 3, 31),
    )
    plan = plan_create(data=SYSTEM_QUESTION, user=cast.planner, team=cast.team)
    for candidate in plan.ranking["candidates"]:
        assert any(n["code"] == "cost.price_expired" for n in candidate["cost"]["notes"])
        assert candidate["cost"]["lines"][0]["expired"] is True


@pytest.mark.parametrize(("fabric", "switch_ports"), [("ib-ndr-400", 64), ("ib-hdr-200", 3 * 64)])
def test_the_fabric_switch_size_decides_the_network_bought(reference_prices, fabric, switch_ports):
    # Eight DGX H100 with eight ports each: 64 endpoints fill one 64-port NDR switch, but need
    # a leaf-spine tree of 40-port HDR switches (three switch ports per endpoint).
    answer = recommend_run(
        data={
            **SYSTEM_QUESTION,
            "workload": {**SYSTEM_QUESTION["workload"], "fabric": fabric},
            "count": {"min": 64, "max": 64},
        }
    )
    (build,) = answer["candidates"]
    lines = {line["item"]: line for line in build["cost"]["lines"]}
    assert lines["switch_port"]["quantity"] == switch_ports
    assert "nic" not in lines  # a DGX comes with its own


def test_serving_8b_at_200_rps_has_viable_builds_with_no_more_h100s_than_simulated(
    loaded_catalog,
):
    # Issue 15: with default settings this plan once found no viable build from 1 to 64
    # devices (the batch per replica stayed at 1).
    question = {
        "workload": {"task": "inference", "model": "meta-llama-3-8b"},
        "target_rps": 200,
        "ttft_ms": 500,
        "tpot_ms": 50,
        "count": {"min": 1, "max": 64},
        "limit": 500,
    }
    answer = recommend_run(data=question)
    assert answer["candidates"]
    # H100 SXM comes in whole 8-card boards; H100 NVL by the card.
    for h100 in ("nvidia-h100-sxm5-80gb", "nvidia-h100-nvl-94gb"):
        first = next(c for c in answer["candidates"] if c["accelerator"] == h100)
        serving = first["estimate"]["serving"]
        assert first["estimate"]["capacity_rps"] >= 200
        assert "requests/s within the latency bounds" in serving["why"]
        needed = simulated_devices(question, h100, serving)
        sold = {
            b["count"]
            for b in [*answer["candidates"], *answer["rejected"]]
            if b["accelerator"] == h100
        }
        assert first["count"] == min(n for n in sold if n >= needed), h100


def simulated_devices(question, accelerator, serving) -> int:
    """The serving simulation of the build's card and layout at the question's lengths: the
    fewest devices whose replicas serve the rate with 99 % of requests within both bounds."""
    tp = serving["tp"]
    request = estimate_request(
        data={**question["workload"], "accelerator": accelerator, "count": tp}
    )
    spec = ServingSpec(
        rate_per_s=question["target_rps"],
        step=step_model_from_engine(request, tp=tp),
        kv_budget_tokens=kv_budget_tokens_from_engine(request, tp=tp),
        prompt=LengthDist.fixed(request.inference.prompt_len),
        output=LengthDist.fixed(request.inference.output_len),
        max_batch=serving["batch_per_replica"],
        duration_s=60,
    )
    slo = Slo(question["ttft_ms"], question["tpot_ms"])
    found = replicas_for_slo(spec, question["target_rps"], slo, max_replicas=64)
    assert found.replicas is not None
    return found.replicas * tp


def test_405b_on_16384_h100_in_dgx_systems_lands_near_the_llama_3_papers_time(loaded_catalog):
    # Llama 3.1 405B: 15.6T tokens in 8,192-token sequences on 16,384 H100s in servers of eight
    # (Dubey et al. 2024, sections 3.3-3.4). Its 38-41 % MFU is about 63-71 days of compute
    # (Table 4); with failures and restarts, 55-95 days. No batch given: the plan chooses it.
    answer = recommend_run(
        data={
            "workload": {
                "task": "train",
                "model": "meta-llama-3.1-405b",
                "seq_len": 8192,
                "tokens": 15.6e12,
            },
            "accelerators": ["nvidia-h100-sxm5-80gb"],
            "servers": ["nvidia-dgx-h100"],
            "count": {"min": 16384, "max": 16384},
        }
    )
    assert answer["candidates"], answer.get("why_none")
    build = answer["candidates"][0]
    assert (build["server"], build["count"]) == ("nvidia-dgx-h100", 16384)
    assert 55 <= build["estimate"]["time"]["days"] <= 95
    assert build["estimate"]["batch"]["chosen"]
