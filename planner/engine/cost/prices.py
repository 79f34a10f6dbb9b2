"""Prices as the cost model reads them: plain values in the plan's currency, each still naming
where it came from (a team's quote, the reference list, or the question itself) so that every
line of a cost can be traced to its row. The caller (planner.plans.question) picks them from
the team's price book; nothing here chooses or converts."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal

Origin = Literal["team", "reference", "question"]


@dataclass(frozen=True)
class UnitPrice:
    """One price: per unit for a purchase, per accelerator-hour for rent."""

    amount: float  # in the plan's currency
    origin: Origin
    source: str  # a URL, "quote from <vendor>, ref ...", or "the question"
    price_date: str = ""  # ISO day the source gives
    currency: str = ""  # the price's own currency
    own_amount: float | None = None  # in its own currency
    price_id: int | None = None  # the price row, where there is one
    stale: bool = False  # more than a year old
    expired: bool = False  # past its valid-until day
    provider: str = ""  # rent: who rents it out
    support_share_per_year: float | None = None
    depreciation_years: int | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "unit": round(self.amount, 4),
            "origin": self.origin,
            "source": self.source,
            "price_id": self.price_id,
            "price_date": self.price_date,
            "currency": self.currency,
            "own_unit": None if self.own_amount is None else round(self.own_amount, 4),
            "stale": self.stale,
            "expired": self.expired,
            "provider": self.provider,
        }


def _empty() -> Mapping[Any, UnitPrice]:
    return MappingProxyType({})


@dataclass(frozen=True)
class PriceList:
    """The prices a plan may use, by what they are for."""

    accelerators: Mapping[str, UnitPrice] = field(default_factory=_empty)
    servers: Mapping[str, UnitPrice] = field(default_factory=_empty)  # bare chassis
    # A complete system sold with its cards: (server slug, accelerator slug).
    systems: Mapping[tuple[str, str], UnitPrice] = field(default_factory=_empty)
    # Network items per fabric: (nic | switch_port | cable | transceiver, fabric slug).
    network: Mapping[tuple[str, str], UnitPrice] = field(default_factory=_empty)
    rack: UnitPrice | None = None
    rent: Mapping[str, UnitPrice] = field(default_factory=_empty)  # on demand, per accelerator
    rent_for_any: UnitPrice | None = None  # one rate for every card (given in the question)

    def rent_rate(self, accelerator: str) -> UnitPrice | None:
        return self.rent_for_any or self.rent.get(accelerator)
