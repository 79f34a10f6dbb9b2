"""Every page, by its URL name, in both languages: none answers a server error, every one is a
whole page without JavaScript, and a Chinese page carries no English sentence of the engine's.

The pages are walked as an admin, who may see every row, over one of each thing a page shows:
a site with a rack group, a workload, a plan with viable and rejected builds, a plan with none,
a finished training and serving simulation, a calibration profile."""

from __future__ import annotations

import json
import re
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from django.urls import NoReverseMatch, URLPattern, URLResolver, get_resolver, reverse
from django.utils import timezone

from catalog.models import Accelerator, ServerPlatform
from planner.calibrations.services import calibration_create
from planner.choices import SimulationStatus
from planner.engine.simulate.question import inputs_hash
from planner.faults.services import fault_entry_create, fault_incident_create
from planner.messages.catalogue import TEMPLATES
from planner.models import Equipment, PowerFeed, Price, RackGroup, Simulation
from planner.plans.services import plan_create, workload_create
from planner.racks.equipment import equipment_install
from planner.racks.feeds import power_feed_pair_create
from planner.simulations.services import simulation_question
from planner.sites.services import rack_group_save, site_create
from tests.factories import PriceFactory

pytestmark = pytest.mark.django_db

PROBE = json.loads((Path(__file__).resolve().parent / "fixtures" / "h200-probe.json").read_text())
LANGUAGES = ("en", "zh-hans")
# Pages whose answer is a download or a redirect, not a page.
NOT_PAGES = {
    "planner:plan_export_csv",
    "planner:plan_export_json",
    "planner:plan_candidate_purchase_csv",
    "planner:rack_export",
    "planner:equipment_export",
    "planner:price_export",
    "logout",
    "set_currency",
}
# Query strings a page needs to show what it is for.
QUERIES = {
    "planner:plan_compare": "?c=0&c=1&c=2",
    "catalog:accelerator_compare": "?slugs=nvidia-h100-sxm5-80gb&slugs=amd-mi300x",
    "planner:compat": "?accelerator=nvidia-rtx-5090&driver=470&torch=2.5.1%2Bcu124",
}
# A literal run of a template this long is a sentence, not a word a Chinese page may quote.
SENTENCE_CHARS = 14


def url_names() -> list[str]:
    """Every named page of the site (the API, admin and probes aside)."""
    names: list[str] = []

    def walk(patterns: list[Any], namespace: str) -> None:
        for entry in patterns:
            if isinstance(entry, URLResolver):
                if entry.app_name in ("admin",) or str(entry.pattern).startswith("api/"):
                    continue
                inner = entry.namespace or namespace
                walk(entry.url_patterns, inner)
            elif isinstance(entry, URLPattern) and entry.name:
                route = str(entry.pattern)
                if route.startswith(("api/", "healthz", "readyz", "metrics", "jsi18n", "i18n")):
                    continue
                names.append(f"{namespace}:{entry.name}" if namespace else entry.name)

    walk(get_resolver().url_patterns, "")
    return sorted(set(names) - NOT_PAGES)


@pytest.fixture
def world(cast, reference_prices):
    """One of each thing the pages show."""
    admin = cast.admin
    team = admin.profile.team
    site = site_create(
        team=team, user=admin, name="Hall A", electricity_price_per_kwh=Decimal("0.6"), pue=1.3
    )
    group = rack_group_save(
        rack_group=RackGroup(
            site=site, name="Row A", count=8, power_kw=40, cooling_kw=40, units=42, max_kg=1500
        )
    )
    rack = group.racks.order_by("position").first()
    equipment = equipment_install(
        equipment=Equipment(
            rack=rack, server=ServerPlatform.objects.get(slug="nvidia-dgx-h100"), position_u=1
        )
    )
    # An A/B pair: the rack's power from its A side.
    feed = power_feed_pair_create(
        feed=PowerFeed(rack=rack, name="PDU-A", phase="three", voltage=400, amperage=32)
    )[0]
    workload = workload_create(
        name="Llama 3 8B pre-training",
        spec={"workload": {"task": "train", "model": "meta-llama-3-8b", "tokens": 1e11}},
        user=admin,
        team=team,
    )
    plan = plan_create(
        data={
            **workload.spec,
            "accelerators": ["nvidia-h100-sxm5-80gb", "nvidia-rtx-4090", "nvidia-l40s"],
            "budget": {"capex": 1_000_000, "currency": "USD"},
            "count": {"max": 64},
        },
        user=admin,
        team=team,
        site=site,
    )
    hopeless = plan_create(
        data={
            "workload": {"task": "train", "model": "meta-llama-3.1-405b"},
            "accelerators": ["nvidia-rtx-4090"],
            "count": {"max": 8},
        },
        user=admin,
        team=team,
    )
    simulations = [_finished(question) for question in SIMULATIONS]
    profile = calibration_create(probe=PROBE, user=admin, team=team)
    quote = PriceFactory(
        team=team,
        accelerator=Accelerator.objects.get(slug="nvidia-h100-sxm5-80gb"),
        source="quote from Example Systems, ref Q-7",
    )
    reference = Price.objects.filter(team__isnull=True).order_by("pk").first()
    fault = fault_entry_create(
        team=team,
        user=admin,
        title_en="Checkpoint write stalls",
        category="throughput",
        patterns="LustreError",
        checks="lctl dl",
    )
    incident = fault_incident_create(
        team=team,
        user=admin,
        entry=fault,
        happened_on=site.created_at.date(),
        what_happened="Stall",
    )
    return {
        "faults": [fault],
        "incident": incident,
        "prices": [quote, reference],
        "site": site,
        "rack_group": group,
        "rack": rack,
        "equipment": equipment,
        "feed": feed,
        "workload": workload,
        "plan": plan,
        "hopeless": hopeless,
        "simulations": simulations,
        "profile": profile,
    }


