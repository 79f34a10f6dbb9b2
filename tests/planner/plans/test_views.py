"""The plan pages: who may read and write workloads and plans, the plan form's question and its
errors beside the fields, the ranking re-ordered by the weight sliders (a full page without
JavaScript, the results partial for htmx), the charts' data, comparison, exports and the
printable report.

Team Alpha's viewer, planner and admin (tests/cast.py) own the workloads and plans; the
outsider, a planner on team Beta, must not learn they exist. Plans rank four accelerators on
8-64 devices, so each takes a fraction of a second."""

import csv
import io
import json
import re
from pathlib import Path

import pytest
from django.urls import reverse
from django.utils.html import escape

from planner.engine import RequestError
from planner.engine.scoring import DEFAULT_WEIGHTS, DIMENSIONS
from planner.messages.answers import localise_rejected, plan_why_none
from planner.messages.render import render
from planner.models import Plan, Workload
from planner.plans.figures import CSV_COLUMNS, pareto_front
from planner.plans.services import plan_create, workload_create
from planner.plans.views import plans as plan_views
from planner.plans.views.plans import PAGE_SIZE
from tests.factories import RackGroupFactory, SiteFactory

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}
ACCELERATORS = ["amd-mi300x", "nvidia-a100-sxm4-80gb", "nvidia-h100-sxm5-80gb", "nvidia-rtx-4090"]
TRAIN_SPEC = {
    "workload": {"task": "train", "model": "meta-llama-3-8b", "tokens": 1e11, "seq_len": 4096},
    "deadline_days": 30,
}
# Ordered by the five scores alone, so the weights decide the order.
BY_SCORE = {"objective": "score"}
ONLY_SOFTWARE = {"memory_capacity": 0, "memory_bandwidth": 0, "interconnect": 0, "cooling": 0}
ONLY_SOFTWARE["software"] = 100


# --- places and plans ------------------------------------------------------------------------


@pytest.fixture
def site(cast):
    site = SiteFactory(team=cast.team, name="Shanghai DC2", currency="CNY")
    RackGroupFactory(site=site, name="Row A", count=8, power_kw=40, cooling_kw=40)
    return site


@pytest.fixture
def workload(loaded_catalog, cast):
    return workload_create(name="Llama 3 8B", spec=TRAIN_SPEC, user=cast.planner, team=cast.team)


@pytest.fixture
def plan(workload, site, cast):
    plan = plan_create(
        data={
            **workload.spec,
            "name": "Cluster 2026",
            "accelerators": ACCELERATORS,
            "count": {"min": 8, "max": 64},
        },
        user=cast.planner,
        team=cast.team,
        site=site,
        workload=workload,
    )
    return plan


def plan_form(workload, site=None, **changes) -> dict:
    return {
        "workload": str(workload.pk),
        "name": "",
        "site": "" if site is None else str(site.pk),
        "capex": "",
        "tco": "",
        "currency": "",
        "accelerators": ACCELERATORS,
        "count_min": "8",
        "count_max": "64",
        "years": "4",
        "rent_per_gpu_hour": "",
        **changes,
    }


def csv_rows(response) -> list[dict]:
    return list(csv.DictReader(io.StringIO(response.content.decode())))


# --- who may do what -------------------------------------------------------------------------


def test_plan_pages_send_anonymous_visitors_to_sign_in(cast, plan):
    for url in (reverse("planner:plan_list"), plan.get_absolute_url(), "/workloads/"):
        response = cast.browser("anonymous").get(url)
        assert response.status_code == 302
        assert response["Location"].startswith(reverse("accounts:login"))


@pytest.mark.parametrize("role", ["viewer", "planner", "admin"])
def test_every_role_of_the_team_reads_plans_and_workloads(role, cast, plan):
    client = cast.browser(role)
    pk = plan.pk
    for name in (
        "planner:plan_detail",
        "planner:plan_report",
        "planner:plan_export_csv",
        "planner:plan_export_json",
    ):
        assert client.get(reverse(name, kwargs={"pk": pk})).status_code == 200, name
    assert client.get(reverse("planner:plan_list")).status_code == 200
    assert client.get(reverse("planner:workload_list")).status_code == 200


