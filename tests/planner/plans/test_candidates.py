"""One build of a plan: its page (estimate, memory bar, fit per rack group, cost lines with each
price's source, scores), its purchase list as a page to print and as CSV, the link that opens
the simulation form prefilled, the sweep of the top builds, and the same build over the API.

The costed plan buys NVIDIA DGX H100 systems on NDR InfiniBand at the shipped reference prices
(catalog/data/prices/purchase.csv): a DGX H100 at 270,000 USD (Epoch AI's estimate), NDR switch
ports at 781.25 USD and OSFP transceivers at 1,000 USD; cables and racks have no reference
price, so those lines say so."""

import csv
import io
import re
from html import unescape
from urllib.parse import parse_qs, urlsplit

import pytest
from django.urls import reverse

from planner.choices import SimulationKind, SimulationStatus
from planner.models import Price, Simulation
from planner.plans.builds import estimate_question
from planner.plans.selectors import plan_candidate
from planner.plans.services import plan_create
from planner.simulations import services as simulations
from tests.factories import RackGroupFactory, SiteFactory

pytestmark = pytest.mark.django_db

DGX_H100 = "nvidia-dgx-h100"
H100 = "nvidia-h100-sxm5-80gb"
TRAIN = {
    "name": "DGX cluster",
    "workload": {
        "task": "train",
        "model": "meta-llama-3-8b",
        "tokens": 1e11,
        "seq_len": 4096,
        "fabric": "ib-ndr-400",
    },
    "accelerators": [H100],
    "servers": [DGX_H100],
    "count": {"min": 8, "max": 32},
}
SERVE = {
    "name": "Chat",
    "workload": {
        "task": "inference",
        "model": "meta-llama-3-8b",
        "inference": {"prompt_len": 512, "output_len": 128},
    },
    "accelerators": [H100, "nvidia-l40s"],
    "count": {"min": 1, "max": 8},
    "target_rps": 2,
    "ttft_ms": 500,
    "tpot_ms": 50,
}


@pytest.fixture
def site(cast):
    site = SiteFactory(team=cast.team, name="Hall B", currency="USD")
    RackGroupFactory(site=site, name="Row Q", count=4, power_kw=40, cooling_kw=40)
    return site


@pytest.fixture
def plan(cast, reference_prices, site):
    return plan_create(data=TRAIN, user=cast.planner, team=cast.team, site=site)


@pytest.fixture
def serving_plan(cast, reference_prices):
    return plan_create(data=SERVE, user=cast.planner, team=cast.team)


def build_id(plan, count: int) -> int:
    """The id (place in the stored ranking) of the plan's build with `count` devices."""
    stored = plan.ranking["candidates"]
    return next(i for i, c in enumerate(stored) if c["count"] == count)


def page_url(plan, cid: int, name: str = "planner:plan_candidate") -> str:
    return reverse(name, args=[plan.pk, cid])


def reference(item_kind: str, **slugs) -> Price:
    """The one reference price of an item."""
    return Price.objects.get(team__isnull=True, item_kind=item_kind, **slugs)


