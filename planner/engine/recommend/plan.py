"""A plan's question (the workload, the accelerators and servers to choose from, the site and
the budgets) and its answer (the candidates, ranked, and the builds rejected, with why)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from planner.engine.cost import PriceList
from planner.engine.facility import RackSpec, ServerFacilitySpec
from planner.engine.messages import Message, plain
from planner.engine.specs import AcceleratorSpec, CalibrationSpec, EstimateRequest


@dataclass(frozen=True)
class AcceleratorOption:
    slug: str
    spec: AcceleratorSpec
    vendor: str = ""
    software_stack: str = "cuda"
    training_maturity: str = "mature"
    inference_maturity: str = "mature"
    ecc: bool = True
    mig_instances: int = 0
    scale_up_link: str = ""
    consumer_cooling: bool = False
    calibration: CalibrationSpec | None = None  # measured on this card: used instead of defaults


@dataclass(frozen=True)
class ServerOption:
    slug: str
    slots: int
    fits: frozenset[str]  # accelerator slugs the vendor sells or validates this server with
    # Fully populated, per accelerator slug; a partly filled server draws its base load plus
    # the cards it holds (planner.engine.facility.populated).
    facility: Mapping[str, ServerFacilitySpec]
    whole_only: bool = False  # sold only fully populated: DGX, HGX and OAM boards, rack systems
    max_power_kw: float | None = None  # published maximum, fully populated
    base_power_w: float | None = None  # everything but the accelerators
    nic_ports: int = 0  # compute-fabric ports
    nic_gbps: float = 0.0  # per port


@dataclass(frozen=True)
class RackGroupOption:
    name: str
    rack: RackSpec
    count: int


@dataclass(frozen=True)
class PlanQuestion:
    workload: EstimateRequest  # accelerator and count are placeholders, replaced per candidate
    accelerators: tuple[AcceleratorOption, ...]
    servers: tuple[ServerOption, ...]
    racks: tuple[RackGroupOption, ...] = ()  # empty: no site constraints
    pue: float = 1.3
    price_per_kwh: float | None = None
    years: float = 4.0
    capex_budget: float | None = None
    tco_budget: float | None = None
    min_count: int = 1
    max_count: int = 1024
    deadline_days: float | None = None
    target_rps: float | None = None  # serving: requests per second to sustain
    ttft_ms: float | None = None
    tpot_ms: float | None = None
    weights: Mapping[str, float] | None = None
    prices: PriceList = field(default_factory=PriceList)  # in the plan's currency
    utilisation: float | None = None  # share of the horizon the fleet is busy; None: derived
    fabric_radix: int | None = None  # ports per switch of the workload's fabric
    fabric_given: bool = True  # False: each server's own NIC ports are the network
    objective: str = "cost"  # recommend.ranking.OBJECTIVES
    currency: str = "USD"  # what the prices were converted to; named in sentences


@dataclass
class Candidate:
    accelerator: str
    server: str
    count: int
    nodes: int
    estimate: dict[str, Any]
    fit: dict[str, Any]
    cost: dict[str, Any]
    scores: dict[str, float]
    # Messages as the engine makes them, or their JSON once a stored ranking is read back.
    reasons: dict[str, Any]
    overall: float = 0.0
    failures: list[Any] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        # A new top-level dict; the nested sections are shared, not copied: rankings are read,
        # and a deep copy of hundreds of estimates costs a page view hundreds of milliseconds.
        out = {name: getattr(self, name) for name in self.__dataclass_fields__}
        out["reasons"] = {k: plain(v) for k, v in self.reasons.items()}
        out["failures"] = plain(self.failures)
        return out


@dataclass(frozen=True)
class Ranking:
    candidates: list[Candidate]  # viable, best first
    rejected: list[Candidate]  # broke a hard constraint; `failures` says which
    evaluated: int
    weights: dict[str, float]
    objective: str = "cost"
    first: Message | None = None  # why the first candidate is first

    def as_dict(self, limit: int | None = None) -> dict[str, Any]:
        return {
            "candidates": [c.as_dict() for c in self.candidates[:limit]],
            # Rejected builds keep what says which and why, not their whole estimate.
            "rejected": [
                {
                    "accelerator": c.accelerator,
                    "server": c.server,
                    "count": c.count,
                    "nodes": c.nodes,
                    "failures": plain(c.failures),
                }
                for c in self.rejected
            ],
            "evaluated": self.evaluated,
            "weights": self.weights,
            "objective": self.objective,
            "why_first": None if self.first is None else self.first.as_dict(),
        }
