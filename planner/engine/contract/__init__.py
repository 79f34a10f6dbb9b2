"""The questions the engine answers and the answers it gives, declared once (pydantic v2): the
commands, the API views, the forms and the OpenAPI document all use these declarations, and
each question parses into the engine's frozen dataclasses, so the physics never sees JSON."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from planner.engine.contract.base import RequestError, parse
from planner.engine.contract.estimate import EstimateQuestion
from planner.engine.contract.fit import FitQuestion
from planner.engine.facility import FitRequest, ServerFacilitySpec
from planner.engine.specs import AcceleratorSpec, EstimateRequest, FabricSpec, ModelSpec


def estimate_request_from_dict(
    data: Any,
    *,
    resolve_model: Callable[[str], ModelSpec],
    resolve_accelerator: Callable[[str], AcceleratorSpec],
    resolve_fabric: Callable[[str], FabricSpec],
) -> EstimateRequest:
    """An estimate question's JSON as the engine's request; `RequestError` names a bad field."""
    return parse(EstimateQuestion, data).to_request(
        resolve_model=resolve_model,
        resolve_accelerator=resolve_accelerator,
        resolve_fabric=resolve_fabric,
    )


def fit_request_from_dict(
    data: Any, *, resolve_server: Callable[[str, str | None], ServerFacilitySpec]
) -> FitRequest:
    """A facility-fit question's JSON as the engine's request; `RequestError` names a bad field."""
    return parse(FitQuestion, data).to_request(resolve_server=resolve_server)


__all__ = [
    "EstimateQuestion",
    "FitQuestion",
    "RequestError",
    "estimate_request_from_dict",
    "fit_request_from_dict",
    "parse",
]