SIMULATIONS = (
    {
        "kind": "training",
        "trials": 100,
        "estimate": {
            "task": "train",
            "model": "meta-llama-3-8b",
            "accelerator": "nvidia-h100-sxm5-80gb",
            "count": 64,
        },
    },
    {
        "kind": "serving",
        "rate_per_s": 5,
        "requests": 500,
        "ttft_slo_ms": 500,
        "estimate": {
            "task": "inference",
            "model": "meta-llama-3-8b",
            "accelerator": "nvidia-l40s",
            "count": 1,
        },
    },
)


def _finished(question: dict) -> Simulation:
    result = simulation_question(data=question).run()
    now = timezone.now()
    return Simulation.objects.create(
        kind=question["kind"],
        inputs=question,
        inputs_hash=inputs_hash(question),
        status=SimulationStatus.SUCCEEDED,
        progress=1.0,
        result=result,
        queued_at=now,
        started_at=now,
        finished_at=now,
    )


def _urls(name: str, world: dict) -> list[str]:
    """The page's URLs over the world's rows (every simulation for the simulation pages)."""
    short = name.split(":")[-1]
    by_prefix = {
        "site_": [world["site"].pk],
        "rackgroup_create": [world["site"].pk],
        "rack_import": [world["site"].pk],
        "rack_create": [world["rack_group"].pk],
        "rack_": [world["rack"].pk],
        "equipment_create": [world["rack"].pk],
        "equipment_": [world["equipment"].pk],
        "feed_create": [world["rack"].pk],
        "feed_": [world["feed"].pk],
        "rackgroup_": [world["rack_group"].pk],
        "workload_create": ["train", "finetune", "serve"],
        "workload_": [world["workload"].pk],
        "plan_": [world["plan"].pk, world["hopeless"].pk],
        "simulation_create": ["training", "serving"],
        "simulation_": [s.pk for s in world["simulations"]],
        "calibration_": [world["profile"].pk],
        "price_": [p.pk for p in world["prices"]],
        "fault_incident_": [world["incident"].pk],
        "fault_": [f.pk for f in world["faults"]],
        "accelerator_detail": ["nvidia-h100-sxm5-80gb"],
        "server_detail": ["nvidia-dgx-h100"],
        "fabric_detail": ["ib-ndr-400"],
        "model_detail": ["meta-llama-3-8b"],
        "token_revoke": [1],
    }
    query = QUERIES.get(name, "")
    if short == "fit":  # the question, then an answer of the site's racks, then a plan's build
        return [
            reverse(name),
            reverse(name) + f"?site={world['site'].pk}&server=nvidia-dgx-h100&quantity=3",
            reverse(name) + f"?plan={world['plan'].pk}&build=0",
        ]
    if short.startswith("plan_candidate"):  # a plan and one of its builds
        return [reverse(name, args=[world["plan"].pk, cid]) + query for cid in (0, 1)]
    try:
        return [reverse(name) + query]
    except NoReverseMatch:  # the page takes an argument
        pass
    for prefix, args in by_prefix.items():
        if short.startswith(prefix):
            return [reverse(name, args=[arg]) + query for arg in args]
    raise AssertionError(f"the walk does not know what {name} takes; add it to _urls")


def english_sentences() -> list[re.Pattern[str]]:
    """The engine's sentences in English, as patterns: each template's literal runs of
    SENTENCE_CHARS or more, its figures anything."""
    patterns = []
    for template in TEMPLATES.values():
        for form in {template, getattr(template, "one", template)}:  # a plural's two forms
            runs = [r for r in re.split(r"{[^}]*}", form) if len(r.strip()) >= SENTENCE_CHARS]
            patterns.extend(re.compile(re.escape(r.strip())) for r in runs)
    return patterns


def test_every_page_answers_in_both_languages_and_chinese_has_no_english_sentence(cast, world):
    client = cast.browser("admin")
    sentences = english_sentences()
    walked = 0
    for name in url_names():
        for url in _urls(name, world):
            for language in LANGUAGES:
                response = client.get(url, HTTP_ACCEPT_LANGUAGE=language)
                assert response.status_code < 500, (url, language)
                if response.status_code in (302, 403, 404, 405):
                    continue
                # 200, or 400 for a page that explains what it lacks (compare with no builds).
                assert response.status_code in (200, 400), (url, language)
                walked += 1
                body = response.content.decode()
                assert "<html" in body and "</html>" in body, (url, "not a whole page")
                if language == "zh-hans":
                    found = [p.pattern for p in sentences if p.search(body)]
                    assert found == [], (url, found[:3])
    assert walked > 60  # the walk reached the pages, not only their redirects


def test_the_walk_would_catch_an_english_sentence(world):
    """The check above can fail: an English reason on a page matches a pattern."""
    body = "<li>does not fit in memory (at least 295.7 GiB per device for weights</li>"
    assert any(p.search(body) for p in english_sentences())


def test_the_walk_knows_every_page():
    names = url_names()
    assert "planner:plan_detail" in names and "catalog:accelerator_list" in names
    assert len(names) > 30
