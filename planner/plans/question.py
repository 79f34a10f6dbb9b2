"""A recommend question (the JSON of `manage.py recommend` and the plans API) turned into the
engine's PlanQuestion, with options from the catalog and racks from the site."""

from __future__ import annotations

from typing import Any

from catalog.currency import convert
from catalog.models import Accelerator, ServerPlatform
from planner.adapters import accelerator_spec
from planner.engine import RequestError
from planner.engine.facility import RackSpec
from planner.engine.recommend import AcceleratorOption, PlanQuestion, RackGroupOption, ServerOption
from planner.engine.request import _choice, _mapping, _number, _optional_mapping, _unknown_keys
from planner.engine.scoring import DIMENSIONS
from planner.estimates.services import consumer_cooled, estimate_request, server_facility_spec
from planner.models import Site

TOP_LEVEL_KEYS = {
    "workload",
    "site",
    "budget",
    "years",
    "limit",
    "vendors",
    "stacks",
    "accelerators",
    "count",
    "deadline_days",
    "target_rps",
    "ttft_ms",
    "tpot_ms",
    "rent_per_gpu_hour",
    "weights",
    "name",
    "calibration",
}
# Stand-in for validating the workload before each candidate's card replaces it.
ANY_CARD = {
    "memory_gib": 1000,
    "memory_bw_gb_s": 1000,
    "tflops": dict.fromkeys(("fp32", "tf32", "bf16", "fp16", "fp8", "int8", "int4"), 1),
}


def _calibration(profile_id: Any, user):
    """(accelerator slug, CalibrationSpec) of a profile the caller may see, or None: builds
    on that card use its measured figures, the others the engine's defaults."""
    if profile_id is None:
        return None
    from planner.calibrations.services import calibration_spec, usable_profile

    profile = usable_profile(profile_id=profile_id, user=user)
    return profile.accelerator.slug, calibration_spec(profile)


def _workload(data) -> Any:
    workload = dict(_mapping(data, "workload"))
    for key in ("accelerator", "count", "parallelism", "per_node"):
        if key in workload:
            raise RequestError(f"workload.{key}", "is chosen by the plan, one per candidate")
    try:
        # Slugs resolve through the catalog; the stand-in card only lets validation pass.
        request = estimate_request(data={**workload, "accelerator": ANY_CARD, "count": 1})
    except RequestError as exc:
        raise RequestError(f"workload.{exc.field}", exc.message) from None
    return request


def _racks(
    site_data, *, user_site: Site | None
) -> tuple[tuple[RackGroupOption, ...], float, float | None, str | None]:
    """Rack groups, PUE, price per kWh and that price's currency."""
    if user_site is not None:
        racks = tuple(
            RackGroupOption(
                g.name,
                RackSpec(
                    power_kw=g.power_kw,
                    cooling_kw=g.cooling_kw,
                    units=g.units,
                    max_kg=g.max_kg,
                    inlet_c=g.inlet_c,
                    cooling=g.cooling,
                    liquid_loops=g.liquid_loops,
                    feeds=g.feeds,
                ),
                g.count,
            )
            for g in user_site.rack_groups.all()
        )
        return racks, user_site.pue, float(user_site.electricity_price_per_kwh), user_site.currency
    if site_data is None:
        return (), 1.3, None, None
    site = _mapping(site_data, "site")
    _unknown_keys(site, {"racks", "pue", "price_per_kwh", "currency"}, "site")
    groups = []
    for i, rack in enumerate(site.get("racks") or []):
        path = f"site.racks[{i}]"
        r = _mapping(rack, path)
        _unknown_keys(
            r,
            {
                "name",
                "count",
                "power_kw",
                "cooling_kw",
                "units",
                "max_kg",
                "inlet_c",
                "cooling",
                "feeds",
                "liquid_loops",
            },
            path,
        )
        power = float(
            _number(r, "power_kw", f"{path}.power_kw", minimum=0.1, maximum=250, required=True)
        )
        groups.append(
            RackGroupOption(
                str(r.get("name") or f"racks {i + 1}"),
                RackSpec(
                    power_kw=power,
                    cooling_kw=float(
                        _number(
                            r,
                            "cooling_kw",
                            f"{path}.cooling_kw",
                            minimum=0.1,
                            maximum=250,
                            default=power,
                        )
                    ),
                    units=_number(
                        r, "units", f"{path}.units", integer=True, minimum=1, maximum=60, default=42
                    ),
                    max_kg=float(
                        _number(
                            r, "max_kg", f"{path}.max_kg", minimum=1, maximum=5000, default=1200
                        )
                    ),
                    inlet_c=float(
                        _number(r, "inlet_c", f"{path}.inlet_c", minimum=5, maximum=45, default=25)
                    ),
                    cooling=_choice(
                        r, "cooling", f"{path}.cooling", ("air", "rdhx", "liquid"), "air"
                    ),
                    liquid_loops=r.get("liquid_loops"),
                    feeds=_choice(r, "feeds", f"{path}.feeds", ("single", "2n"), "single"),
                ),
                _number(
                    r, "count", f"{path}.count", integer=True, minimum=1, maximum=100_000, default=1
                ),
            )
        )
    pue = float(_number(site, "pue", "site.pue", minimum=1, maximum=3, default=1.3))
    price = _number(site, "price_per_kwh", "site.price_per_kwh", minimum=0)
    currency = _choice(site, "currency", "site.currency", ("USD", "CNY"), "USD")
    return tuple(groups), pue, None if price is None else float(price), currency


