"""Reads of sites and rack groups, always through what a user may see."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Q, QuerySet

from accounts.roles import Role, has_role
from accounts.services import user_team
from planner.choices import Visibility
from planner.models import RackGroup, Site
from planner.racks.capacity import site_limit_totals


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
    """Totals over the site's racks, each with its own figures where it states them."""
    totals = site_limit_totals(site=site)
    return SiteCapacity(
        racks=totals.racks,
        power_kw=totals.power_kw,
        cooling_kw=totals.cooling_kw,
        units=totals.units,
    )
