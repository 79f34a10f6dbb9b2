"""Facility fit: how many servers one rack holds, what binds, how many racks a fleet needs, what
it draws in a year, and how hot inlet air costs clocks.

The seeds' rule of thumb: a rack takes 10-15 kW and an 8-GPU A100 server draws 6.5 kW, so a
10 kW rack holds one; cooling is sized to the rack's power; open-air cards crammed into a 2U
chassis overheat. Servers per rack is the smallest of the power, cooling, space and weight
limits, and zero where the server needs liquid loops the rack lacks.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from planner.engine.efficiency import CONSUMER_THERMAL_FACTOR
from planner.engine.messages import Message, binding_label, message

RackCooling = Literal["air", "rdhx", "liquid"]
ServerCooling = Literal["air", "liquid"]
Airflow = Literal["front_to_back", "desktop"]
Feeds = Literal["single", "2n"]

RACK_COOLING = ("air", "rdhx", "liquid")
SERVER_COOLING = ("air", "liquid")
AIRFLOW = ("front_to_back", "desktop")
FEEDS = ("single", "2n")
LIMITS = ("power", "cooling", "units", "weight")

HOURS_PER_YEAR = 8760
# Typical cold-aisle set point: ASHRAE TC 9.9 recommends 18-27 °C at the server inlet.
DEFAULT_INLET_C = 25.0
# ASHRAE A2 allows up to 35 °C at the inlet of air-cooled IT equipment; most GPU servers (DGX
# A100/H100 among them) are rated for it.
DEFAULT_MAX_INLET_C = 35.0
# Thermal derating above the rated inlet, a planning assumption: GPU boost clocks drop as the
# inlet approaches and passes the rating (the seeds: "机房温度高几度GPU就会降频"), but NVIDIA and
# ASHRAE publish ratings, not a curve. We take 3 % of clock per °C over for air-cooled servers,
# 1 % for liquid-cooled ones (their cold plates barely see the room air), never below half.
AIR_DERATE_PER_C = 0.03
LIQUID_DERATE_PER_C = 0.01
MIN_ETA_THERMAL = 0.5
# Ratios such as 13 kW / 6.5 kW must floor to 2, not to 1 through rounding error.
_FLOOR_TOLERANCE = 1e-9

# What a fleet draws on average, for its energy (the rack fit keeps the rated maximum):
# - idle cards about a tenth of board power: H200s read 73.65 W and 80.3 W idle on nvidia-smi
#   against 700 W (conservemode.com case studies; api.serialalice.pt/alice-benchmark, 2026);
# - no source measures a whole 8-GPU server idle, so its platform (CPUs, fans, NICs) counts at
#   its full base load even then: an upper bound;
# - training, the node averages 76 % of its rating (8 x H100, 10.2 kW rated; Newkirk et al.,
#   arXiv 2506.14551, 2025; the peak seen was 82 %, Latif et al., IEEE Access 13, 2025);
# - serving, cards near half their board power: decode drew 137-300 W of 700 W on H200 (Ma et
#   al., arXiv 2605.11999, 2026), batched serving about 74 %; the platform at its base load.
CARD_IDLE_SHARE = 0.10
PLATFORM_IDLE_SHARE = 1.0
TRAINING_DRAW_SHARE = 0.76
SERVING_CARD_SHARE = 0.5

THERMAL_RISK = message("fit.thermal_risk")


@dataclass(frozen=True)
class RackSpec:
    """One rack as the facility team describes it. With A/B (2N) feeds, `power_kw` is what ONE
    feed carries: either feed must be able to take the whole load when the other fails."""

    power_kw: float
    cooling_kw: float
    units: int
    max_kg: float
    inlet_c: float = DEFAULT_INLET_C
    cooling: RackCooling = "air"  # room air | rear-door heat exchanger | direct liquid
    liquid_loops: bool | None = None  # None: only a "liquid" rack has them
    feeds: Feeds = "single"

    def __post_init__(self) -> None:
        if self.liquid_loops is None:
            object.__setattr__(self, "liquid_loops", self.cooling == "liquid")


@dataclass(frozen=True)
class ServerFacilitySpec:
    """What a server asks of the facility."""

    power_kw: float  # maximum system draw, also the heat it rejects
    units: int
    kg: float | None = None
    cooling: ServerCooling = "air"
    airflow: Airflow = "front_to_back"
    accelerators: int = 0
    open_air_cards: bool = False  # consumer cards with open-air or blower coolers
    # ASHRAE A2 upper bound for air-cooled IT equipment.
    max_inlet_c: float = DEFAULT_MAX_INLET_C
    power_estimated: bool = False  # derived from the accelerators, not published
    power_note: Message | None = None  # how an estimated power was derived
    name: str = ""


@dataclass(frozen=True)
class FitRequest:
    rack: RackSpec
    server: ServerFacilitySpec
    servers: int = 1
    pue: float = 1.0
    price_per_kwh: float | None = None


@dataclass(frozen=True)
class FitResult:
    servers_per_rack: int
    racks_needed: int | None
    binding: str
    limits: Mapping[str, int | None]
    it_power_kw: float
    facility_power_kw: float
    yearly_energy_kwh: float
    yearly_energy_cost: float | None
    eta_thermal: float
    warnings: tuple[Message, ...]

    def as_dict(self) -> dict[str, Any]:
        cost = self.yearly_energy_cost
        return {
            "servers_per_rack": self.servers_per_rack,
            "racks_needed": self.racks_needed,
            "binding": self.binding,
            "limits": {key: self.limits[key] for key in LIMITS},
            "it_power_kw": round(self.it_power_kw, 3),
            "facility_power_kw": round(self.facility_power_kw, 3),
            "yearly_energy_kwh": round(self.yearly_energy_kwh, 1),
            "yearly_energy_cost": None if cost is None else round(cost, 2),
            "eta_thermal": round(self.eta_thermal, 4),
            "warnings": [w.as_dict() for w in self.warnings],
        }


def _floor_ratio(budget: float, need: float) -> int:
    return max(0, math.floor(budget / need + _FLOOR_TOLERANCE))


def server_power_kw(
    *, max_kw: float | None, base_w: float | None, slots: int, count: int, card_w: float
) -> float:
    """What a server draws with `count` of its `slots` filled by cards of `card_w` board power:
    the published maximum when it is fully populated (or no base load is known), else its
    platform base load plus the cards' board power."""
    if max_kw is not None and (count >= slots or base_w is None):
        return max_kw
    return ((base_w or 0.0) + count * card_w) / 1000