# --- the page --------------------------------------------------------------------------------


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_candidate_page_shows_estimate_fit_cost_lines_and_scores(cast, plan, language):
    cid = build_id(plan, 16)
    response = cast.browser("viewer").get(page_url(plan, cid), HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 200
    html = response.content.decode()
    assert 'class="membar"' in html  # the estimate page's memory bar
    assert "Row Q" in html  # the rack group the servers fill
    system = reference("system", server__slug=DGX_H100)
    # The system's price links to its row in the price book, with the source and its date.
    assert reverse("planner:price_detail", args=[system.pk]) in html
    assert system.source in html
    assert system.price_date.isoformat() in html
    # 2 systems at 270,000: thousands separated in both languages.
    assert "540,000" in html
    assert len(re.findall(r'class="num score"', html)) == 5
    assert ("采购清单" if language == "zh-hans" else "Purchase list") in html


def test_plan_rows_and_the_comparison_link_to_each_build(cast, plan):
    client = cast.browser("viewer")
    html = client.get(plan.get_absolute_url()).content.decode()
    for cid in range(len(plan.ranking["candidates"])):
        assert unescape(html).count(page_url(plan, cid) + "?") >= 1
    compare = client.get(
        reverse("planner:plan_compare", args=[plan.pk]) + "?c=0&c=1"
    ).content.decode()
    assert page_url(plan, 0) in compare and page_url(plan, 1) in compare


def test_the_rank_follows_the_weights_in_the_query(cast, plan):
    weights = {"objective": "time"}
    fastest = plan_candidate(
        plan=plan, candidate_id=build_id(plan, 32), weights={}, objective="time"
    )
    assert fastest["rank"] == 1
    response = cast.browser("viewer").get(page_url(plan, build_id(plan, 32)), weights)
    assert "#1" in response.content.decode()


def test_another_teams_build_and_a_build_past_the_end_are_not_found(cast, plan):
    outsider = cast.browser("outsider")
    for name in (
        "planner:plan_candidate",
        "planner:plan_candidate_purchase",
        "planner:plan_candidate_purchase_csv",
    ):
        assert outsider.get(page_url(plan, 0, name)).status_code == 404
        past = len(plan.ranking["candidates"])
        assert cast.browser("viewer").get(page_url(plan, past, name)).status_code == 404


def test_anonymous_visitors_are_sent_to_sign_in(cast, plan):
    assert cast.browser("anonymous").get(page_url(plan, 0)).status_code == 302


# --- the purchase list -----------------------------------------------------------------------


def csv_rows(response) -> list[list[str]]:
    return list(csv.reader(io.StringIO(response.content.decode())))


def test_purchase_csv_lists_systems_network_and_racks_with_prices_and_sources(cast, plan):
    cid = build_id(plan, 16)
    response = cast.browser("viewer").get(
        page_url(plan, cid, "planner:plan_candidate_purchase_csv")
    )
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    assert "attachment" in response["Content-Disposition"]
    header, *rows = csv_rows(response)
    assert header[:6] == ["Item", "Description", "Catalog slug", "Quantity", "Unit price", "Amount"]
    by_item = {row[0]: dict(zip(header, row, strict=True)) for row in rows}
    assert list(by_item) == ["Complete system", "Switch port", "Transceiver", "Cable", "Rack"]
    system = reference("system", server__slug=DGX_H100)
    assert by_item["Complete system"] == {
        **by_item["Complete system"],
        "Catalog slug": DGX_H100,
        "Quantity": "2",
        "Unit price": "270000",
        "Amount": "540000",
        "Currency": "USD",
        "Price from": "reference list",
        "Price source": system.source,
        "Price date": system.price_date.isoformat(),
        "Price id": str(system.pk),
    }
    # Two servers with eight NDR ports each: 16 leaf ports for a single-switch tree, at the
    # reference price the price book chose, named by its row.
    port = Price.objects.get(pk=by_item["Switch port"]["Price id"])
    assert port.team is None and port.fabric.slug == "ib-ndr-400"
    assert by_item["Switch port"]["Quantity"] == "16"
    assert by_item["Switch port"]["Unit price"] == f"{float(port.amount):g}"
    assert by_item["Switch port"]["Price source"] == port.source
    assert by_item["Transceiver"]["Quantity"] == "32"  # two ends per link
    assert by_item["Cable"]["Price from"] == "no price" and by_item["Cable"]["Unit price"] == ""
    assert by_item["Rack"]["Quantity"] == "1"


def test_purchase_csv_headers_follow_the_language(cast, plan):
    response = cast.browser("viewer").get(
        page_url(plan, build_id(plan, 16), "planner:plan_candidate_purchase_csv"),
        HTTP_ACCEPT_LANGUAGE="zh-hans",
    )
    header, first, *_ = csv_rows(response)
    assert header[0] == "项目" and header[3] == "数量"
    assert first[0] == "整机系统"
    # Numbers stay plain, for a spreadsheet to read.
    assert first[4] == "270000"


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_printable_purchase_list_formats_amounts_for_the_reader(cast, plan, language):
    response = cast.browser("viewer").get(
        page_url(plan, build_id(plan, 32), "planner:plan_candidate_purchase"),
        HTTP_ACCEPT_LANGUAGE=language,
    )
    assert response.status_code == 200
    html = response.content.decode()
    assert "data-print" in html
    # 4 systems: 1,080,000; the switch ports' total 25,000.
    assert "1,080,000" in html and "25,000" in html


def test_amounts_show_in_the_display_currency_naming_the_rate(cast, plan):
    client = cast.browser("viewer")
    client.post(reverse("set_currency"), {"currency": "CNY", "next": "/"})
    html = client.get(page_url(plan, build_id(plan, 16))).content.decode()
    # 540,000 USD at the configured 7.10 CNY per USD.
    assert "≈ ¥3,834,000" in html
    assert "7.1" in html and "CNY per USD" in html


# --- simulate this build ---------------------------------------------------------------------


def simulate_link(client, url: str) -> str:
    html = client.get(url).content.decode()
    match = re.search(r'href="([^"]*/simulations/new/[^"]*)"', html)
    assert match, "no simulate link"
    return unescape(match.group(1))


@pytest.fixture
def published(monkeypatch) -> list[int]:
    sent: list[int] = []
    monkeypatch.setattr(simulations, "_publish", lambda simulation: sent.append(simulation.pk))
    return sent


def test_simulate_this_build_prefills_the_training_form(cast, plan, published):
    client = cast.browser("planner")
    link = simulate_link(client, page_url(plan, build_id(plan, 16)))
    assert urlsplit(link).path == reverse("planner:simulation_create", args=["training"])
    query = {k: v[0] for k, v in parse_qs(urlsplit(link).query).items()}
    assert query == {
        "accelerator": H100,
        "count": "16",
        "precision": "bf16",
        "model": "meta-llama-3-8b",
        "task": "train",
        "seq_len": "4096",
        "tokens": "1e+11",
        "fabric": "ib-ndr-400",
    }
    form = client.get(link).context["form"]
    assert form.initial["count"] == "16" and form.initial["fabric"] == "ib-ndr-400"
    html = client.get(link).content.decode()
    assert re.search(rf'<option value="{H100}"[^>]*selected', html)
    # Submitted as prefilled, it asks the build's own question.
    answer = client.post(link.split("?")[0], {**query, "method": "full"})
    assert answer.status_code == 302
    estimate = Simulation.objects.get(pk=published[0]).inputs["estimate"]
    assert estimate == {
        "task": "train",
        "model": "meta-llama-3-8b",
        "accelerator": H100,
        "count": 16,
        "precision": "bf16",
        "seq_len": 4096,
        "fabric": "ib-ndr-400",
        "tokens": 1e11,
    }


def test_simulate_this_build_prefills_the_serving_form_with_rate_lengths_and_slos(
    cast, serving_plan
):
    link = simulate_link(cast.browser("planner"), page_url(serving_plan, 0))
    assert urlsplit(link).path == reverse("planner:simulation_create", args=["serving"])
    query = {k: v[0] for k, v in parse_qs(urlsplit(link).query).items()}
    first = serving_plan.ranking["candidates"][0]
    assert query == {
        "accelerator": first["accelerator"],
        "count": str(first["count"]),
        "precision": "bf16",
        "model": "meta-llama-3-8b",
        "rate_per_s": "2",
        "prompt_value": "512",
        "output_value": "128",
        "ttft_slo_ms": "500",
        "tpot_slo_ms": "50",
    }


def test_simulating_a_build_runs_it_on_the_layout_the_plan_ranked(cast, plan, published):
    cid = build_id(plan, 16)
    answer = cast.browser("planner").post(page_url(plan, cid, "planner:plan_candidate_simulate"))
    run = Simulation.objects.get()
    assert answer.status_code == 302 and answer["Location"] == run.get_absolute_url()
    assert published == [run.pk] and run.created_by == cast.planner
    build = plan_candidate(plan=plan, candidate_id=cid, weights={})
    assert run.inputs == {"kind": "training", "estimate": estimate_question(plan, build)}
    layout = build["estimate"]["parallelism"]
    assert run.inputs["estimate"]["parallelism"]["tp"] == layout["tp"]
    assert run.inputs["estimate"]["micro_batch"] == layout["micro_batch"]
    # The same build again: the same run, nothing queued twice.
    again = cast.browser("planner").post(page_url(plan, cid, "planner:plan_candidate_simulate"))
    assert again["Location"] == run.get_absolute_url() and published == [run.pk]


def test_simulating_a_serving_build_keeps_its_replica_layout_load_and_slos(
    cast, serving_plan, published
):
    cast.browser("planner").post(page_url(serving_plan, 0, "planner:plan_candidate_simulate"))
    run = Simulation.objects.get()
    build = plan_candidate(plan=serving_plan, candidate_id=0, weights={})
    assert run.inputs["kind"] == "serving"
    assert run.inputs["rate_per_s"] == 2 and run.inputs["ttft_slo_ms"] == 500
    assert run.inputs["estimate"]["parallelism"] == {"tp": build["estimate"]["serving"]["tp"]}


def test_simulating_a_build_the_plan_lacks_says_so_and_starts_nothing(cast, plan, published):
    answer = cast.browser("planner").post(
        page_url(plan, 9999, "planner:plan_candidate_simulate"), follow=True
    )
    assert "build: the plan has no build 9999" in answer.content.decode()
    assert not Simulation.objects.exists() and published == []


def test_viewers_and_outsiders_may_not_simulate_a_build(cast, plan, published):
    url = page_url(plan, 0, "planner:plan_candidate_simulate")
    assert cast.browser("viewer").post(url).status_code == 403
    assert cast.browser("outsider").post(url).status_code == 404
    assert not Simulation.objects.exists()


def test_viewers_get_no_simulate_link(cast, plan):
    assert "/simulations/new/" not in cast.browser("viewer").get(page_url(plan, 0)).content.decode()
    html = cast.browser("planner").get(page_url(plan, 0), HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert "模拟此配置" in html.content.decode()


# --- sweeping the top builds -----------------------------------------------------------------


@pytest.fixture
def sweeps(monkeypatch) -> list[tuple[int, list[int]]]:
    sent: list[tuple[int, list[int]]] = []
    monkeypatch.setattr(
        simulations,
        "_publish_sweep",
        lambda parent, queued: sent.append((parent.pk, [p.pk for p in queued])),
    )
    return sent


def test_sweeping_the_top_builds_starts_a_sweep_simulation(cast, plan, sweeps):
    client = cast.browser("planner")
    assert "Sweep the top builds" in client.get(plan.get_absolute_url()).content.decode()
    answer = client.post(
        reverse("planner:plan_sweep", args=[plan.pk]), {"top": "2", "objective": "time"}
    )
    sweep = Simulation.objects.get(kind=SimulationKind.SWEEP)
    assert answer.status_code == 302 and answer["Location"] == sweep.get_absolute_url()
    assert sweeps == [(sweep.pk, sorted(p.pk for p in sweep.parts.all()))]
    assert sweep.created_by == cast.planner
    # The fastest two builds under "time": 32 then 16 devices, each on the layout it was ranked on.
    fastest = [
        plan_candidate(plan=plan, candidate_id=build_id(plan, n), weights={}, objective="time")
        for n in (32, 16)
    ]
    assert sweep.inputs["simulation"] == {"kind": "training"}
    assert sweep.inputs["candidates"] == [estimate_question(plan, c) for c in fastest]
    assert sweep.inputs["candidates"][0]["parallelism"]["dp"] == 32
    assert [label.split()[0] for label in sweep.inputs["labels"]] == ["#1", "#2"]


def test_sweeping_over_htmx_sends_the_browser_to_the_sweep(cast, plan, sweeps):
    answer = cast.browser("planner").post(
        reverse("planner:plan_sweep", args=[plan.pk]), {"top": "3"}, HTTP_HX_REQUEST="true"
    )
    sweep = Simulation.objects.get(kind=SimulationKind.SWEEP)
    assert answer["HX-Redirect"] == sweep.get_absolute_url()


def test_a_bad_sweep_size_starts_nothing_and_says_why(cast, plan, sweeps):
    client = cast.browser("planner")
    answer = client.post(reverse("planner:plan_sweep", args=[plan.pk]), {"top": "1"}, follow=True)
    assert not Simulation.objects.exists()
    assert "greater than or equal to 2" in answer.content.decode()


def test_viewers_and_outsiders_may_not_sweep(cast, plan, sweeps):
    url = reverse("planner:plan_sweep", args=[plan.pk])
    assert cast.browser("viewer").post(url, {"top": "2"}).status_code == 403
    assert cast.browser("outsider").post(url, {"top": "2"}).status_code == 404
    assert (
        "Sweep the top builds"
        not in cast.browser("viewer").get(plan.get_absolute_url()).content.decode()
    )
    assert not Simulation.objects.exists()


def test_a_finished_sweep_shows_each_build_linked_to_its_own_run(cast, plan, sweeps):
    """The sweep's parts run as the worker would run them (the services a task calls)."""
    chosen = [plan_candidate(plan=plan, candidate_id=i, weights={}) for i in (0, 1)]
    question = {
        "kind": "sweep",
        "simulation": {"kind": "training", "trials": 100},
        "candidates": [estimate_question(plan, c) for c in chosen],
        "labels": ["first build", "second build"],
    }
    sweep, _ = simulations.simulation_start(data=question, user=cast.planner)
    for part in sweep.parts.all():
        assert simulations.simulation_execute(simulation_id=part.pk) == SimulationStatus.SUCCEEDED
    assert simulations.simulation_gather(simulation_id=sweep.pk) == SimulationStatus.SUCCEEDED
    for language in ("en", "zh-hans"):
        response = cast.browser("viewer").get(
            sweep.get_absolute_url(), HTTP_ACCEPT_LANGUAGE=language
        )
        assert response.status_code == 200
        html = response.content.decode()
        assert "first build" in html and "second build" in html
        for part in sweep.parts.all():
            assert reverse("planner:simulation_detail", args=[part.pk]) in html


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_large_builds_write_their_counts_with_separators(cast, reference_prices, language):
    # Llama 3.1 405B's cluster: 16,384 H100s in 2,048 DGX systems.
    big = plan_create(
        data={
            "workload": {"task": "train", "model": "meta-llama-3.1-405b", "tokens": 15.6e12},
            "accelerators": [H100],
            "servers": [DGX_H100],
            "count": {"min": 16384, "max": 16384},
        },
        user=cast.planner,
        team=cast.team,
    )
    viewer = cast.browser("viewer")
    for name in ("planner:plan_candidate", "planner:plan_candidate_purchase"):
        html = viewer.get(page_url(big, 0, name), HTTP_ACCEPT_LANGUAGE=language).content.decode()
        assert "16,384 \u00d7" in html and "16384" not in html
    purchase = viewer.get(page_url(big, 0, "planner:plan_candidate_purchase")).content.decode()
    assert "2,048 \u00d7" in purchase
    plan_page = viewer.get(big.get_absolute_url(), HTTP_ACCEPT_LANGUAGE=language).content.decode()
    # Why the first build is first, naming the card.
    times = "x" if language == "en" else "\u00d7"
    assert f"16,384 {times} NVIDIA H100 SXM5 80GB" in unescape(plan_page)


def test_a_sweep_belongs_to_the_plans_team_and_is_404_to_another_team(cast, plan, sweeps):
    cast.browser("planner").post(reverse("planner:plan_sweep", args=[plan.pk]), {"top": "2"})
    sweep = Simulation.objects.get(kind=SimulationKind.SWEEP)
    assert sweep.team == plan.team
    assert {part.team for part in sweep.parts.all()} == {plan.team}
    outsider = cast.browser("outsider")
    for row in (sweep, *sweep.parts.all()):
        assert outsider.get(row.get_absolute_url()).status_code == 404
        cancel = reverse("planner:simulation_cancel", args=[row.pk])
        assert outsider.post(cancel).status_code == 404
        assert cast.api("outsider").post(f"/api/v1/simulations/{row.pk}/cancel/").status_code == 404
