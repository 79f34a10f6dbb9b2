"""The cost model: prices in (planner.engine.cost.prices), a costed build out
(planner.engine.cost.model), and what a network of a given size is made of
(planner.engine.cost.network)."""

from planner.engine.cost.model import (
    DEFAULT_DEPRECIATION_YEARS,
    HOURS_PER_YEAR,
    Cost,
    CostBuild,
    CostLine,
    Usage,
    cost,
)
from planner.engine.cost.prices import PriceList, UnitPrice

__all__ = [
    "DEFAULT_DEPRECIATION_YEARS",
    "HOURS_PER_YEAR",
    "Cost",
    "CostBuild",
    "CostLine",
    "PriceList",
    "UnitPrice",
    "Usage",
    "cost",
]