def populated(
    server: ServerFacilitySpec,
    *,
    max_kw: float | None,
    base_w: float | None,
    slots: int,
    count: int,
    card: str,
    card_w: float,
) -> ServerFacilitySpec:
    """The server as the facility sees it with `count` cards inside: its draw from the published
    maximum when full, else from its base load and the cards (and then said to be derived)."""
    published = max_kw is not None and (count >= slots or base_w is None)
    note = None
    if not published:
        note = message(
            "power_note.base_plus_cards",
            base_w=base_w or 0.0,
            count=count,
            board_power_w=card_w,
            card=card,
        )
    return dataclasses.replace(
        server,
        power_kw=server_power_kw(
            max_kw=max_kw, base_w=base_w, slots=slots, count=count, card_w=card_w
        ),
        accelerators=count,
        power_estimated=not published,
        power_note=note,
    )


def _platform_w(server: ServerFacilitySpec, *, base_w: float | None, card_w: float) -> float:
    """The server's draw beside its cards: its published base, else what its maximum leaves."""
    if base_w is not None:
        return base_w
    return max(0.0, server.power_kw * 1000 - server.accelerators * card_w)


def idle_power_kw(server: ServerFacilitySpec, *, base_w: float | None, card_w: float) -> float:
    """What a server draws switched on with nothing to do (see CARD_IDLE_SHARE)."""
    platform_w = _platform_w(server, base_w=base_w, card_w=card_w)
    cards_w = server.accelerators * card_w
    return (cards_w * CARD_IDLE_SHARE + platform_w * PLATFORM_IDLE_SHARE) / 1000


def busy_power_kw(
    server: ServerFacilitySpec, *, base_w: float | None, card_w: float, serving: bool
) -> float:
    """What a server draws on average while it works (see TRAINING_DRAW_SHARE)."""
    if not serving:
        return server.power_kw * TRAINING_DRAW_SHARE
    platform_w = _platform_w(server, base_w=base_w, card_w=card_w)
    return (platform_w + server.accelerators * card_w * SERVING_CARD_SHARE) / 1000


def eta_thermal(rack: RackSpec, server: ServerFacilitySpec) -> float:
    """Share of sustained clocks kept at the rack's inlet temperature (see AIR_DERATE_PER_C)."""
    over_c = max(0.0, rack.inlet_c - server.max_inlet_c)
    per_c = LIQUID_DERATE_PER_C if server.cooling == "liquid" else AIR_DERATE_PER_C
    value = max(MIN_ETA_THERMAL, 1 - per_c * over_c)
    if server.open_air_cards:
        value *= CONSUMER_THERMAL_FACTOR
    return value


