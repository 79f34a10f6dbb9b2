"""NetBox power feeds to racks' feeds, and the files' records found by NetBox id or names.

A feed counts when NetBox calls it active and names its rack: its usable power is NetBox's
formula (voltage x amperage x max_utilization, x sqrt 3 for three-phase:
netbox/dcim/models/power.py PowerFeed.save; planner.engine.facility.feed_usable_kw)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

from planner.choices import FeedPhase, FeedSupply, FeedType, NetboxKind
from planner.models import PowerFeed
from planner.netbox import formats
from planner.netbox.formats import Record
from planner.netbox.results import CREATED, UNCHANGED, UPDATED, Change
from planner.netbox.sync import Sync
from planner.racks.feeds import power_feed_save

FEED_FIELDS = {
    "name": "name",
    "voltage": "voltage",
    "amperage": "amperage",
    "max_utilisation": "max_utilization",
    "phase": "phase",
    "supply": "supply",
    "feed_type": "type",
}
PHASES = {"single-phase": FeedPhase.SINGLE, "three-phase": FeedPhase.THREE}


@dataclass
class Index:
    """The files' records, found by NetBox id or names."""

    racks_by_id: dict[int, Record]
    panels_by_id: dict[int, Record]
    panels_by_name: dict[str, Record]
    types: dict[str, Record]  # by model and by slug
    ports_by_device: dict[str, list[Record]]  # by "id:N" and by name

    @classmethod
    def of(cls, records: dict[str, list[Record]]) -> Index:
        types: dict[str, Record] = {}
        for record in records[formats.DEVICE_TYPE]:
            types[record.get("model", "").lower()] = record
            if record.get("slug"):
                types[record.get("slug").lower()] = record
        ports: dict[str, list[Record]] = {}
        for port in records[formats.POWER_PORT]:
            key = f"id:{port.get('device_id')}" if port.get("device_id") else port.get("device")
            ports.setdefault(key, []).append(port)
        return cls(
            racks_by_id={r.values["id"]: r for r in records[formats.RACK] if r.get("id")},
            panels_by_id={r.values["id"]: r for r in records[formats.POWER_PANEL] if r.get("id")},
            panels_by_name={r.get("name"): r for r in records[formats.POWER_PANEL]},
            types=types,
            ports_by_device=ports,
        )

    def feed_site(self, record: Record) -> str | None:
        """A feed's site: its own column, else its panel's, else its rack's (an API answer names
        the panel and rack, not the site)."""
        panel = self.panels_by_id.get(record.get("power_panel_id") or -1)
        panel = panel or self.panels_by_name.get(record.get("power_panel"))
        rack = self.racks_by_id.get(record.get("rack_id") or -1)
        for source in (record, panel, rack):
            if source is not None and source.get("site"):
                return source.get("site")
        return None

    def rack_of(self, record: Record) -> tuple[str | None, str]:
        """The location and name of the rack a feed or device names: by NetBox's id where the
        files carry the rack's record (its name may have changed since), else as named."""
        rack = self.racks_by_id.get(record.get("rack_id") or -1)
        if rack is not None:
            return rack.get("location"), rack.get("name")
        return record.get("location"), record.get("rack")


def feed_values(record: Record) -> dict[str, Any]:
    """Our feed's values from NetBox's, with NetBox's defaults for the figures left out. A DC
    feed's voltage may be negative in NetBox; its magnitude is what it carries."""
    return {
        "name": record.get("name"),
        "supply": FeedSupply(record.get("supply", "ac")),
        "phase": PHASES[record.get("phase", "single-phase")],
        "voltage": abs(record.get("voltage", formats.FEED_DEFAULT_VOLTAGE_V)),
        "amperage": record.get("amperage", formats.FEED_DEFAULT_AMPERAGE_A),
        "feed_type": FeedType(record.get("type", "primary")),
        "max_utilisation": record.get("max_utilization", formats.FEED_DEFAULT_MAX_UTILIZATION_PCT),
    }


def counted(record: Record) -> bool:
    return record.get("status", "active") == "active" and bool(record.get("rack"))


def feed_power(sync: Sync, index: Index, feeds: list[Record]) -> None:
    """Check every counted feed's figures, and sum each NetBox rack's usable kW from its feeds
    in the files, before any rack is written: a new rack group's power comes from them."""
    for record in feeds:
        site = index.feed_site(record)
        if not counted(record):
            continue
        if site is None:
            sync.refuse(
                record.at("power_panel"),
                _("cannot tell this feed's site: add the site column, or the power panels file."),
            )
            continue
        feed = PowerFeed(**feed_values(record))
        try:
            feed.full_clean(exclude=["rack"], validate_constraints=False)
        except ValidationError as error:
            sync.refuse_invalid(error, record, FEED_FIELDS)
            continue
        key = (site, index.rack_of(record)[1])
        if feed.feed_type == FeedType.PRIMARY:
            sync.feeds_kw[key] = sync.feeds_kw.get(key, 0.0) + feed.usable_kw
        else:
            sync.redundant[key] = True


def sync_feeds(sync: Sync, index: Index, feeds: list[Record]) -> None:
    names: dict[tuple[int, str], int] = {}
    for record in feeds:
        label = f"{record.get('power_panel')} / {record.get('name')}"
        if not counted(record):
            note = (
                _("NetBox calls it %(status)s") % {"status": record.get("status")}
                if record.get("rack")
                else _("it feeds no rack in NetBox")
            )
            sync.skip("power_feed", label, record, note)
            continue
        site = index.feed_site(record) or ""
        rack = sync.rack_named(record, site, *index.rack_of(record))
        if rack is None:
            continue
        wanted = feed_values(record)
        seen = names.setdefault((rack.pk, wanted["name"]), 0)
        names[(rack.pk, wanted["name"])] = seen + 1
        if seen:  # two panels' feeds of one name into one rack: the panel tells them apart
            wanted["name"] = label[:60]
        key = f"{site}/{record.get('power_panel')}/{record.get('name')}"
        ours = PowerFeed.objects.filter(rack__rack_group__site__team=sync.team)
        feed = sync.links.row(NetboxKind.POWER_FEED, record, key, ours)
        feed = feed or ours.filter(rack=rack, name=wanted["name"]).first()
        if feed is None:
            feed, changed, action = PowerFeed(rack=rack, **wanted), [], CREATED
        else:
            changed = sync.apply_changes(feed, wanted | {"rack": rack})
            action = UPDATED if changed else UNCHANGED
        if action != UNCHANGED and not sync.write(
            lambda feed=feed: power_feed_save(feed=sync.stamp(feed)), record, FEED_FIELDS
        ):
            continue
        sync.links.keep(NetboxKind.POWER_FEED, record, key, feed)
        sync.result.changes.append(Change("power_feed", str(feed), action, changed, record.at()))
