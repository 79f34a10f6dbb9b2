"""The facility-fit question (`manage.py fit`, `POST /api/v1/fit/`): how many servers of one
kind a rack of the given limits holds, and what a fleet of them draws."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import BeforeValidator, Discriminator, Field, Tag

from planner.engine.contract.base import (
    Flag,
    NonNegative,
    Question,
    RequestError,
    SlugGiven,
    Text,
    number,
    one_of,
    problem,
    whole,
)
from planner.engine.contract.items import slug_or_inline
from planner.engine.errors import gettext_noop as _
from planner.engine.facility import (
    AIRFLOW,
    DEFAULT_INLET_C,
    DEFAULT_MAX_INLET_C,
    FEEDS,
    RACK_COOLING,
    SERVER_COOLING,
    FitRequest,
    RackSpec,
    ServerFacilitySpec,
)

if TYPE_CHECKING:
    from planner.engine.contract.plan import InlineRackGroup

# Inlet temperatures outside this range are typing errors, not rooms.
# Beyond these a figure is a typing error too: the densest racks (GB200 NVL72) draw ~130 kW and
# hold 48U; floors rarely carry 2,000 kg a rack; no server weighs under 100 g or draws under 1 W.
MAX_RACK_KW = 1000
MAX_RACK_UNITS = 100
MAX_RACK_KG = 100_000
MIN_SERVER_KW = 0.001
MIN_SERVER_KG = 0.1
INLET_RANGE_C = (0, 60)
InletC = Annotated[float, number(ge=INLET_RANGE_C[0], le=INLET_RANGE_C[1])]

RackCooling = Annotated[Literal["air", "rdhx", "liquid"], BeforeValidator(one_of(RACK_COOLING))]
ServerCooling = Annotated[Literal["air", "liquid"], BeforeValidator(one_of(SERVER_COOLING))]
Airflow = Annotated[Literal["front_to_back", "desktop"], BeforeValidator(one_of(AIRFLOW))]
Feeds = Annotated[Literal["single", "2n"], BeforeValidator(one_of(FEEDS))]


class Rack(Question):
    """One rack as the facility team describes it."""

    power_kw: Annotated[float, number(gt=0, le=MAX_RACK_KW)] = Field(
        description="Usable IT power per rack, kW; with 2N feeds what ONE feed carries"
    )
    cooling_kw: Annotated[float, number(gt=0, le=MAX_RACK_KW)] = Field(
        description="Heat the rack's cooling removes, kW"
    )
    units: Annotated[int, whole(ge=1, le=MAX_RACK_UNITS)] = Field(
        description="Usable rack units (U)"
    )
    max_kg: Annotated[float, number(gt=0, le=MAX_RACK_KG)] = Field(
        description="Weight limit of the rack's load, kg"
    )
    inlet_c: InletC = Field(DEFAULT_INLET_C, description="Inlet air temperature, °C")
    cooling: RackCooling = Field(
        "air", description="Room air, rear-door heat exchanger, or direct liquid"
    )
    liquid_loops: Flag | None = Field(
        None, description="Liquid loops for direct-liquid servers (default: cooling is liquid)"
    )
    feeds: Feeds = Field("single", description="Power feeds: single, or A/B (2N)")

    def spec(self) -> RackSpec:
        return rack_spec(self, cooling_kw=self.cooling_kw)


def rack_spec(rack: Rack | InlineRackGroup, *, cooling_kw: float) -> RackSpec:
    """The engine's rack from a question's: a fit's rack, or a rack group a plan may fill."""
    return RackSpec(
        power_kw=float(rack.power_kw),
        cooling_kw=float(cooling_kw),
        units=rack.units,
        max_kg=float(rack.max_kg),
        inlet_c=float(rack.inlet_c),
        cooling=rack.cooling,
        liquid_loops=rack.liquid_loops,
        feeds=rack.feeds,
    )


class InlineServer(Question):
    """A server not in the catalog, as the facility sees it."""

    power_kw: Annotated[float, number(ge=MIN_SERVER_KW, le=MAX_RACK_KW)] = Field(
        description="Maximum system draw, kW"
    )
    units: Annotated[int, whole(ge=1, le=MAX_RACK_UNITS)] = Field(description="Rack units (U)")
    kg: Annotated[float, number(ge=MIN_SERVER_KG, le=MAX_RACK_KG)] | None = Field(
        None, description="Weight, kg; unchecked when absent"
    )
    cooling: ServerCooling = "air"
    airflow: Airflow = "front_to_back"
    accelerators: Annotated[int, whole(ge=0)] = 0
    open_air_cards: Flag = Field(
        False, description="Consumer cards with open-air or blower coolers"
    )
    max_inlet_c: InletC = Field(
        DEFAULT_MAX_INLET_C, description="Rated inlet temperature, °C (ASHRAE A2: 35)"
    )
    power_estimated: Flag = False
    name: Text = "inline server"

    def spec(self) -> ServerFacilitySpec:
        return ServerFacilitySpec(
            power_kw=float(self.power_kw),
            kg=None if self.kg is None else float(self.kg),
            max_inlet_c=float(self.max_inlet_c),
            **self.same_named(
                "units cooling airflow accelerators open_air_cards power_estimated name"
            ),
        )


def _catalog_slug(value: Any) -> Any:
    if not isinstance(value, str) or not value:
        raise problem(_("must be a catalog slug"))
    return value


class FitQuestion(Question):
    """Servers per rack, the limit that binds, racks needed, yearly energy and thermal derating.
    Defaults: inlet 25 °C, air cooling, liquid loops only in a liquid rack, a single feed, one
    server, PUE 1.0, no energy price."""

    rack: Rack
    server: Annotated[
        Annotated[Text, Tag("#slug")] | Annotated[InlineServer, Tag("#inline")],
        Discriminator(slug_or_inline),
        SlugGiven,
    ] = Field(description="Catalog server slug, or an inline server")
    accelerator: Annotated[str, BeforeValidator(_catalog_slug)] | None = Field(
        None,
        description="Catalog slug of the cards in a catalog server; sets its power when the "
        "server publishes none",
    )
    servers: Annotated[int, whole(ge=1, le=1_000_000)] = Field(1, description="Servers to place")
    # PUE = facility power / IT power, so never below 1 (The Green Grid, WP#49).
    pue: Annotated[float, number(ge=1, le=5)] = Field(1.0, description="Facility power / IT power")
    price_per_kwh: NonNegative | None = Field(
        None, description="Energy price per kWh, for the yearly cost"
    )

    def to_request(
        self, *, resolve_server: Callable[[str, str | None], ServerFacilitySpec]
    ) -> FitRequest:
        """`resolve_server(slug, accelerator_slug)` turns a catalog server (with the cards named
        by "accelerator") into a spec, or raises `RequestError`."""
        if isinstance(self.server, str):
            server = resolve_server(self.server, self.accelerator)
        else:
            if self.accelerator is not None:
                raise RequestError(
                    "accelerator",
                    _("applies only to a catalog server; give an inline server's power_kw"),
                )
            server = self.server.spec()
        return FitRequest(
            rack=self.rack.spec(),
            server=server,
            servers=self.servers,
            pue=float(self.pue),
            price_per_kwh=None if self.price_per_kwh is None else float(self.price_per_kwh),
        )
