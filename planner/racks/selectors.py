"""Reads of racks, always through what a user may see: a rack of another team's private site
is a 404, never a hint that it exists."""

from __future__ import annotations

from django.db.models import QuerySet

from planner.models import Equipment, PowerFeed, Rack, RackGroup, Site
from planner.sites.selectors import rack_group_visible_to, site_editable_by, site_visible_to


def rack_visible_to(user) -> QuerySet[Rack]:
    return Rack.objects.filter(rack_group__site__in=site_visible_to(user)).select_related(
        "rack_group", "rack_group__site"
    )


def rack_group_of(user, pk: int) -> RackGroup | None:
    return rack_group_visible_to(user).filter(pk=pk).first()


def rack_editable(user, rack_group: RackGroup) -> bool:
    """Facility people change the racks of their own team's sites; admins any."""
    return site_editable_by(user).filter(pk=rack_group.site_id).exists()


def site_racks(*, site: Site) -> QuerySet[Rack]:
    return (
        Rack.objects.filter(rack_group__site=site)
        .select_related("rack_group")
        .order_by("rack_group__name", "position", "name")
    )


def equipment_visible_to(user) -> QuerySet[Equipment]:
    return Equipment.objects.filter(
        rack__rack_group__site__in=site_visible_to(user)
    ).select_related("rack__rack_group__site", "server")


def power_feed_visible_to(user) -> QuerySet[PowerFeed]:
    return PowerFeed.objects.filter(rack__in=rack_visible_to(user)).select_related(
        "rack__rack_group__site"
    )


def fit_racks(*, site: Site, rack_group: RackGroup | None = None) -> QuerySet[Rack]:
    """The racks a fit fills, in the order of their rows, with what their limits need."""
    racks = site_racks(site=site).prefetch_related("feeds")
    return racks if rack_group is None else racks.filter(rack_group=rack_group)
