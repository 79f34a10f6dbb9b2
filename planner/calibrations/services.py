"""Calibration profiles: a probe report matched to a catalog card and turned into factors the
engine uses instead of its defaults."""

from __future__ import annotations

import re
from types import MappingProxyType
from typing import Any

from django.db import transaction
from django.utils.translation import gettext_noop as _

from catalog.models import Accelerator
from planner.adapters import accelerator_spec
from planner.engine import RequestError
from planner.engine.calibrate import derive
from planner.engine.contract import parse
from planner.engine.contract.calibration import ProbeReport
from planner.engine.specs import CalibrationSpec
from planner.models import CalibrationProfile


def _tokens(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9]+", text.lower()))


def match_accelerator(device: dict) -> Accelerator | None:
    """The catalog card a probe ran on: its model name inside the device name, memory within
    10 %, and among those the board power nearest the driver's power limit (H200 SXM 700 W
    against H200 NVL 600 W)."""
    name = _tokens(device.get("name", ""))
    memory = float(device.get("memory_gib") or 0)
    try:
        power = float(device.get("power.limit") or 0)
    except ValueError:
        power = 0.0
    candidates = []
    for card in Accelerator.objects.all():
        model_words = _tokens(card.name) - {
            "nvidia",
            "amd",
            "intel",
            "huawei",
            "gb",
            "sxm",
            "sxm4",
            "sxm5",
            "pcie",
            "nvl",
        }
        model_words = {w for w in model_words if not re.fullmatch(r"\d+gb", w)}
        if not model_words or not model_words <= name:
            continue
        if memory and abs(card.memory_gib - memory) / card.memory_gib > 0.10:
            continue
        candidates.append(card)
    if not candidates:
        return None
    return min(candidates, key=lambda c: (abs(c.board_power_w - power) if power else 0, c.slug))


def _validate(probe: Any) -> dict:
    """The report as it came, once the contract has checked what the calibration reads."""
    if not isinstance(probe, dict):
        raise RequestError("probe", _("must be the JSON object flopfit-probe writes"))
    parse(ProbeReport, probe, root="probe")
    return probe


@transaction.atomic
def calibration_create(*, probe: Any, name: str = "", user=None, team=None) -> CalibrationProfile:
    """Store a probe report; when its device matches a catalog card, derive the factors."""
    probe = _validate(probe)
    card = match_accelerator(probe["device"])
    label = (name or f"{probe['device']['name']} {probe.get('created', '')}").strip()[:200]
    derived = derive(probe, accelerator_spec(card), name=label).as_dict() if card else None
    return CalibrationProfile.objects.create(
        name=label,
        accelerator=card,
        device_name=probe["device"]["name"][:200],
        probe=probe,
        derived=derived,
        team=team,
        created_by=user,
    )


def calibration_spec(profile: CalibrationProfile) -> CalibrationSpec:
    c = profile.derived["calibration"]
    return CalibrationSpec(
        name=profile.name,
        gemm_efficiency=MappingProxyType(dict(c["gemm_efficiency"])),
        memory_bw_efficiency=c["memory_bw_efficiency"],
        scale_up_efficiency=c["scale_up_efficiency"],
        step_efficiency=c["step_efficiency"],
    )


def usable_profile(*, profile_id: Any, user=None) -> CalibrationProfile:
    """The profile an estimate or a plan names, among those `user` may see (all of them for
    the command line), matched to a catalog card; `RequestError` on "calibration" if not."""
    from planner.calibrations.selectors import calibration_visible_to

    if isinstance(profile_id, bool) or not isinstance(profile_id, int):
        raise RequestError("calibration", _("must be a calibration profile's id"))
    profiles = CalibrationProfile.objects.all() if user is None else calibration_visible_to(user)
    profile = profiles.select_related("accelerator").filter(pk=profile_id).first()
    if profile is None:
        raise RequestError("calibration", _("no calibration profile {profile}"), profile=profile_id)
    if profile.accelerator is None:
        raise RequestError(
            "calibration", _("profile {profile} matched no catalog accelerator"), profile=profile_id
        )
    return profile
