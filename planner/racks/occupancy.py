"""Used, committed and free capacity of racks, rack groups and sites: power, cooling, space and
weight. Installed equipment counts at its nameplate (what the breaker and the cooling must carry
at peak, as NetBox budgets a feed by `maximum_draw`); the heat a rack must remove is the power it
draws. Plans' commitments hold capacity until released."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from django.db.models import Count, Sum

from planner.models import Equipment, Rack, RackCommitment
from planner.racks.capacity import RackLimits, rack_limits


def _percent(part: float, whole: float) -> str:
    """A CSS width: always a dot decimal, whatever the reader's locale."""
    share = 100 * part / whole if whole > 0 else 0.0
    return f"{min(max(share, 0.0), 100.0):.2f}%"


@dataclass(frozen=True)
class Budget:
    """One limit of a rack (or the sum over racks), and what uses and holds it."""

    limit: float
    used: float
    committed: float = 0.0

    @property
    def free(self) -> float:
        return max(0.0, self.limit - self.used - self.committed)

    @property
    def over(self) -> bool:
        return self.used + self.committed > self.limit + 1e-9

    @property
    def used_width(self) -> str:
        return _percent(self.used, self.limit)

    @property
    def committed_width(self) -> str:
        return _percent(self.committed, self.limit)

    def __add__(self, other: Budget) -> Budget:
        return Budget(
            self.limit + other.limit, self.used + other.used, self.committed + other.committed
        )


ZERO = Budget(0.0, 0.0, 0.0)


@dataclass(frozen=True)
class Occupancy:
    power_kw: Budget
    cooling_kw: Budget
    units: Budget
    weight_kg: Budget
    equipment: int = 0
    racks: int = 1

    def __add__(self, other: Occupancy) -> Occupancy:
        return Occupancy(
            self.power_kw + other.power_kw,
            self.cooling_kw + other.cooling_kw,
            self.units + other.units,
            self.weight_kg + other.weight_kg,
            self.equipment + other.equipment,
            self.racks + other.racks,
        )

    def rows(self) -> list[tuple[str, Budget]]:
        """(key, budget) in the order pages show them."""
        return [
            ("power_kw", self.power_kw),
            ("cooling_kw", self.cooling_kw),
            ("units", self.units),
            ("weight_kg", self.weight_kg),
        ]


EMPTY = Occupancy(ZERO, ZERO, ZERO, ZERO, 0, 0)


def installed(queryset=None):
    """Equipment still in its rack (removed equipment stays in history and counts nowhere)."""
    return (queryset if queryset is not None else Equipment.objects.all()).filter(
        removed_at__isnull=True
    )


def held(queryset=None):
    """Commitments not yet released."""
    return (queryset if queryset is not None else RackCommitment.objects.all()).filter(
        released_at__isnull=True
    )


def _sums_by_rack(queryset, rack_ids: list[int], **fields) -> dict[int, dict]:
    rows = queryset.filter(rack_id__in=rack_ids).values("rack_id").annotate(**fields).order_by()
    return {row.pop("rack_id"): row for row in rows}


def occupancy_by_rack(
    racks: Iterable[Rack], *, except_plan_id: int | None = None
) -> dict[int, Occupancy]:
    """Each rack's occupancy, in three queries whatever the number of racks; what plan
    `except_plan_id` holds counts as free (a plan is not kept out by its own commitments)."""
    racks = list(racks)
    ids = [r.pk for r in racks]
    used: dict[int, dict] = defaultdict(dict)
    for chunk in range(0, len(ids), 500):  # SQLite's limit on bound parameters
        part = ids[chunk : chunk + 500]
        used.update(
            _sums_by_rack(
                installed(),
                part,
                kw=Sum("nameplate_kw"),
                units=Sum("units"),
                kg=Sum("weight_kg"),
                n=Count("pk"),
            )
        )
    committed: dict[int, dict] = {}
    holding = held().exclude(plan_id=except_plan_id) if except_plan_id else held()
    for chunk in range(0, len(ids), 500):
        part = ids[chunk : chunk + 500]
        committed.update(
            _sums_by_rack(
                holding, part, kw=Sum("power_kw"), units=Sum("units"), kg=Sum("weight_kg")
            )
        )
    return {
        r.pk: _occupancy(rack_limits(r), used.get(r.pk, {}), committed.get(r.pk, {})) for r in racks
    }


def _occupancy(limits: RackLimits, used: dict, committed: dict) -> Occupancy:
    used_kw, held_kw = float(used.get("kw") or 0), float(committed.get("kw") or 0)
    return Occupancy(
        power_kw=Budget(limits.power_kw, used_kw, held_kw),
        cooling_kw=Budget(limits.cooling_kw, used_kw, held_kw),
        units=Budget(
            limits.units, float(used.get("units") or 0), float(committed.get("units") or 0)
        ),
        weight_kg=Budget(
            limits.max_kg, float(used.get("kg") or 0), float(committed.get("kg") or 0)
        ),
        equipment=int(used.get("n") or 0),
    )


def rack_occupancy(rack: Rack) -> Occupancy:
    return occupancy_by_rack([rack])[rack.pk]


def total(occupancies: Iterable[Occupancy]) -> Occupancy:
    out = EMPTY
    for occupancy in occupancies:
        out = out + occupancy
    return out


def site_occupancy(*, site) -> Occupancy:
    """The site's used, committed and free capacity over all its racks."""
    racks = Rack.objects.filter(rack_group__site=site).select_related("rack_group")
    return total(occupancy_by_rack(racks).values())
