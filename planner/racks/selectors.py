"""Reads of racks, always through what a user may see: a rack of another team's private site
is a 404, never a hint that it exists."""

from __future__ import annotations

from django.db.models import Count, QuerySet, Sum

from planner.engine.facility import RackSpec
from planner.models import Equipment, PowerFeed, Rack, RackCommitment, RackGroup, Site
from planner.racks.fitting import free_rack_spec, group_rack_spec
from planner.racks.occupancy import held, occupancy_by_rack
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


def site_free_racks(
    *, site: Site, except_plan_id: int | None = None
) -> list[tuple[str, RackSpec, int]]:
    """The site's racks as a plan sees them: (rack group, the free capacity as a rack, how many
    racks are alike), each rack's limits less what is installed and what other plans hold.
    Racks with nothing free stay in, so a full site still constrains the plan; a group with
    fewer named racks than its count (one written past the services) counts the rest empty."""
    racks = list(fit_racks(site=site))
    occupancies = occupancy_by_rack(racks, except_plan_id=except_plan_id)
    alike: dict[tuple[str, RackSpec], int] = {}
    named: dict[int, int] = {}
    for rack in racks:
        key = (rack.rack_group.name, free_rack_spec(rack, occupancies[rack.pk]))
        alike[key] = alike.get(key, 0) + 1
        named[rack.rack_group_id] = named.get(rack.rack_group_id, 0) + 1
    for group in site.rack_groups.order_by("name"):
        missing = group.count - named.get(group.pk, 0)
        if missing > 0:
            key = (group.name, group_rack_spec(group))
            alike[key] = alike.get(key, 0) + missing
    return [(name, spec, count) for (name, spec), count in alike.items()]


def site_changed_after(*, site: Site, moment, except_plan_id: int | None = None) -> bool:
    """Whether the site's rack groups, racks, equipment, feeds or other plans' commitments
    changed after `moment` (their histories say when)."""
    after = {"history_date__gt": moment}
    commitments = RackCommitment.history.filter(rack__rack_group__site=site, **after)
    if except_plan_id is not None:
        commitments = commitments.exclude(plan_id=except_plan_id)
    return any(
        changes.exists()
        for changes in (
            RackGroup.history.filter(site=site, **after),
            Rack.history.filter(rack_group__site=site, **after),
            Equipment.history.filter(rack__rack_group__site=site, **after),
            PowerFeed.history.filter(rack__rack_group__site=site, **after),
            commitments,
        )
    )


def plan_commitments(*, plan) -> QuerySet[RackCommitment]:
    """The racks a plan holds now."""
    return held(plan.commitments.select_related("rack__rack_group", "server")).order_by(
        "rack__rack_group__name", "rack__position"
    )


def site_plans_holding(*, site: Site) -> list[dict]:
    """The plans holding room in the site's racks: each plan with its servers and racks."""
    rows = (
        held(RackCommitment.objects.filter(rack__rack_group__site=site))
        .values("plan_id", "plan__name")
        .annotate(servers=Sum("servers"), racks=Count("rack", distinct=True), kw=Sum("power_kw"))
        .order_by("plan__name")
    )
    return [
        {
            "plan_id": r["plan_id"],
            "name": r["plan__name"],
            "servers": r["servers"],
            "racks": r["racks"],
            "power_kw": r["kw"],
        }
        for r in rows
    ]
