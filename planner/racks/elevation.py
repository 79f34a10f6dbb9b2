"""A rack's front elevation for the pages' SVG drawing: what is installed, and new servers
placed in the lowest free U (as a person racking them bottom-up would)."""

from __future__ import annotations

from dataclasses import dataclass

from planner.models import Rack
from planner.racks.capacity import rack_limits
from planner.racks.occupancy import installed

U_PX = 12  # drawing height of one rack unit
WIDTH_PX = 200
LABEL_PX = 26  # the U numbers' column


@dataclass(frozen=True)
class Slot:
    bottom_u: int
    units: int
    label: str
    kind: str  # "installed" | "new"
    y: int  # top edge in the drawing
    height: int


@dataclass(frozen=True)
class Elevation:
    units: int
    slots: tuple[Slot, ...]
    height: int
    width: int = WIDTH_PX
    label_px: int = LABEL_PX

    @property
    def numbers(self) -> list[tuple[int, int]]:
        """(U, y of its label) every U, for the ruler."""
        return [(u, self.height - (u - 1) * U_PX - 3) for u in range(1, self.units + 1)]


def free_runs(units: int, taken: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """(bottom U, height) of each run of free U, bottom up."""
    busy = [False] * (units + 1)
    for bottom, height in taken:
        for u in range(bottom, min(bottom + height, units + 1)):
            busy[u] = True
    runs, start = [], None
    for u in range(1, units + 2):
        free = u <= units and not busy[u]
        if free and start is None:
            start = u
        elif not free and start is not None:
            runs.append((start, u - start))
            start = None
    return runs


def place(units: int, taken: list[tuple[int, int]], height: int, count: int) -> list[int]:
    """Bottom U of up to `count` new servers `height` U tall, in the lowest free runs."""
    placed: list[int] = []
    for bottom, run in free_runs(units, taken):
        while run >= height and len(placed) < count:
            placed.append(bottom)
            bottom, run = bottom + height, run - height
    return placed


def _slot(total_units: int, bottom: int, height: int, label: str, kind: str) -> Slot:
    top_px = (total_units - (bottom + height - 1)) * U_PX
    return Slot(bottom, height, label, kind, top_px, height * U_PX)


def elevation(
    units: int,
    items: list[tuple[int, int, str]],
    *,
    new_units: int = 0,
    new_count: int = 0,
    new_label: str = "",
) -> Elevation:
    """A rack of `units` U holding `items` (bottom U, height, label), with `new_count` servers
    `new_units` high drawn in its lowest free U."""
    slots = [
        _slot(units, bottom, min(height, units - bottom + 1), label, "installed")
        for bottom, height, label in items
        if bottom <= units
    ]
    if new_units and new_count:
        taken = [(bottom, height) for bottom, height, _label in items]
        for bottom in place(units, taken, new_units, new_count):
            slots.append(_slot(units, bottom, new_units, new_label, "new"))
    return Elevation(units=units, slots=tuple(slots), height=units * U_PX)


def rack_elevation(
    rack: Rack, *, new_units: int = 0, new_count: int = 0, new_label: str = ""
) -> Elevation:
    items = [
        (e.position_u, e.units, e.name)
        for e in installed(rack.equipment.all()).order_by("position_u")
    ]
    return elevation(
        rack_limits(rack).units,
        items,
        new_units=new_units,
        new_count=new_count,
        new_label=new_label,
    )