def test_viewer_may_not_create_or_change_workloads_or_plans(cast, workload):
    client = cast.browser("viewer")
    assert client.get(reverse("planner:plan_create")).status_code == 403
    assert client.post(reverse("planner:plan_create"), plan_form(workload)).status_code == 403
    assert client.get(reverse("planner:workload_create", args=["train"])).status_code == 403
    assert client.get(reverse("planner:workload_edit", args=[workload.pk])).status_code == 403
    assert client.post(reverse("planner:workload_copy", args=[workload.pk])).status_code == 403
    assert Plan.objects.count() == 0
    assert Workload.objects.count() == 1


def test_viewer_sees_no_write_buttons(cast, workload, plan):
    body = cast.browser("viewer").get(reverse("planner:workload_list")).content.decode()
    assert reverse("planner:workload_edit", args=[workload.pk]) not in body
    body = cast.browser("viewer").get(reverse("planner:plan_list")).content.decode()
    assert reverse("planner:plan_create") not in body


@pytest.mark.parametrize("role", ["planner", "admin"])
def test_planners_and_admins_open_the_forms(role, cast, workload):
    client = cast.browser(role)
    assert client.get(reverse("planner:plan_create")).status_code == 200
    for kind in ("train", "finetune", "serve"):
        assert client.get(reverse("planner:workload_create", args=[kind])).status_code == 200
    assert client.get(reverse("planner:workload_edit", args=[workload.pk])).status_code == 200


def test_another_teams_plans_and_workloads_are_not_found(cast, plan, workload):
    client = cast.browser("outsider")
    for name in (
        "planner:plan_detail",
        "planner:plan_compare",
        "planner:plan_report",
        "planner:plan_export_csv",
        "planner:plan_export_json",
    ):
        assert client.get(reverse(name, kwargs={"pk": plan.pk})).status_code == 404, name
    assert client.get(reverse("planner:workload_edit", args=[workload.pk])).status_code == 404
    assert client.post(reverse("planner:workload_copy", args=[workload.pk])).status_code == 404
    assert "Cluster 2026" not in client.get(reverse("planner:plan_list")).content.decode()
    assert "Llama 3 8B" not in client.get(reverse("planner:workload_list")).content.decode()


def test_outsider_cannot_plan_with_another_teams_workload(cast, workload):
    response = cast.browser("outsider").post(reverse("planner:plan_create"), plan_form(workload))
    assert response.status_code == 200
    assert response.context["form"].has_error("workload")
    assert Plan.objects.count() == 0


def test_a_plan_keeps_the_workload_it_was_made_from(cast, workload, site):
    client = cast.browser("planner")
    client.post(reverse("planner:plan_create"), plan_form(workload, site))
    assert Plan.objects.get().workload == workload


def test_the_service_refuses_another_teams_workload(cast, workload):
    with pytest.raises(RequestError) as refused:
        plan_create(data=workload.spec, user=cast.outsider, team=cast.other_team, workload=workload)
    assert refused.value.field == "workload"
    assert Plan.objects.count() == 0


# --- workloads -------------------------------------------------------------------------------


def test_train_workload_keeps_the_estimate_question_and_the_deadline_apart(loaded_catalog, cast):
    client = cast.browser("planner")
    response = client.post(
        reverse("planner:workload_create", args=["train"]),
        {
            "name": "Llama 3 70B pre-training",
            "model": "meta-llama-3-70b",
            "tokens": "2e12",
            "seq_len": "4096",
            "global_batch": "",
            "precision": "bf16",
            "deadline_days": "60",
        },
    )
    assert response.status_code == 302
    workload = Workload.objects.get(name="Llama 3 70B pre-training")
    assert workload.team == cast.team
    assert workload.spec == {
        "workload": {
            "task": "train",
            "model": "meta-llama-3-70b",
            "precision": "bf16",
            "seq_len": 4096,
            "tokens": 2e12,
        },
        "deadline_days": 60,
    }


