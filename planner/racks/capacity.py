"""What each rack may take: its own figure where it states one, else its group's. Reads only the
planner's tables, so the sites feature can total its racks without importing the racks pages."""

from __future__ import annotations

import math
from dataclasses import dataclass

from django.db.models import (
    Case,
    Count,
    ExpressionWrapper,
    F,
    FloatField,
    OuterRef,
    Subquery,
    Sum,
    Value,
    When,
)
from django.db.models.functions import Coalesce

from planner.choices import FeedPhase, FeedType
from planner.engine.facility import feeds_usable_kw
from planner.models import PowerFeed, Rack, Site


@dataclass(frozen=True)
class RackLimits:
    """What one rack can power, cool, hold and carry."""

    power_kw: float
    cooling_kw: float
    units: int
    max_kg: float
    power_from: str  # "feeds", "rack" or "group"


def rack_limits(rack: Rack) -> RackLimits:
    """Power from the rack's primary feeds when it has any, else its own kW, else its group's
    (a rack given only kW keeps working)."""
    group = rack.rack_group
    feeds = tuple((f.usable_kw, f.feed_type == FeedType.REDUNDANT) for f in rack.feeds.all())
    if any(not redundant for _, redundant in feeds):
        power_kw, power_from = feeds_usable_kw(feeds), "feeds"
    elif rack.power_kw is not None:
        power_kw, power_from = rack.power_kw, "rack"
    else:
        power_kw, power_from = group.power_kw, "group"
    return RackLimits(
        power_kw=power_kw,
        cooling_kw=rack.cooling_kw if rack.cooling_kw is not None else group.cooling_kw,
        units=rack.units if rack.units is not None else group.units,
        max_kg=rack.max_kg if rack.max_kg is not None else group.max_kg,
        power_from=power_from,
    )


def _effective(field: str):
    return Coalesce(F(field), F(f"rack_group__{field}"), output_field=FloatField())


def _feeds_kw():
    """The rack's primary feeds' usable kW in SQL, the same formula as
    planner.engine.facility.feed_usable_kw (NULL for a rack without primary feeds)."""
    phases = Case(When(phase=FeedPhase.THREE, then=Value(math.sqrt(3))), default=Value(1.0))
    usable = F("voltage") * F("amperage") * phases * F("max_utilisation") / 100_000.0
    feeds = (
        PowerFeed.objects.filter(rack=OuterRef("pk"), feed_type=FeedType.PRIMARY)
        .values("rack")
        .annotate(kw=Sum(ExpressionWrapper(usable, output_field=FloatField())))
        .values("kw")
    )
    return Subquery(feeds, output_field=FloatField())


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
        power=Sum(
            Coalesce(
                _feeds_kw(), F("power_kw"), F("rack_group__power_kw"), output_field=FloatField()
            )
        ),
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
