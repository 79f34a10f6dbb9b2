"""The NetBox import: read the files, bring the team's sites, racks, feeds and equipment in step
with them, all or nothing. A dry run does the same work and rolls it back, so its preview says
exactly what the import would do."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.utils.translation import gettext as _

from accounts.roles import Role, has_role
from accounts.services import user_team
from planner.models import Rack
from planner.netbox import formats
from planner.netbox.devices import sync_devices
from planner.netbox.formats import ImportRefused, Problem, Record, Where
from planner.netbox.links import Links
from planner.netbox.power import Index, feed_power, sync_feeds
from planner.netbox.readers import NetboxFile, read_files
from planner.netbox.results import ImportOptions, ImportResult, RackPower
from planner.netbox.sync import Sync
from planner.racks.capacity import rack_limits
from planner.versioning import StaleVersionError


def netbox_import_team(user):
    """The team a user imports for: facility people and admins of a team."""
    team = user_team(user)
    if team is None or not has_role(user, Role.FACILITY):
        raise PermissionDenied(_("Importing from NetBox takes the facility role in a team."))
    return team


def _by_kind(records: list[Record], site: str) -> dict[str, list[Record]]:
    by_kind: dict[str, list[Record]] = defaultdict(list)
    for record in records:
        by_kind[record.kind].append(record)
    if not site:
        return by_kind
    index = Index.of(by_kind)
    kept: dict[str, list[Record]] = defaultdict(list)
    for kind, found in by_kind.items():
        for record in found:
            if kind == formats.POWER_FEED:
                record_site = index.feed_site(record)
            elif kind == formats.SITE:
                record_site = record.get("name")
            else:
                record_site = record.get("site", site)  # ports and device types: no site
            if record_site == site:
                kept[kind].append(record)
    return kept


@transaction.atomic
def netbox_import(
    *,
    user,
    files: Iterable[NetboxFile],
    options: ImportOptions,
    dry_run: bool = False,
    expected: str | None = None,
) -> ImportResult:
    """Import NetBox's files for the user's team: every row or none. ImportRefused names each
    problem's file, line and column. `expected` is the fingerprint of the preview a person
    confirmed: when the import would now write something else, StaleVersionError."""
    team = netbox_import_team(user)
    files = list(files)
    records, problems = read_files(files)
    if problems:
        raise ImportRefused(problems)
    by_kind = _by_kind(records, options.site)
    if options.site and not any(by_kind.values()):
        where = Where(files[0].name if files else "-", 1)
        message = _("no NetBox object of the site “%(site)s” in the files.")
        raise ImportRefused([Problem(where, message % {"site": options.site})])
    # One import of a team at a time: a second waits here until the first is done (the team's
    # row, which is there even before the team has a site).
    type(team).objects.select_for_update().filter(pk=team.pk).first()
    sync = Sync(team, user, options, ImportResult(dry_run=dry_run), Links(team))
    _run(sync, by_kind)
    if sync.problems:
        raise ImportRefused(sync.problems)
    sync.result.racks = _rack_power(sync)
    if expected is not None and sync.result.fingerprint() != expected:
        raise StaleVersionError(None, _("The team's racks changed since the preview."))
    if dry_run:
        transaction.set_rollback(True)
    return sync.result


def _run(sync: Sync, by_kind: dict[str, list[Record]]) -> None:
    """Sites, racks, feeds, devices, each on what the one before made; the first step with
    problems ends the import, so that they are not repeated as problems of what follows."""
    index = Index.of(by_kind)
    site_records = {r.get("name"): r for r in by_kind[formats.SITE]}
    steps = (
        lambda: feed_power(sync, index, by_kind[formats.POWER_FEED]),
        lambda: [
            sync.site_named(r.get("name"), site_records, r.at()) for r in by_kind[formats.SITE]
        ],
        lambda: sync.sync_racks(by_kind[formats.RACK], site_records),
        lambda: sync_feeds(sync, index, by_kind[formats.POWER_FEED]),
        lambda: sync_devices(sync, index, by_kind[formats.DEVICE]),
    )
    for step in steps:
        step()
        if sync.problems:
            return


def _rack_power(sync: Sync) -> list[RackPower]:
    """Each rack the files name, with the power it may draw now."""
    pks = {rack.pk for rack in sync.racks.values() if rack.pk is not None}
    racks = Rack.objects.filter(pk__in=pks).select_related("rack_group__site")
    out = []
    for rack in racks.prefetch_related("feeds").order_by(
        "rack_group__site__name", "rack_group__name", "position", "name"
    ):
        limits = rack_limits(rack)
        out.append(
            RackPower(
                site=rack.rack_group.site.name,
                rack_group=rack.rack_group.name,
                rack=rack.name,
                usable_power_kw=limits.power_kw,
                power_from=limits.power_from,
            )
        )
    return out
