"""Collectives as NCCL runs them (ring algorithms): time = bytes moved per device / bus
bandwidth + latency per step. Vectorised: arguments may be numpy arrays."""

from __future__ import annotations

from dataclasses import dataclass

import numpy.typing as npt

from planner.engine import efficiency as eff
from planner.engine.arrays import Floats, floats, floor, maximum, minimum, where
from planner.engine.specs import GB, AcceleratorSpec, FabricSpec

NVLINK_LATENCY_S = 3e-6
PCIE_LATENCY_S = 8e-6


def scale_up_bw(acc: AcceleratorSpec, *, efficiency: float | None = None) -> tuple[float, float]:
    """Achievable per-direction bytes/s and latency between devices of one node. A measured
    `efficiency` (all-reduce bus bandwidth over the datasheet link, from a probe) replaces the
    engine's default share of the scale-up link."""
    if acc.scale_up_gb_s:
        share = efficiency or eff.SCALE_UP_EFFICIENCY
        return acc.scale_up_gb_s * GB * share, NVLINK_LATENCY_S
    return acc.pcie_gb_s * GB * eff.PCIE_EFFICIENCY, PCIE_LATENCY_S


@dataclass(frozen=True)
class Links:
    """A device's links as its collectives see them: the scale-up link inside a node and the
    fabric beyond, in achievable bytes/s and seconds per step (floats for one build, or arrays
    of one value per layout when many builds are timed in one pass)."""

    up_bw: Floats | float
    up_lat: Floats | float
    fabric_bw: Floats | float
    fabric_lat: Floats | float
    per_node: Floats | float

    def over(self, *, span: npt.ArrayLike, stride: npt.ArrayLike = 1) -> tuple[Floats, Floats]:
        """Achievable bus bandwidth and latency of a collective over a group whose members sit
        `stride` ranks apart and whose outermost member is `span` ranks from the first.

        Inside one node the group uses the scale-up link. Across nodes NCCL builds one ring per
        member on each node, each through that member's own NIC, so the ring's node-to-node hop
        carries 1/k of the data with k members per node: the bus bandwidth is k NICs' worth,
        capped by the scale-up link (nccl-tests on DGX A100 reach ~190 GB/s with 8 x 200
        Gbit/s)."""
        node = maximum(self.per_node, 1)
        spans = floats(span)
        strides = maximum(floats(stride), 1)
        members_per_node = maximum(floor(node / strides), 1)
        inside = spans <= node
        bw: Floats = where(
            inside, self.up_bw, minimum(members_per_node * self.fabric_bw, self.up_bw)
        )
        lat: Floats = where(inside, self.up_lat, self.fabric_lat)
        return bw, lat


def links(
    acc: AcceleratorSpec,
    fabric: FabricSpec,
    *,
    per_node: int,
    scale_up_efficiency: float | None = None,
) -> Links:
    """The links of a device of `acc` in servers of `per_node`, on `fabric`."""
    up_bw, up_lat = scale_up_bw(acc, efficiency=scale_up_efficiency)
    return Links(
        up_bw=up_bw,
        up_lat=up_lat,
        fabric_bw=fabric.per_gpu_gb_s * GB * eff.FABRIC_EFFICIENCY,
        fabric_lat=fabric.latency_us * 1e-6,
        per_node=max(per_node, 1),
    )


def all_reduce_s(
    size_bytes: Floats | float, group: npt.ArrayLike, bw: Floats | float, latency: Floats | float
) -> Floats:
    """Ring all-reduce: each device sends and receives 2(g-1)/g of the data over 2(g-1) steps
    (a reduce-scatter, then an all-gather)."""
    g = maximum(floats(group), 1)
    steps = 2 * (g - 1)
    return where(g > 1, 2 * (g - 1) / g * size_bytes / bw + steps * latency, 0.0)


def reduce_scatter_s(
    size_bytes: Floats | float, group: npt.ArrayLike, bw: Floats | float, latency: Floats | float
) -> Floats:
    """Ring reduce-scatter: each device sends (g-1)/g of the data over g-1 steps. Also the
    time of an all-gather of the same total size."""
    g = maximum(floats(group), 1)
    return where(g > 1, (g - 1) / g * size_bytes / bw + (g - 1) * latency, 0.0)


def all_to_all_s(
    size_bytes: Floats | float, group: npt.ArrayLike, bw: Floats | float, latency: Floats | float
) -> Floats:
    """All-to-all: each device keeps 1/g of its data and sends the other (g-1)/g, one peer per
    step."""
    g = maximum(floats(group), 1)
    return where(g > 1, (g - 1) / g * size_bytes / bw + (g - 1) * latency, 0.0)
