"""What each rack may take: its own figure where it states one, else its group's. Reads only the
planner's tables, so the sites feature can total its racks without importing the racks pages."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Count, F, FloatField, Sum
from django.db.models.functions import Coalesce

from planner.models import Rack, Site


@dataclass(frozen=True)
class RackLimits:
    """What one rack can power, cool, hold and carry."""

    power_kw: float
    cooling_kw: float
    units: int
    max_kg: float
    power_from: str  # "rack", "group" (or "feeds", once the rack has power feeds)


def rack_limits(rack: Rack) -> RackLimits:
    group = rack.rack_group
    return RackLimits(
        power_kw=rack.power_kw if rack.power_kw is not None else group.power_kw,
        cooling_kw=rack.cooling_kw if rack.cooling_kw is not None else group.cooling_kw,
        units=rack.units if rack.units is not None else group.units,
        max_kg=rack.max_kg if rack.max_kg is not None else group.max_kg,
        power_from="rack" if rack.power_kw is not None else "group",
    )


def _effective(field: str):
    return Coalesce(F(field), F(f"rack_group__{field}"), output_field=FloatField())


@dataclass(frozen=True)
class LimitTotals:
    racks: int
    power_kw: float
    cooling_kw: float
    units: int
    max_kg: float


def limit_totals(racks) -> LimitTotals:
    """Totals of what the racks of a queryset may take, summed in the database."""
    totals = racks.aggregate(
        racks=Count("pk"),
        power=Sum(_effective("power_kw")),
        cooling=Sum(_effective("cooling_kw")),
        units=Sum(_effective("units")),
        kg=Sum(_effective("max_kg")),
    )
    return LimitTotals(
        racks=totals["racks"] or 0,
        power_kw=float(totals["power"] or 0),
        cooling_kw=float(totals["cooling"] or 0),
        units=int(totals["units"] or 0),
        max_kg=float(totals["kg"] or 0),
    )


def site_limit_totals(*, site: Site) -> LimitTotals:
    return limit_totals(Rack.objects.filter(rack_group__site=site))
