"""A recommend question (the JSON of `manage.py recommend` and the plans API), validated by the
contract and turned into the engine's PlanQuestion, with options from the catalog and racks
from the site."""

from __future__ import annotations

from typing import Any, TypeVar

from django.db.models import Model, QuerySet
from django.utils.translation import gettext_noop as _

from catalog.currency import convert
from catalog.models import Accelerator, Fabric, ServerPlatform
from planner.adapters import accelerator_spec, consumer_cooled, server_facility_spec
from planner.engine import RequestError
from planner.engine.contract import parse
from planner.engine.contract.plan import InlineSite, RecommendQuestion, Workload
from planner.engine.recommend import AcceleratorOption, PlanQuestion, RackGroupOption, ServerOption
from planner.engine.specs import CalibrationSpec, EstimateRequest
from planner.estimates.services import catalog_resolvers
from planner.models import Site
from planner.plans.pricing import price_list
from planner.prices.selectors import price_book
from planner.racks.selectors import site_free_racks

# Without a site: no rack limits, and the PUE a planner would assume for a modern hall.
DEFAULT_PUE = 1.3
NO_SITE: tuple[tuple[RackGroupOption, ...], float, float | None, str | None] = (
    (),
    DEFAULT_PUE,
    None,
    None,
)


def workload_request(*, data: Any) -> EstimateRequest:
    """A workload (an estimate question without accelerator and count) as the engine's request
    on a stand-in card; `RequestError` names the field under "workload" as the form shows it."""
    workload = parse(Workload, data, root="workload")
    resolvers = catalog_resolvers()
    return workload.to_request(
        resolve_model=resolvers["resolve_model"], resolve_fabric=resolvers["resolve_fabric"]
    )


def _calibration(profile_id: int | None, user) -> tuple[str, CalibrationSpec] | None:
    """(accelerator slug, CalibrationSpec) of a profile the caller may see, or None: builds
    on that card use its measured figures, the others the engine's defaults."""
    if profile_id is None:
        return None
    from planner.calibrations.services import calibration_spec, usable_profile

    profile = usable_profile(profile_id=profile_id, user=user)
    return profile.accelerator.slug, calibration_spec(profile)


def _saved_site_racks(site: Site, except_plan_id: int | None) -> tuple[RackGroupOption, ...]:
    """The site's free capacity: each rack's limits less what is installed and what other
    plans hold (planner.racks.selectors.site_free_racks)."""
    return tuple(
        RackGroupOption(name, rack, count)
        for name, rack, count in site_free_racks(site=site, except_plan_id=except_plan_id)
    )


def _named_site(name: str, sites: QuerySet[Site] | None) -> Site:
    """A saved site by name, as `manage.py recommend` takes it: only among the sites the caller
    may see (every site for the command line)."""
    matches = list((Site.objects.all() if sites is None else sites).filter(name=name)[:2])
    if len(matches) != 1:
        template = (
            _("no saved site is named {name}; give the racks inline instead")
            if not matches
            else _("more than one team has a site named {name}; give the racks inline instead")
        )
        raise RequestError("site", template, name=repr(name))
    return matches[0]


R = TypeVar("R", bound=Model)


def _named(rows: QuerySet[R], wanted: list[str], field: str, unknown_template: str) -> QuerySet[R]:
    """The catalog rows whose slugs the question names; a RequestError naming `field` and the
    first unknown slug when one is not in the catalog."""
    known = set(rows.filter(slug__in=wanted).values_list("slug", flat=True))
    unknown = sorted(set(wanted) - known)
    if unknown:
        raise RequestError(field, unknown_template, slug=repr(unknown[0]))
    return rows.filter(slug__in=wanted)


def _cards(question: RecommendQuestion) -> list[Accelerator]:
    cards = Accelerator.objects.all().order_by("slug")
    if question.accelerators:
        cards = _named(
            cards, question.accelerators, "accelerators", _("unknown accelerator {slug}")
        )
    if question.vendors:
        cards = cards.filter(vendor__in=question.vendors)
    if question.stacks:
        cards = cards.filter(software_stack__in=question.stacks)
    return list(cards)


