"""Reads of sites and racks, always through what a user may see."""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from datetime import datetime

from django.db.models import F, Q, QuerySet, Sum

from accounts.roles import Role, has_role
from accounts.services import user_team
from planner.choices import Visibility
from planner.models import CalibrationProfile, Plan, RackGroup, Site, Workload


def site_visible_to(user) -> QuerySet[Site]:
    """Sites of the user's team, plus sites other teams share; admins see every site."""
    if has_role(user, Role.ADMIN):
        return Site.objects.all()
    team = user_team(user)
    if team is None:
        return Site.objects.filter(visibility=Visibility.SHARED)
    return Site.objects.filter(Q(team=team) | Q(visibility=Visibility.SHARED))


def site_editable_by(user) -> QuerySet[Site]:
    """Sites a user may change: facility people edit their own team's sites."""
    if has_role(user, Role.ADMIN):
        return Site.objects.all()
    if not has_role(user, Role.FACILITY):
        return Site.objects.none()
    team = user_team(user)
    return Site.objects.filter(team=team) if team else Site.objects.none()


def rack_group_visible_to(user) -> QuerySet[RackGroup]:
    return RackGroup.objects.filter(site__in=site_visible_to(user)).select_related("site")


@dataclass(frozen=True)
class SiteCapacity:
    racks: int
    power_kw: float
    cooling_kw: float
    units: int


def site_capacity(*, site: Site) -> SiteCapacity:
    """Totals over the site's rack groups (count x per-rack figure)."""
    totals = site.rack_groups.aggregate(
        racks=Sum("count"),
        power=Sum(F("count") * F("power_kw")),
        cooling=Sum(F("count") * F("cooling_kw")),
        units=Sum(F("count") * F("units")),
    )
    return SiteCapacity(
        racks=totals["racks"] or 0,
        power_kw=float(totals["power"] or 0),
        cooling_kw=float(totals["cooling"] or 0),
        units=int(totals["units"] or 0),
    )


def _readable(value):
    """Many-to-many history comes as through-table rows; show the fabrics' slugs instead."""
    if isinstance(value, list) and value and isinstance(value[0], dict) and "fabric" in value[0]:
        from catalog.models import Fabric

        ids = [row["fabric"] for row in value]
        return sorted(Fabric.objects.filter(pk__in=ids).values_list("slug", flat=True))
    return value


def history_of(obj) -> list[dict]:
    """Each recorded version, newest first: who, when, what kind of change, and the fields
    that changed with their old and new values."""
    records = list(
        obj.history.select_related("history_user").order_by("-history_date", "-history_id")
    )
    out = []
    for newer, older in zip(records, [*records[1:], None], strict=True):
        changes = []
        if older is not None:
            delta = newer.diff_against(older)
            changes = [
                {"field": c.field, "old": _readable(c.old), "new": _readable(c.new)}
                for c in delta.changes
            ]
        out.append(
            {
                "when": newer.history_date,
                "who": newer.history_user.username if newer.history_user else None,
                "kind": {"+": "created", "~": "changed", "-": "deleted"}[newer.history_type],
                "changes": changes,
            }
        )
    return out


def plan_visible_to(user) -> QuerySet[Plan]:
    """The plans of the user's team; another team's plan is a 404, whatever the role."""
    team = user_team(user)
    return Plan.objects.filter(team=team) if team else Plan.objects.none()


# Decoded rankings of the plans a process showed last. A ranking is written once, by
# `plan_create`, and only read after (Candidate.as_dict shares its sections rather than copy
# them, for the same reason). A whole-catalog plan stores about 1.4 MB of JSON: decoding it
# took its page about 20 ms of a 65 ms view, more than re-ordering it (5 ms); decoded, one
# takes about 3.4 MiB, so a process keeps a few.
RANKING_CACHE_PLANS = 8
_rankings: OrderedDict[tuple[int, datetime], dict | None] = OrderedDict()
_rankings_lock = threading.Lock()


def plan_with_ranking(*, plans: QuerySet[Plan], pk: int) -> Plan | None:
    """The plan `pk` among `plans` (None when it is not one of them), its ranking decoded once
    per process for each version of the row (`updated_at`). Treat the ranking as read-only:
    later requests share it."""
    plan = plans.defer("ranking").filter(pk=pk).first()
    if plan is None:
        return None
    key = (plan.pk, plan.updated_at)
    with _rankings_lock:
        hit = key in _rankings
        if hit:
            _rankings.move_to_end(key)
            ranking = _rankings[key]
    if not hit:
        row = Plan.objects.filter(pk=plan.pk).values_list("ranking", "updated_at").first()
        if row is None:  # deleted since the first query
            return None
        ranking, updated_at = row
        with _rankings_lock:
            _rankings[(plan.pk, updated_at)] = ranking
            while len(_rankings) > RANKING_CACHE_PLANS:
                _rankings.popitem(last=False)
    plan.ranking = ranking
    return plan


def workload_visible_to(user) -> QuerySet[Workload]:
    team = user_team(user)
    return Workload.objects.filter(team=team) if team else Workload.objects.none()


def calibration_visible_to(user) -> QuerySet[CalibrationProfile]:
    """The user's team's profiles and the shared ones (no team: stored by `manage.py
    calibrate`); another team's profile is a 404, whatever the role."""
    team = user_team(user)
    shared = Q(team__isnull=True)
    rows = CalibrationProfile.objects.filter(shared | Q(team=team) if team else shared)
    return rows.select_related("accelerator")
