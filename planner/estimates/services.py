"""The engine's one-shot questions, an estimate and a facility fit: catalog slugs resolved to
engine specs, the answer returned as plain data. Views, the API and the commands call these."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

from django.utils.translation import gettext_noop as _

from catalog.models import Accelerator, Fabric, ModelArchitecture, ServerPlatform
from planner.adapters import accelerator_spec, fabric_spec, model_spec, server_facility_spec
from planner.engine import RequestError, estimate
from planner.engine.contract import EstimateQuestion, fit_request_from_dict, parse
from planner.engine.facility import FitRequest, ServerFacilitySpec, fit
from planner.engine.specs import EstimateRequest
from planner.messages.answers import localise_estimate, localise_fit
from planner.messages.render import error_message
from planner.validation.bands import uncertainty

# What an unknown slug is called, by catalog table.
UNKNOWN = {
    ModelArchitecture: _("unknown model architecture {slug}"),
    Accelerator: _("unknown accelerator {slug}"),
    Fabric: _("unknown fabric {slug}"),
    ServerPlatform: _("unknown server platform {slug}"),
}


def _resolver(model, convert, field: str):
    def resolve(slug: str):
        item = model.objects.filter(slug=slug).first()
        if item is None:
            raise RequestError(field, UNKNOWN[model], slug=repr(slug))
        return convert(item)

    return resolve


def catalog_resolvers() -> dict[str, Callable[[str], Any]]:
    """Slug resolvers for the contract: catalog rows as engine specs, or `RequestError`."""
    return {
        "resolve_model": _resolver(ModelArchitecture, model_spec, "model"),
        "resolve_accelerator": _resolver(Accelerator, accelerator_spec, "accelerator"),
        "resolve_fabric": _resolver(Fabric, fabric_spec, "fabric"),
    }


def estimate_request(*, data: Any, user=None) -> EstimateRequest:
    """Validate an estimate question (the contract's JSON), resolving catalog slugs and, under
    "calibration", a calibration profile's id: among those `user` may see when a user is
    given (the command line sees them all)."""
    question = parse(EstimateQuestion, data)
    request = question.to_request(**catalog_resolvers())
    if question.calibration is None:
        return request
    return dataclasses.replace(
        request, calibration=_calibration(question.calibration, question.accelerator, user)
    )


def _calibration(profile_id: Any, accelerator: Any, user=None):
    from planner.calibrations.services import calibration_spec, usable_profile

    profile = usable_profile(profile_id=profile_id, user=user)
    if accelerator != profile.accelerator.slug:
        raise RequestError(
            "calibration",
            _("profile {profile} was measured on {card}, not on this accelerator"),
            profile=profile_id,
            card=profile.accelerator.slug,
        )
    return calibration_spec(profile)


def estimate_run(*, data: Any, user=None) -> dict:
    """Answer an estimate question; raises `RequestError` naming the bad field."""
    request = estimate_request(data=data, user=user)
    try:
        answer = estimate(request)
    except ValueError as exc:
        raise RequestError(
            "global_batch",
            _("no parallel layout divides the global batch; change global_batch or count"),
        ) from exc
    answered = localise_estimate(answer.as_dict())
    answered["uncertainty"] = uncertainty(request.task, request.framework)
    return answered


def estimate_batch_run(*, data: Sequence[Any], user=None, limit: int | None = None) -> list[dict]:
    """Answer an array of estimate questions in order: each element its answer, or
    `{"error": {"field", "message"}}` naming the field inside that question, so one bad question
    spoils no other. Past `limit` questions (the API's bound) the whole array is refused."""
    if not data:
        raise RequestError("request", _("must hold at least one question"))
    if limit is not None and len(data) > limit:
        raise RequestError(
            "request",
            _("holds {count} questions; one request takes at most {limit}: split the array"),
            count=len(data),
            limit=limit,
        )
    answers: list[dict] = []
    for question in data:
        try:
            answers.append(estimate_run(data=question, user=user))
        except RequestError as exc:
            answers.append({"error": {"field": exc.field, "message": error_message(exc)}})
    return answers


# Facility fit --------------------------------------------------------------------------------


def _server_facility_resolver():
    find_server = _resolver(ServerPlatform, lambda item: item, "server")
    find_accelerator = _resolver(Accelerator, lambda item: item, "accelerator")

    def resolve(slug: str, accelerator_slug: str | None) -> ServerFacilitySpec:
        server = find_server(slug)
        accelerator = None if accelerator_slug is None else find_accelerator(accelerator_slug)
        if accelerator is None:
            # Cards not named: the most power-hungry the server takes, so no rack is overfilled.
            accelerator = (
                Accelerator.objects.filter(slug__in=server.accepts)
                .order_by("-board_power_w", "slug")
                .first()
            )
            if accelerator is None:
                raise RequestError(
                    "server", _("{server} lists no accelerator it takes"), server=server.slug
                )
        elif not server.takes(accelerator):
            raise RequestError(
                "accelerator",
                _("{card} does not fit {server} (it takes {takes})"),
                card=accelerator.slug,
                server=server.slug,
                takes=", ".join(server.accepts),
            )
        return server_facility_spec(server, accelerator)

    return resolve


def server_facility(*, server: str, accelerator: str | None = None) -> ServerFacilitySpec:
    """What catalog server `server` asks of a rack, full of `accelerator` (by default the most
    power-hungry card it takes, so no rack is overfilled); `RequestError` on a bad slug."""
    return _server_facility_resolver()(server, accelerator)


def fit_request(*, data: Any) -> FitRequest:
    """Validate a facility-fit question, resolving the server (and its cards) from the catalog."""
    return fit_request_from_dict(data, resolve_server=_server_facility_resolver())


def fit_run(*, data: Any) -> dict:
    """Servers per rack, racks needed, energy and thermal derating; raises `RequestError`."""
    request = fit_request(data=data)
    answer = fit(
        request.rack,
        request.server,
        request.servers,
        pue=request.pue,
        price_per_kwh=request.price_per_kwh,
    )
    return localise_fit(answer.as_dict())