def _options(
    cards: list[Accelerator], measured: tuple[str, CalibrationSpec] | None
) -> tuple[AcceleratorOption, ...]:
    return tuple(
        AcceleratorOption(
            slug=a.slug,
            spec=accelerator_spec(a),
            vendor=a.vendor,
            software_stack=a.get_software_stack_display(),
            training_maturity=a.training_maturity,
            inference_maturity=a.inference_maturity,
            ecc=a.ecc,
            mig_instances=a.mig_instances,
            scale_up_link=a.scale_up_link,
            consumer_cooling=consumer_cooled(a),
            calibration=measured[1] if measured and measured[0] == a.slug else None,
        )
        for a in cards
    )


def _servers(cards: list[Accelerator], wanted: list[str] | None) -> tuple[ServerOption, ...]:
    """The catalog's servers (those named in the question, when it names some), each with the
    chosen accelerators its vendor sells or validates it with."""
    rows = ServerPlatform.objects.order_by("slug")
    if wanted:
        rows = _named(rows, wanted, "servers", _("unknown server platform {slug}"))
    servers = []
    for server in rows:
        takes = [a for a in cards if server.takes(a)]
        if not takes:
            continue
        servers.append(
            ServerOption(
                slug=server.slug,
                slots=server.accelerator_slots,
                fits=frozenset(a.slug for a in takes),
                facility={a.slug: server_facility_spec(server, a) for a in takes},
                whole_only=server.whole_systems_only,
                max_power_kw=server.max_power_kw,
                base_power_w=server.base_power_w,
                nic_ports=server.network_ports,
                nic_gbps=float(server.network_port_gbps or 0),
            )
        )
    return tuple(servers)


def _site_limits(
    question: RecommendQuestion, site: Site | None, except_plan_id: int | None = None
) -> tuple[tuple[RackGroupOption, ...], float, float | None, str | None]:
    """Rack groups, PUE, price per kWh and that price's currency."""
    if site is not None:
        price = float(site.electricity_price_per_kwh)
        return _saved_site_racks(site, except_plan_id), site.pue, price, site.currency
    if not isinstance(question.site, InlineSite):
        return NO_SITE
    inline = question.site
    racks = tuple(group.option(i) for i, group in enumerate(inline.racks))
    price = None if inline.price_per_kwh is None else float(inline.price_per_kwh)
    return racks, float(inline.pue), price, inline.currency


def _switch_radix(fabric_slug: str) -> int | None:
    """Ports per switch of the workload's catalog fabric (an inline fabric has none)."""
    if not fabric_slug:
        return None
    return Fabric.objects.filter(slug=fabric_slug).values_list("switch_radix", flat=True).first()


def plan_question(
    *,
    data: Any,
    site: Site | None = None,
    sites: QuerySet[Site] | None = None,
    user=None,
    team=None,
    except_plan_id: int | None = None,
) -> tuple[PlanQuestion, str, int]:
    """Validate a recommend question; returns the engine question, its currency and the
    number of candidates to show. Prices come from `team`'s price book (the reference list
    alone without a team)."""
    question = parse(RecommendQuestion, data)
    resolvers = catalog_resolvers()
    try:
        workload = question.workload.to_request(
            resolve_model=resolvers["resolve_model"], resolve_fabric=resolvers["resolve_fabric"]
        )
    except RequestError as exc:
        raise exc.under("workload") from None
    if site is None and isinstance(question.site, str):
        site = _named_site(question.site, sites)
    racks, pue, price_per_kwh, price_currency = _site_limits(question, site, except_plan_id)
    currency = question.budget.currency or (site.currency if site else (price_currency or "USD"))
    cards = _cards(question)
    measured = _calibration(question.calibration, user)
    engine_question = PlanQuestion(
        workload=workload,
        accelerators=_options(cards, measured),
        servers=_servers(cards, question.servers),
        racks=racks,
        pue=pue,
        price_per_kwh=convert(price_per_kwh, price_currency or currency, currency)
        if price_per_kwh is not None
        else None,
        years=float(question.years),
        capex_budget=question.budget.capex,
        tco_budget=question.budget.tco,
        min_count=question.count.min,
        max_count=question.count.upper,
        deadline_days=question.deadline_days,
        target_rps=question.target_rps,
        ttft_ms=question.ttft_ms,
        tpot_ms=question.tpot_ms,
        weights=question.weights.given() or None,
        prices=price_list(
            price_book(team=team), currency=currency, rent_per_gpu_hour=question.rent_per_gpu_hour
        ),
        utilisation=question.utilisation,
        objective=question.objective,
        currency=currency,
        fabric_radix=_switch_radix(workload.fabric.name),
        fabric_given=question.workload.fabric is not None,
    )
    return engine_question, currency, question.limit
