"""The bridge between the database and the engine: catalog rows become engine specs, and the
engine's answers come back as plain data. Views, the API, commands and tasks call these."""

from __future__ import annotations

from typing import Any

from catalog.models import Accelerator, Fabric, ModelArchitecture
from planner.adapters import accelerator_spec, fabric_spec, model_spec
from planner.engine import RequestError, estimate, request_from_dict
from planner.engine.specs import EstimateRequest


def _resolver(model, convert, field: str):
    def resolve(slug: str):
        item = model.objects.filter(slug=slug).first()
        if item is None:
            raise RequestError(field, f"unknown {model._meta.verbose_name} {slug!r}")
        return convert(item)

    return resolve


def estimate_request(*, data: Any) -> EstimateRequest:
    """Validate an estimate question (the contract's JSON), resolving catalog slugs."""
    return request_from_dict(
        data,
        resolve_model=_resolver(ModelArchitecture, model_spec, "model"),
        resolve_accelerator=_resolver(Accelerator, accelerator_spec, "accelerator"),
        resolve_fabric=_resolver(Fabric, fabric_spec, "fabric"),
    )


def estimate_run(*, data: Any) -> dict:
    """Answer an estimate question; raises `RequestError` naming the bad field."""
    request = estimate_request(data=data)
    try:
        answer = estimate(request)
    except ValueError as exc:
        raise RequestError("global_batch", str(exc)) from None
    return answer.as_dict()