def _servers_per_rack(
    rack: RackSpec, server: ServerFacilitySpec
) -> tuple[dict[str, int | None], str, int, list[Message]]:
    """Each limit's count of servers, the one that binds, servers per rack, and a warning when
    the server's cooling rules the rack out whatever its budgets."""
    limits: dict[str, int | None] = {
        "power": _floor_ratio(rack.power_kw, server.power_kw),
        # A server rejects as heat all the power it draws.
        "cooling": _floor_ratio(rack.cooling_kw, server.power_kw),
        "units": rack.units // server.units,
        "weight": None if server.kg is None else _floor_ratio(rack.max_kg, server.kg),
    }
    known = {key: value for key, value in limits.items() if value is not None}
    # min() keeps the first of equal values, so ties go to the earlier name in LIMITS.
    binding = min(known, key=known.__getitem__)
    if server.cooling == "liquid" and not rack.liquid_loops:
        return (
            limits,
            "cooling type",
            0,
            [message("fit.cooling_type")],
        )
    return limits, binding, known[binding], []


def _fit_warnings(rack: RackSpec, server: ServerFacilitySpec) -> list[Message]:
    """What the planner should know beyond the count: heat, estimated figures, feeds, inlet."""
    warnings: list[Message] = []
    if server.open_air_cards or server.airflow == "desktop":
        warnings.append(THERMAL_RISK)
    if server.power_estimated:
        if server.power_note is None:
            warnings.append(message("fit.power_estimated", power_kw=server.power_kw))
        else:
            warnings.append(
                message("fit.power_estimated.how", power_kw=server.power_kw, how=server.power_note)
            )
    if server.kg is None:
        warnings.append(message("fit.weight_unknown"))
    if rack.feeds == "2n":
        warnings.append(message("fit.feeds_2n", power_kw=rack.power_kw))
    if rack.inlet_c > server.max_inlet_c:
        warnings.append(
            message("fit.inlet_above_rating", inlet_c=rack.inlet_c, rating_c=server.max_inlet_c)
        )
    return warnings


def fit(
    rack: RackSpec,
    server: ServerFacilitySpec,
    servers: int,
    *,
    pue: float = 1.0,
    price_per_kwh: float | None = None,
) -> FitResult:
    """Servers per rack, the limit that binds, racks needed and yearly energy for `servers`."""
    limits, binding, per_rack, warnings = _servers_per_rack(rack, server)
    racks_needed = math.ceil(servers / per_rack) if per_rack else None
    if not per_rack:
        warnings.append(message("fit.cannot_be_hosted", binding=binding_label(binding)))
    warnings += _fit_warnings(rack, server)
    it_power_kw = servers * server.power_kw
    facility_power_kw = it_power_kw * pue
    # Planning figure: every server at its maximum draw around the clock.
    yearly_energy_kwh = facility_power_kw * HOURS_PER_YEAR
    return FitResult(
        servers_per_rack=per_rack,
        racks_needed=racks_needed,
        binding=binding,
        limits=limits,
        it_power_kw=it_power_kw,
        facility_power_kw=facility_power_kw,
        yearly_energy_kwh=yearly_energy_kwh,
        yearly_energy_cost=None if price_per_kwh is None else yearly_energy_kwh * price_per_kwh,
        eta_thermal=eta_thermal(rack, server),
        warnings=tuple(warnings),
    )


# Power feeds as NetBox computes a feed's available power (dcim/models/power.py, PowerFeed.save:
# voltage x amperage x max_utilization / 100, times sqrt(3) for three-phase, where the voltage
# is line to line).
DEFAULT_MAX_UTILISATION_PCT = 80.0


def feed_usable_kw(
    *, voltage_v: float, amperage_a: float, three_phase: bool, max_utilisation_pct: float
) -> float:
    """What one feed may carry: 400 V three-phase at 32 A and 80 % is 17.7 kW."""
    volt_amps = voltage_v * amperage_a * (math.sqrt(3) if three_phase else 1.0)
    return volt_amps * max_utilisation_pct / 100 / 1000


def feeds_usable_kw(feeds: tuple[tuple[float, bool], ...]) -> float:
    """A rack's usable power from its feeds, each (usable kW, redundant): a redundant feed
    (the B side of an A/B pair) takes the load when its primary fails, so it adds nothing."""
    return sum(kw for kw, redundant in feeds if not redundant)