def plan_question(
    *, data: Any, site: Site | None = None, sites=None, user=None
) -> tuple[PlanQuestion, str, int]:
    """Validate a recommend question; returns the engine question, its currency and the
    number of candidates to show."""
    data = _mapping(data, "request")
    _unknown_keys(data, TOP_LEVEL_KEYS, "")
    if "workload" not in data:
        raise RequestError(
            "workload",
            "is required: the job, as an estimate question without accelerator and count",
        )
    workload = _workload(data["workload"])
    if site is None and isinstance(data.get("site"), str):
        # A saved site by name, as `manage.py recommend` takes it.
        # Only among the sites the caller may see (every site for the command line).
        matches = list(
            (Site.objects.all() if sites is None else sites).filter(name=data["site"])[:2]
        )
        if len(matches) != 1:
            problem = "no saved site is" if not matches else "more than one team has a site"
            raise RequestError(
                "site", f"{problem} named {data['site']!r}; give the racks inline instead"
            )
        site = matches[0]
    elif site is None and data.get("site") is not None and not isinstance(data.get("site"), dict):
        raise RequestError("site", "must be a site's name or an object with racks")
    racks, pue, price_per_kwh, price_currency = _racks(data.get("site"), user_site=site)
    budget = _optional_mapping(data, "budget")
    _unknown_keys(budget, {"capex", "tco", "currency"}, "budget")
    currency = _choice(
        budget,
        "currency",
        "budget.currency",
        ("USD", "CNY"),
        site.currency if site else (price_currency or "USD"),
    )
    count = _optional_mapping(data, "count")
    _unknown_keys(count, {"min", "max"}, "count")
    min_count = _number(
        count, "min", "count.min", integer=True, minimum=1, maximum=100_000, default=1
    )
    max_count = _number(
        count,
        "max",
        "count.max",
        integer=True,
        minimum=min_count,
        maximum=100_000,
        default=max(min_count, 1024),
    )
    weights = _optional_mapping(data, "weights")
    _unknown_keys(weights, DIMENSIONS, "weights")
    for key in weights:
        _number(weights, key, f"weights.{key}", minimum=0, maximum=100)

    cards = Accelerator.objects.all().order_by("slug")
    if data.get("accelerators"):
        wanted = data["accelerators"]
        if not isinstance(wanted, list) or not all(isinstance(s, str) for s in wanted):
            raise RequestError("accelerators", "must be a list of accelerator slugs")
        unknown = sorted(
            set(wanted) - set(cards.filter(slug__in=wanted).values_list("slug", flat=True))
        )
        if unknown:
            raise RequestError("accelerators", f"unknown accelerator {unknown[0]!r}")
        cards = cards.filter(slug__in=wanted)
    for key, field in (("vendors", "vendor__in"), ("stacks", "software_stack__in")):
        if data.get(key):
            values = data[key]
            if not isinstance(values, list):
                raise RequestError(key, "must be a list")
            cards = cards.filter(**{field: values})
    cards = list(cards)
    measured = _calibration(data.get("calibration"), user)
    options = tuple(
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
            price=convert(a.best_price, a.price_currency, currency),
            calibration=measured[1] if measured and measured[0] == a.slug else None,
        )
        for a in cards
    )
    by_slug = {a.slug: a for a in cards}
    servers = []
    for server in ServerPlatform.objects.select_related("fixed_accelerator").order_by("slug"):
        takes = [a for a in cards if server.accepts(a)]
        if not takes:
            continue
        servers.append(
            ServerOption(
                slug=server.slug,
                slots=server.accelerator_slots,
                fits=frozenset(a.slug for a in takes),
                facility={a.slug: server_facility_spec(server, by_slug[a.slug]) for a in takes},
                price=convert(server.price, server.price_currency, currency),
            )
        )
    question = PlanQuestion(
        workload=workload,
        accelerators=options,
        servers=tuple(servers),
        racks=racks,
        pue=pue,
        price_per_kwh=convert(price_per_kwh, price_currency or currency, currency)
        if price_per_kwh is not None
        else None,
        years=float(_number(data, "years", "years", minimum=0.25, maximum=15, default=4)),
        capex_budget=_number(budget, "capex", "budget.capex", minimum=0),
        tco_budget=_number(budget, "tco", "budget.tco", minimum=0),
        min_count=min_count,
        max_count=max_count,
        deadline_days=_number(data, "deadline_days", "deadline_days", minimum=0.001),
        target_rps=_number(data, "target_rps", "target_rps", minimum=0.001),
        ttft_ms=_number(data, "ttft_ms", "ttft_ms", minimum=0.001),
        tpot_ms=_number(data, "tpot_ms", "tpot_ms", minimum=0.001),
        rent_per_gpu_hour=_number(data, "rent_per_gpu_hour", "rent_per_gpu_hour", minimum=0),
        weights=dict(weights) or None,
    )
    limit = _number(data, "limit", "limit", integer=True, minimum=1, maximum=1000, default=10)
    return question, currency, limit