def test_serve_workload_puts_rate_and_latency_targets_at_the_top(loaded_catalog, cast):
    response = cast.browser("planner").post(
        reverse("planner:workload_create", args=["serve"]),
        {
            "name": "Chat",
            "model": "meta-llama-3-8b",
            "precision": "fp8",
            "target_rps": "20",
            "prompt_len": "1024",
            "output_len": "256",
            "batch": "",
            "ttft_ms": "500",
            "tpot_ms": "50",
        },
    )
    assert response.status_code == 302
    spec = Workload.objects.get(name="Chat").spec
    assert spec["workload"] == {
        "task": "inference",
        "model": "meta-llama-3-8b",
        "precision": "fp8",
        "inference": {"prompt_len": 1024, "output_len": 256},
    }
    assert (spec["target_rps"], spec["ttft_ms"], spec["tpot_ms"]) == (20, 500, 50)


def test_finetune_workload_keeps_its_method(loaded_catalog, cast):
    cast.browser("planner").post(
        reverse("planner:workload_create", args=["finetune"]),
        {
            "name": "QLoRA",
            "model": "meta-llama-3-8b",
            "method": "qlora",
            "tokens": "",
            "deadline_days": "",
        },
    )
    spec = Workload.objects.get(name="QLoRA").spec
    assert spec == {"workload": {"task": "finetune", "model": "meta-llama-3-8b", "method": "qlora"}}


def test_workload_name_is_unique_within_the_team(cast, workload):
    response = cast.browser("planner").post(
        reverse("planner:workload_create", args=["finetune"]),
        {"name": "Llama 3 8B", "model": "meta-llama-3-8b", "method": "lora"},
    )
    assert response.status_code == 200
    assert response.context["form"].has_error("name")


def test_edit_form_shows_the_saved_workload_and_saves_changes(cast, workload):
    client = cast.browser("planner")
    url = reverse("planner:workload_edit", args=[workload.pk])
    form = client.get(url).context["form"]
    assert form["tokens"].value() == "1e+11"
    assert form["deadline_days"].value() == 30
    response = client.post(
        url,
        {
            "name": "Llama 3 8B",
            "model": "meta-llama-3-8b",
            "tokens": "2e11",
            "seq_len": "8192",
            "precision": "fp8",
            "deadline_days": "",
        },
    )
    assert response.status_code == 302
    workload.refresh_from_db()
    assert workload.spec["workload"]["seq_len"] == 8192
    assert workload.spec["workload"]["precision"] == "fp8"
    assert "deadline_days" not in workload.spec


def test_copy_makes_an_editable_duplicate(cast, workload):
    client = cast.browser("planner")
    response = client.post(reverse("planner:workload_copy", args=[workload.pk]))
    copy = Workload.objects.exclude(pk=workload.pk).get()
    assert response["Location"] == reverse("planner:workload_edit", args=[copy.pk])
    assert copy.name == "Llama 3 8B (copy)"
    assert copy.spec == workload.spec
    client.post(reverse("planner:workload_copy", args=[workload.pk]))
    assert Workload.objects.filter(name="Llama 3 8B (copy 2)").exists()


# --- the plan form ---------------------------------------------------------------------------


def test_plan_form_builds_the_question_and_ranks(cast, workload, site):
    response = cast.browser("planner").post(
        reverse("planner:plan_create"),
        plan_form(workload, site, capex="9e7", vendors=["NVIDIA"], stacks=["cuda"]),
    )
    plan = Plan.objects.get()
    assert response["Location"] == plan.get_absolute_url()
    assert plan.workload == workload
    assert plan.site == site
    assert plan.name == "Llama 3 8B"
    assert plan.currency == "CNY"  # the site's, as no currency was picked
    assert sorted(plan.question.pop("accelerators")) == ACCELERATORS
    assert plan.question == {
        **TRAIN_SPEC,
        "name": "Llama 3 8B",
        "count": {"min": 8, "max": 64},
        "years": 4,
        "budget": {"capex": 9e7},
        "vendors": ["NVIDIA"],
        "stacks": ["cuda"],
    }
    assert plan.ranking["candidates"]


def test_plan_form_rejects_a_count_range_upside_down(cast, workload):
    response = cast.browser("planner").post(
        reverse("planner:plan_create"), plan_form(workload, count_min="64", count_max="8")
    )
    assert response.context["form"].has_error("count_max")
    assert Plan.objects.count() == 0


