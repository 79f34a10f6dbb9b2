"""Will N more of this server fit? Each rack's free power, cooling, weight and runs of free U
(what its limits leave after what is installed and what plans hold), asked of the engine's
facility fit one rack at a time; the servers placed rack by rack in the order of the row, and
each rack's drawing with them in its lowest free U."""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from planner.engine.facility import RackSpec, ServerFacilitySpec, fit
from planner.engine.messages import Message, binding_label
from planner.messages.render import render
from planner.models import Rack, RackGroup
from planner.racks.capacity import rack_limits
from planner.racks.elevation import Elevation, elevation, place
from planner.racks.occupancy import Occupancy, installed, occupancy_by_rack

# Drawings past this many racks would make the page heavy; the table still lists every rack.
MAX_DRAWINGS = 24


@dataclass(frozen=True)
class RackFit:
    """One rack: how many more of the server it takes, how many of those asked go in it, the
    limit that stops it, and its drawing with them placed."""

    rack: Rack
    occupancy: Occupancy
    takes: int
    placed: int
    binding: str
    limits: Mapping[str, int | None]
    warnings: tuple[Message, ...]
    elevation: Elevation | None = None

    @property
    def binding_label(self) -> str:
        """The limit in the reader's language ("power", "rack units"...)."""
        return render(binding_label(self.binding))

    @property
    def warning_lines(self) -> list[str]:
        return [render(w) for w in self.warnings]


@dataclass(frozen=True)
class Fit:
    """The servers asked for, placed over racks."""

    server: ServerFacilitySpec
    quantity: int
    racks: tuple[RackFit, ...]

    @property
    def placed(self) -> int:
        return sum(r.placed for r in self.racks)

    @property
    def missing(self) -> int:
        return self.quantity - self.placed

    @property
    def racks_needed(self) -> int | None:
        """Racks that take some of the servers, when all of them are placed."""
        return sum(1 for r in self.racks if r.placed) if not self.missing else None

    @property
    def binding_label(self) -> str:
        return "" if self.binding is None else render(binding_label(self.binding))

    @property
    def binding(self) -> str | None:
        """What stops most of the racks that could not take more, when some servers are left."""
        if not self.missing:
            return None
        full = [r.binding for r in self.racks if r.takes == r.placed]
        return max(set(full), key=full.count) if full else None


def _positions(racks: list[Rack]) -> dict[int, list[tuple[int, int, str]]]:
    """(bottom U, height, name) of what is installed, by rack, in one query."""
    by_rack: dict[int, list[tuple[int, int, str]]] = defaultdict(list)
    rows = (
        installed()
        .filter(rack__in=[r.pk for r in racks])
        .order_by("position_u")
        .values_list("rack_id", "position_u", "units", "name")
    )
    for rack_id, bottom, height, name in rows:
        by_rack[rack_id].append((bottom, height, name))
    return by_rack


def group_rack_spec(group: RackGroup) -> RackSpec:
    """An empty rack of `group`, at the group's limits."""
    return RackSpec(
        power_kw=group.power_kw,
        cooling_kw=group.cooling_kw,
        units=group.units,
        max_kg=group.max_kg,
        inlet_c=group.inlet_c,
        cooling=group.cooling,
        liquid_loops=group.liquid_loops,
        feeds=group.feeds,
    )


def free_rack_spec(rack: Rack, occupancy: Occupancy, *, units: int | None = None) -> RackSpec:
    """The rack as the engine sees it once what is installed and held is taken off: its free
    power, cooling and weight, `units` of free space (its free U when not given), and its
    group's cooling, inlet air and feeds."""
    return dataclasses.replace(
        group_rack_spec(rack.rack_group),
        power_kw=occupancy.power_kw.free,
        cooling_kw=occupancy.cooling_kw.free,
        units=int(occupancy.units.free) if units is None else units,
        max_kg=occupancy.weight_kg.free,
    )


def _space_for(server: ServerFacilitySpec, rack_units: int, items, occupancy: Occupancy) -> int:
    """U the engine may count: whole servers in the runs of free U, and no more than the free U
    left once plans' held space (which has no place yet) is taken off."""
    in_runs = len(place(rack_units, [(b, h) for b, h, _n in items], server.units, rack_units))
    held = int(occupancy.units.free) // server.units
    return min(in_runs, held) * server.units


def racks_fit(*, racks: Iterable[Rack], server: ServerFacilitySpec, quantity: int) -> Fit:
    """Place `quantity` of `server` in `racks`, in their order, each rack taking what its free
    capacity allows."""
    racks = list(racks)
    occupancies = occupancy_by_rack(racks)
    positions = _positions(racks)
    left, rows = quantity, []
    for rack in racks:
        occupancy, items = occupancies[rack.pk], positions.get(rack.pk, [])
        units = rack_limits(rack).units
        spec = free_rack_spec(rack, occupancy, units=_space_for(server, units, items, occupancy))
        result = fit(spec, server, max(quantity, 1))
        placed = min(left, result.servers_per_rack)
        left -= placed
        drawn = (placed or items) and len([r for r in rows if r.elevation]) < MAX_DRAWINGS
        rows.append(
            RackFit(
                rack=rack,
                occupancy=occupancy,
                takes=result.servers_per_rack,
                placed=placed,
                binding=result.binding,
                limits=result.limits,
                warnings=result.warnings,
                elevation=elevation(
                    units, items, new_units=server.units, new_count=placed, new_label=server.name
                )
                if drawn
                else None,
            )
        )
    return Fit(server=server, quantity=quantity, racks=tuple(rows))
