"""Capex, energy, total cost of ownership and renting against buying. Amounts are in one
currency the caller chooses; nothing here converts."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from planner.engine.messages import Message, message

HOURS_PER_YEAR = 8760
HOURS_PER_MONTH = HOURS_PER_YEAR / 12
# A server without a catalog price costs its accelerators plus this share for chassis, CPUs,
# memory, NICs and storage (8-GPU HGX systems: accelerators are ~75-80 % of the price).
SERVER_OVERHEAD_SHARE = 0.25


@dataclass(frozen=True)
class Cost:
    capex: float | None
    energy_per_year: float | None
    tco: float | None
    years: float
    rent_per_year: float | None
    breakeven_months: float | None  # when buying overtakes renting; None if never or unknown
    notes: tuple[Message, ...]

    def as_dict(self) -> dict[str, Any]:
        def r(x: float | None) -> float | None:
            return None if x is None else round(x, 2)

        return {
            "capex": r(self.capex),
            "energy_per_year": r(self.energy_per_year),
            "tco": r(self.tco),
            "years": self.years,
            "rent_per_year": r(self.rent_per_year),
            "breakeven_months": None
            if self.breakeven_months is None
            else round(self.breakeven_months, 1),
            "notes": [n.as_dict() for n in self.notes],
        }


def cost(
    *,
    nodes: int,
    accelerators_per_node: int,
    accelerator_price: float | None,
    server_price: float | None,
    server_power_kw: float,
    pue: float,
    price_per_kwh: float | None,
    years: float,
    rent_per_gpu_hour: float | None = None,
    utilisation: float = 1.0,
) -> Cost:
    notes: list[Message] = []
    if server_price is not None:
        capex = nodes * server_price
        if (
            accelerator_price is not None
            and server_price < accelerator_price * accelerators_per_node
        ):
            # A chassis price without its cards.
            capex += nodes * accelerators_per_node * accelerator_price
    elif accelerator_price is not None:
        capex = nodes * accelerators_per_node * accelerator_price * (1 + SERVER_OVERHEAD_SHARE)
        notes.append(
            message("cost.server_price_unknown", share_percent=100 * SERVER_OVERHEAD_SHARE)
        )
    else:
        capex = None
        notes.append(message("cost.no_price"))
    energy = None
    if price_per_kwh is not None:
        energy = nodes * server_power_kw * pue * HOURS_PER_YEAR * utilisation * price_per_kwh
    tco = None if capex is None or energy is None else capex + years * energy
    rent = breakeven = None
    if rent_per_gpu_hour is not None:
        rent = rent_per_gpu_hour * nodes * accelerators_per_node * HOURS_PER_YEAR * utilisation
        monthly_saving = rent / 12 - (energy or 0) / 12
        if capex is not None and monthly_saving > 0:
            breakeven = capex / monthly_saving
    return Cost(capex, energy, tco, years, rent, breakeven, tuple(notes))