def test_engine_error_about_the_workload_shows_beside_the_workload(cast, loaded_catalog):
    stale = Workload.objects.create(
        name="Gone", team=cast.team, spec={"workload": {"task": "train", "model": "no-such-model"}}
    )
    response = cast.browser("planner").post(reverse("planner:plan_create"), plan_form(stale))
    assert response.status_code == 200
    errors = response.context["form"].errors["workload"]
    assert any("no-such-model" in error for error in errors)
    assert "no-such-model" in response.content.decode()
    assert Plan.objects.count() == 0


@pytest.mark.parametrize(
    ("path", "field"),
    [("budget.capex", "capex"), ("count.max", "count_max"), ("years", "years"), ("foo", None)],
)
def test_engine_errors_land_beside_the_field_they_name(path, field, cast, workload, monkeypatch):
    def refuse(**kwargs):
        raise RequestError(path, "is wrong here")

    monkeypatch.setattr(plan_views, "plan_create", refuse)
    response = cast.browser("planner").post(reverse("planner:plan_create"), plan_form(workload))
    assert response.status_code == 200
    form = response.context["form"]
    if field is None:
        assert form.non_field_errors() == [f"{path}: is wrong here"]
    else:
        assert form.errors[field] == ["is wrong here"]
    assert "is wrong here" in response.content.decode()


# --- the plan page ---------------------------------------------------------------------------


def test_plan_page_shows_the_ranking_with_default_weights(cast, plan):
    response = cast.browser("viewer").get(plan.get_absolute_url())
    body = response.content.decode()
    assert response.status_code == 200
    for name, share in DEFAULT_WEIGHTS["train"].items():
        # scoring.DEFAULT_WEIGHTS x 100 on the sliders
        assert re.search(rf'type="range" name="{name}" value="{100 * share:g}(\.0)?"', body)
    first = plan.ranking["candidates"][0]
    software = render(first["reasons"]["software"])
    assert software in body  # the details row
    assert f'title="Drivers and software: {software}"' in body
    assert 'id="chart-pareto"' in body or "nothing to plot" in body
    assert 'id="plan-chart-data"' in body
    assert "js/plan-charts.js" in body and "vendor/chart-4.6.1.umd.min.js" in body


def test_htmx_gets_only_the_results_partial(cast, plan):
    response = cast.browser("viewer").get(
        plan.get_absolute_url(), {**BY_SCORE, **ONLY_SOFTWARE, "page": 1}, **HTMX
    )
    body = response.content.decode()
    assert response.status_code == 200
    assert body.lstrip().startswith('<section id="results"')
    assert "<html" not in body and 'id="weights-form"' not in body
    assert "HX-Request" in response["Vary"]


def test_weights_reorder_and_a_zero_weight_leaves_a_dimension_out(cast, plan):
    response = cast.browser("viewer").get(
        reverse("planner:plan_export_csv", args=[plan.pk]), {**BY_SCORE, **ONLY_SOFTWARE}
    )
    rows = csv_rows(response)
    software = [float(r["software"]) for r in rows]
    assert software == sorted(software, reverse=True)
    # Only software weighted: the overall score is the software score.
    assert all(float(r["overall"]) == float(r["software"]) for r in rows)
    only_bandwidth = {**BY_SCORE, **ONLY_SOFTWARE, "software": 0, "memory_bandwidth": 100}
    rows = csv_rows(
        cast.browser("viewer").get(
            reverse("planner:plan_export_csv", args=[plan.pk]), only_bandwidth
        )
    )
    bandwidth = [float(r["memory_bandwidth"]) for r in rows]
    assert bandwidth == sorted(bandwidth, reverse=True)


def test_page_without_javascript_reranks_with_the_submitted_weights(cast, plan):
    response = cast.browser("viewer").get(plan.get_absolute_url(), ONLY_SOFTWARE)
    assert response.context["weights"]["software"] == 100
    assert 'type="range" name="software" value="100"' in response.content.decode()
    ranked = response.context["candidates"]
    assert [c["overall"] for c in ranked] == [c["scores"]["software"] for c in ranked]


def test_bad_weights_fall_back_to_the_defaults_with_a_message(cast, plan):
    response = cast.browser("viewer").get(
        plan.get_absolute_url(), {**BY_SCORE, **ONLY_SOFTWARE, "software": "150"}
    )
    assert response.status_code == 200
    assert response.context["weights"]["interconnect"] == 30
    assert "the defaults are used instead" in response.content.decode()


