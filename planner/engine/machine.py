"""What a step's time depends on beyond the question: the card's roofline and the links its
collectives cross, for one build (floats) or for many builds timed at once (one value per
layout, planner.engine.many)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy.typing as npt

from planner.engine import comms
from planner.engine.arrays import Floats
from planner.engine.compute import Hardware, hardware
from planner.engine.specs import EstimateRequest


def scale_up_share(req: EstimateRequest) -> float | None:
    """The share of the scale-up link a probe's all-reduce reached on this card, when the
    request carries such a calibration; None keeps the engine's default."""
    return req.calibration.scale_up_efficiency if req.calibration is not None else None


def links_of(req: EstimateRequest) -> comms.Links:
    """The links of the request's devices (see comms.Links)."""
    return comms.links(
        req.accelerator,
        req.fabric,
        per_node=req.per_node,
        scale_up_efficiency=scale_up_share(req),
    )


def link(
    req: EstimateRequest, *, span: npt.ArrayLike, stride: npt.ArrayLike = 1
) -> tuple[Floats, Floats]:
    """Bus bandwidth and latency of a group of ranks (see comms.Links.over)."""
    return links_of(req).over(span=span, stride=stride)


@dataclass(frozen=True)
class Machine:
    """What a step's time depends on beyond the question: the roofline of the card and its
    links. One build's are floats; a pass over many builds holds one value per layout."""

    hw: Hardware
    net: comms.Links


def machine_of(req: EstimateRequest) -> Machine:
    return Machine(hardware(req), links_of(req))
