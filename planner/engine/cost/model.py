"""What a build costs, every line naming its price: capex (cards and servers, or complete
systems; the network; racks), support, depreciation, energy from the fleet's busy and idle
draw, the total cost of ownership over the plan's horizon, the rent cost of the same job, and
the month buying overtakes renting.

Amounts are in the one currency the prices were converted to (planner.engine.cost.prices); a
line whose price is missing says so, and the capex is only given when the cards and servers
(or the systems) are all priced: a total without its largest item would mislead more than
none. Network items and racks without a price are named as left out instead."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from planner.engine.cost.network import fat_tree
from planner.engine.cost.prices import PriceList, UnitPrice
from planner.engine.messages import Message, message

HOURS_PER_YEAR = 8760
HOURS_PER_MONTH = HOURS_PER_YEAR / 12
# Depreciation when the price names none: Amazon shortened its servers' useful life from six
# to five years in 2025 for the pace of AI hardware (Amazon 10-K for 2024, note 1), the
# shortest of the large operators (Alphabet and Microsoft six, Meta five and a half).
DEFAULT_DEPRECIATION_YEARS = 5

Basis = Literal["tco", "rent"]
COMPUTE_ITEMS = ("accelerator", "server", "system")


@dataclass(frozen=True)
class Usage:
    """How busy the fleet is over the horizon: `busy_share` of its hours at `busy_kw`, the rest
    idle. A training job runs `job_hours`; serving runs all the time (job_hours None)."""

    busy_share: float
    job_hours: float | None
    why: Message


@dataclass(frozen=True)
class CostBuild:
    accelerator: str
    server: str
    nodes: int
    per_node: int
    whole_system: bool  # bought as complete systems when a system price exists
    fabric: str | None  # the scale-out fabric's slug; None inside one server
    fabric_radix: int | None
    nic_ports: int  # scale-out ports per server
    racks: int | None  # racks the site fit fills; None without a site
    busy_kw: float  # per server
    idle_kw: float  # per server
    pue: float
    price_per_kwh: float | None
    years: float
    usage: Usage

    @property
    def count(self) -> int:
        return self.nodes * self.per_node


@dataclass(frozen=True)
class CostLine:
    item: str  # accelerator | server | system | nic | switch_port | cable | transceiver | rack
    name: str  # catalog slug or item name
    quantity: int
    price: UnitPrice | None

    @property
    def amount(self) -> float | None:
        return None if self.price is None else self.quantity * self.price.amount

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"item": self.item, "name": self.name, "quantity": self.quantity}
        if self.price is None:
            return {**out, "origin": "missing", "unit": None, "amount": None}
        amount = self.amount
        return {
            **out,
            **self.price.as_dict(),
            "amount": None if amount is None else round(amount, 2),
        }


def item_label(item: str) -> Message:
    """What a line is for ("switch ports"), as a label inside a sentence."""
    return message(f"item.{item}")


def _money(x: float | None) -> float | None:
    return None if x is None else round(x, 2)


@dataclass(frozen=True)
class Cost:
    lines: tuple[CostLine, ...]
    capex: float | None  # None when a card, server or system has no price
    support_per_year: float | None
    depreciation_per_year: float | None
    energy_kwh_per_year: float
    energy_per_year: float | None  # None without an electricity price
    tco: float | None
    years: float
    usage: Usage
    rent: CostLine | None  # accelerator-hours at the rate, for the job
    rent_job: float | None
    rent_per_year: float | None  # the busy hours of a year, rented
    breakeven_months: float | None  # None: renting stays cheaper, or a figure is unknown
    basis: Basis | None  # what `amount` is: the TCO, else the rent of the job
    amount: float | None
    notes: tuple[Message, ...]

    def as_dict(self) -> dict[str, Any]:
        return {
            "basis": self.basis,
            "amount": _money(self.amount),
            "capex": _money(self.capex),
            "tco": _money(self.tco),
            "years": self.years,
            "support_per_year": _money(self.support_per_year),
            "depreciation_per_year": _money(self.depreciation_per_year),
            "energy_kwh_per_year": round(self.energy_kwh_per_year, 1),
            "energy_per_year": _money(self.energy_per_year),
            "busy_share": round(self.usage.busy_share, 4),
            "usage": self.usage.why.as_dict(),
            "rent_per_gpu_hour": None
            if self.rent is None or self.rent.price is None
            else round(self.rent.price.amount, 4),
            "rent_job": _money(self.rent_job),
            "rent_per_year": _money(self.rent_per_year),
            "rent_line": None if self.rent is None else self.rent.as_dict(),
            "breakeven_months": None
            if self.breakeven_months is None
            else round(self.breakeven_months, 1),
            "lines": [line.as_dict() for line in self.lines],
            "missing": sorted({line.item for line in self.lines if line.price is None}),
            "notes": [n.as_dict() for n in self.notes],
        }


def compute_lines(build: CostBuild, prices: PriceList) -> list[CostLine]:
    """Complete systems where the build fills them and a system price exists; else the cards
    and the bare servers."""
    system = prices.systems.get((build.server, build.accelerator))
    if build.whole_system and system is not None:
        return [CostLine("system", build.server, build.nodes, system)]
    return [
        CostLine(
            "accelerator",
            build.accelerator,
            build.count,
            prices.accelerators.get(build.accelerator),
        ),
        CostLine("server", build.server, build.nodes, prices.servers.get(build.server)),
    ]


def network_lines(build: CostBuild, prices: PriceList, *, in_system: bool) -> list[CostLine]:
    """The scale-out fabric of a multi-server build: NICs (a complete system ships with its
    own), switch ports and links, as a non-blocking fat tree."""
    if build.nodes <= 1 or build.fabric is None or build.nic_ports <= 0:
        return []
    parts = fat_tree(build.nodes * build.nic_ports, build.fabric_radix)
    fabric = build.fabric

    def line(item: str, quantity: int) -> CostLine:
        return CostLine(item, fabric, quantity, prices.network.get((item, fabric)))

    out = [] if in_system else [line("nic", parts.endpoint_ports)]
    out.append(line("switch_port", parts.switch_ports))
    cable = line("cable", parts.links)
    transceiver = prices.network.get(("transceiver", fabric))
    # An active optical cable carries its ends; transceivers count only beside a bare cable.
    if transceiver is not None:
        out.append(CostLine("transceiver", fabric, 2 * parts.links, transceiver))
    out.append(cable)
    return out


def _sum(lines: list[CostLine]) -> float:
    return sum(line.amount or 0.0 for line in lines)


def _yearly(lines: list[CostLine]) -> tuple[float, float, list[Message]]:
    """Support and depreciation per year over the priced lines."""
    support = depreciation = 0.0
    unknown_support: set[str] = set()
    for line in lines:
        if line.price is None or line.amount is None:
            continue
        share = line.price.support_share_per_year
        if share is None:
            unknown_support.add(line.item)
        else:
            support += share * line.amount
        years = line.price.depreciation_years or DEFAULT_DEPRECIATION_YEARS
        depreciation += line.amount / years
    notes = []
    if unknown_support:
        notes.append(
            message("cost.support_unknown", items=[item_label(i) for i in sorted(unknown_support)])
        )
    return support, depreciation, notes


def _age_notes(lines: list[CostLine]) -> list[Message]:
    """Warnings for prices past their validity or more than a year old."""
    expired = sorted({line.item for line in lines if line.price and line.price.expired})
    stale = sorted(
        {line.item for line in lines if line.price and line.price.stale and not line.price.expired}
    )
    notes = []
    if expired:
        notes.append(message("cost.price_expired", items=[item_label(i) for i in expired]))
    if stale:
        notes.append(message("cost.price_stale", items=[item_label(i) for i in stale]))
    return notes


def _energy(build: CostBuild) -> tuple[float, float | None]:
    """kWh a year at the facility meter, and what it costs: busy hours at load, the rest idle."""
    share = min(max(build.usage.busy_share, 0.0), 1.0)
    server_kw = share * build.busy_kw + (1 - share) * build.idle_kw
    kwh = build.nodes * server_kw * build.pue * HOURS_PER_YEAR
    return kwh, None if build.price_per_kwh is None else kwh * build.price_per_kwh


def _rent(
    build: CostBuild, prices: PriceList
) -> tuple[CostLine | None, float | None, float | None]:
    """The rent line (accelerator-hours of the job), its total and a year of busy hours."""
    rate = prices.rent_rate(build.accelerator)
    if rate is None:
        return None, None, None
    hours = (
        build.usage.job_hours if build.usage.job_hours is not None else build.years * HOURS_PER_YEAR
    )
    line = CostLine("rent", build.accelerator, max(1, round(build.count * hours)), rate)
    job = build.count * hours * rate.amount
    per_year = build.count * HOURS_PER_YEAR * build.usage.busy_share * rate.amount
    return line, job, per_year


def cost(build: CostBuild, prices: PriceList) -> Cost:
    compute = compute_lines(build, prices)
    in_system = compute[0].item == "system"
    lines = compute + network_lines(build, prices, in_system=in_system)
    if build.racks:
        lines.append(CostLine("rack", "rack", build.racks, prices.rack))
    notes: list[Message] = []
    capex = None if any(line.price is None for line in compute) else _sum(lines)
    left_out = sorted({line.item for line in lines if line.price is None} - set(COMPUTE_ITEMS))
    if capex is None:
        notes.append(message("cost.no_purchase_price"))
    elif left_out:
        notes.append(message("cost.left_out", items=[item_label(i) for i in left_out]))
    support, depreciation, support_notes = _yearly(lines)
    notes += support_notes
    notes += _age_notes(lines)
    kwh, energy = _energy(build)
    if energy is None:
        notes.append(message("cost.no_electricity_price"))
    tco = None if capex is None else capex + build.years * (support + (energy or 0.0))
    rent_line, rent_job, rent_per_year = _rent(build, prices)
    breakeven = None
    if capex is not None and rent_per_year is not None:
        saving = (rent_per_year - support - (energy or 0.0)) / 12
        breakeven = capex / saving if saving > 0 else None
    basis: Basis | None = "tco" if tco is not None else "rent" if rent_job is not None else None
    return Cost(
        lines=tuple(lines),
        capex=capex,
        support_per_year=support if capex is not None else None,
        depreciation_per_year=depreciation if capex is not None else None,
        energy_kwh_per_year=kwh,
        energy_per_year=energy,
        tco=tco,
        years=build.years,
        usage=build.usage,
        rent=rent_line,
        rent_job=rent_job,
        rent_per_year=rent_per_year,
        breakeven_months=breakeven,
        basis=basis,
        amount=tco if basis == "tco" else rent_job,
        notes=tuple(notes),
    )