def test_ranking_is_paginated_25_per_page_keeping_the_weights(cast, plan):
    viable = len(plan.ranking["candidates"])
    assert viable > PAGE_SIZE, "the test plan should fill more than one page"
    client = cast.browser("viewer")
    first = client.get(plan.get_absolute_url(), ONLY_SOFTWARE)
    assert len(first.context["rows"]) == PAGE_SIZE
    assert "software=100&page=2" in first.content.decode()
    second = client.get(plan.get_absolute_url(), {**BY_SCORE, **ONLY_SOFTWARE, "page": 2})
    assert [r["rank"] for r in second.context["rows"]] == list(range(PAGE_SIZE + 1, viable + 1))


def test_rejected_builds_are_listed_apart_with_their_reason(cast, plan):
    body = cast.browser("viewer").get(plan.get_absolute_url()).content.decode()
    rejected = plan.ranking["rejected"]
    assert rejected
    assert f"{len(rejected)} rejected builds" in body
    assert escape(localise_rejected(rejected[0])["reason"]) in body


def test_why_none_shows_when_no_build_is_viable(cast, workload):
    plan = plan_create(
        data={
            **workload.spec,
            "deadline_days": 0.01,
            "accelerators": ACCELERATORS[:1],
            "count": {"min": 8, "max": 16},
        },
        user=cast.planner,
        team=cast.team,
    )
    body = cast.browser("viewer").get(plan.get_absolute_url()).content.decode()
    assert "No build meets every constraint." in body
    assert escape(plan_why_none(plan.ranking)) in body


def test_chart_data_marks_the_pareto_front(cast, plan):
    response = cast.browser("viewer").get(plan.get_absolute_url())
    charts = response.context["charts"]
    assert len(charts["scores"]) == 5
    assert charts["scores"][0]["data"] == [
        plan.ranking["candidates"][0]["scores"][k] for k in DIMENSIONS
    ]
    for point in charts["points"]:
        beaten = any(
            o["x"] <= point["x"]
            and o["y"] <= point["y"]
            and (o["x"], o["y"]) != (point["x"], point["y"])
            for o in charts["points"]
        )
        assert point["front"] == (not beaten)


def test_pareto_front_prefers_less_time_and_less_money():
    points = [
        {"id": 1, "x": 1.0, "y": 10.0},
        {"id": 2, "x": 2.0, "y": 5.0},
        {"id": 3, "x": 2.0, "y": 8.0},  # as slow as 2, dearer
        {"id": 4, "x": 3.0, "y": 5.0},  # slower than 2, no cheaper
        {"id": 5, "x": 4.0, "y": 1.0},
    ]
    assert pareto_front(points, maximise_x=False) == {1, 2, 5}
    # Serving: more capacity is better, so the cheapest is also the biggest here.
    assert pareto_front(points, maximise_x=True) == {5}
    assert pareto_front([*points, {"id": 6, "x": 5.0, "y": 9.0}], maximise_x=True) == {5, 6}


# --- compare, exports, report ----------------------------------------------------------------


def test_compare_shows_two_to_four_builds_side_by_side(cast, plan):
    client = cast.browser("viewer")
    url = reverse("planner:plan_compare", args=[plan.pk])
    response = client.get(url, {"c": [0, 1, 2]})
    assert response.status_code == 200
    assert len(response.context["rows"]) == 3
    assert "Time to train (days)" in response.content.decode()
    assert client.get(url, {"c": [0]}).status_code == 400
    assert client.get(url, {"c": [0, 1, 2, 3, 4]}).status_code == 400


@pytest.mark.parametrize(
    ("language", "owned"), [("en", "costs least to own"), ("zh-hans", "拥有成本最低")]
)
def test_the_plan_page_says_its_first_build_costs_least_to_own(
    reference_prices, workload, site, cast, language, owned
):
    # With the reference prices a DGX is priced to own: the first build is compared on TCO,
    # and the sentence says so in each language.
    plan = plan_create(
        data={**workload.spec, "accelerators": ACCELERATORS, "count": {"min": 8, "max": 64}},
        user=cast.planner,
        team=cast.team,
        site=site,
    )
    assert plan.ranking["candidates"][0]["cost"]["basis"] == "tco"
    response = cast.browser("viewer").get(
        reverse("planner:plan_detail", args=[plan.pk]), HTTP_ACCEPT_LANGUAGE=language
    )
    assert response.status_code == 200
    assert owned in response.context["why_first_text"]
    assert escape(response.context["why_first_text"]) in response.content.decode()


def test_compare_marks_the_cheapest_to_own_even_beside_a_smaller_rent(cast, plan):
    # Like with like, as the ranking: a build priced to own beats a rent-only one on the
    # "cost as ranked" row, however few dollars the rent of the job is.
    candidates = plan.ranking["candidates"]
    candidates[0]["cost"] = {**candidates[0]["cost"], "basis": "rent", "amount": 3.0}
    candidates[1]["cost"] = {**candidates[1]["cost"], "basis": "tco", "amount": 90_000.0}
    candidates[2]["cost"] = {**candidates[2]["cost"], "basis": "tco", "amount": 80_000.0}
    plan.save(update_fields=["ranking", "updated_at"])
    url = reverse("planner:plan_compare", args=[plan.pk])
    response = cast.browser("viewer").get(url, {"c": [0, 1, 2], "objective": "cost"})
    assert response.status_code == 200
    bases = [row["cost_basis"] for row in response.context["rows"]]
    assert bases == ["tco", "tco", "rent"]  # the page's order: TCOs first, by TCO
    line = next(x for x in response.context["lines"] if x["label"].startswith("Cost as ranked"))
    assert [cell["best"] for cell in line["cells"]] == [True, False, False]


def test_csv_export_has_every_viable_build_under_the_weights(cast, plan):
    response = cast.browser("viewer").get(reverse("planner:plan_export_csv", args=[plan.pk]))
    assert response["Content-Type"].startswith("text/csv")
    assert "attachment" in response["Content-Disposition"]
    assert f"cluster-2026-{plan.pk}-ranking.csv" in response["Content-Disposition"]
    text = response.content.decode()
    assert text.splitlines()[0] == ",".join(CSV_COLUMNS)
    rows = csv_rows(response)
    assert len(rows) == len(plan.ranking["candidates"])
    assert [int(r["rank"]) for r in rows] == list(range(1, len(rows) + 1))
    assert {r["currency"] for r in rows} == {"CNY"}
    first = plan.ranking["candidates"][0]  # the plan's own weights: the stored order
    assert (rows[0]["accelerator"], rows[0]["server"], int(rows[0]["count"])) == (
        first["accelerator"],
        first["server"],
        first["count"],
    )
    assert rows[0]["software_reason"] == render(first["reasons"]["software"])


def test_json_export_carries_the_question_weights_and_candidates(cast, plan):
    response = cast.browser("viewer").get(
        reverse("planner:plan_export_json", args=[plan.pk]), {**BY_SCORE, **ONLY_SOFTWARE}
    )
    data = json.loads(response.content)
    assert "attachment" in response["Content-Disposition"]
    assert data["plan"]["question"] == plan.question
    assert data["plan"]["currency"] == "CNY"
    assert data["weights"] == ONLY_SOFTWARE
    assert len(data["candidates"]) == len(plan.ranking["candidates"])
    assert [c["rank"] for c in data["candidates"]] == list(range(1, len(data["candidates"]) + 1))
    software = [c["scores"]["software"] for c in data["candidates"]]
    assert software == sorted(software, reverse=True)


def test_printable_report_has_the_question_and_the_top_builds(cast, plan):
    response = cast.browser("viewer").get(reverse("planner:plan_report", args=[plan.pk]))
    body = response.content.decode()
    assert response.status_code == 200
    assert "Hardware plan: Cluster 2026" in body
    assert "Shanghai DC2" in body
    assert "100,000,000,000" in body  # the tokens, as the question asked
    assert len(response.context["rows"]) == 10
    first = plan.ranking["candidates"][0]
    assert render(first["reasons"]["memory_capacity"]) in body
    assert "data-print" in body


def test_print_stylesheet_hides_navigation_and_forms():
    css = (Path(__file__).resolve().parents[3] / "static" / "css" / "flopfit.css").read_text()
    print_rules = css[css.index("@media print") :]
    hidden = print_rules[: print_rules.index("display: none")]
    for selector in ("header.top", "nav", "form", "footer"):
        assert selector in hidden
