"""NetBox sites and racks to the team's sites, rack groups and racks.

A NetBox site becomes a site of the importing team (matched by NetBox's id, else by name; never
another team's); a rack becomes a rack in a rack group per NetBox location (one per site where
racks have no location). Racks state their own height and load; their power comes from their
feeds (planner.netbox.power)."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from django.core.exceptions import ValidationError
from django.utils.formats import number_format
from django.utils.translation import gettext as _

from planner.choices import Feeds, NetboxKind
from planner.models import Rack, RackGroup, Site
from planner.netbox import formats
from planner.netbox.formats import KG_PER, Problem, Record, Where
from planner.netbox.links import Links
from planner.netbox.results import (
    CREATED,
    SKIPPED,
    UNCHANGED,
    UPDATED,
    Change,
    ImportOptions,
    ImportResult,
)
from planner.racks.services import rack_group_create_with_racks, rack_save
from planner.sites.services import site_create, site_update
from planner.versioning import ConflictError

# The rack group of a NetBox site's racks that have no location.
NO_LOCATION_GROUP = "NetBox"

# Model fields to the NetBox field a problem with them names.
RACK_FIELDS = {"name": "name", "units": "u_height", "max_kg": "max_weight"}
SITE_FIELDS = {"name": "name", "location": "physical_address"}


def rack_key(site: str, location: str | None, name: str) -> str:
    return f"{site}/{location or ''}/{name}"


def weight_kg(record: Record, number: str) -> float | None:
    value = record.get(number)
    if value is None:
        return None
    return float(value) * KG_PER[record.get("weight_unit", "kg")]


@dataclass
class Sync:
    """One import's work: the team's rows as they stand, the links, what changed and what is
    wrong. Every write goes through the sites' and racks' services."""

    team: Any
    user: Any
    options: ImportOptions
    result: ImportResult
    links: Links
    problems: list[Problem] = field(default_factory=list)
    sites: dict[str, Site] = field(default_factory=dict)  # NetBox site name -> ours
    racks: dict[str, Rack] = field(default_factory=dict)  # rack_key -> ours
    rack_names: dict[tuple[str, str], list[str]] = field(default_factory=dict)
    # The usable kW of each NetBox rack's active primary feeds in the files, and whether it
    # has a redundant one, by (site, rack name): a new rack group's power comes from them.
    feeds_kw: dict[tuple[str, str], float] = field(default_factory=dict)
    redundant: dict[tuple[str, str], bool] = field(default_factory=dict)
    new_groups: set[int] = field(default_factory=set)  # the rack groups this import made

    def refuse(self, where: Where, message: str) -> None:
        self.problems.append(Problem(where, message))

    def refuse_invalid(self, error: ValidationError, record: Record, fields: dict[str, str]):
        for name, messages in error.message_dict.items():
            where = record.at(fields.get(name, ""))
            for message in messages:
                self.refuse(where, message)

    def skip(self, kind: str, name: str, record: Record, note: str) -> None:
        self.result.changes.append(Change(kind, name, SKIPPED, where=record.at(), note=note))

    def rack_named(self, record: Record, site: str, location: str | None, name: str) -> Rack | None:
        """The rack a feed or device names, or None with a problem at its rack cell."""
        rack = self.rack_for(site, location, name)
        if rack is None or rack.pk is None:
            message = _(
                "the rack “%(rack)s” is in no racks file here and not among the racks imported "
                "before."
            )
            self.refuse(record.at("rack"), message % {"rack": name})
            return None
        return rack

    @staticmethod
    def apply_changes(row: Any, wanted: dict[str, Any]) -> list[tuple[str, Any, Any]]:
        """Set `wanted` on `row`: the (field, old, new) that differ, related rows by name."""
        changed = [(k, getattr(row, k), v) for k, v in wanted.items() if getattr(row, k) != v]
        for name, _old, value in changed:
            setattr(row, name, value)
        return [(k, _shown(old), _shown(new)) for k, old, new in changed]

    def stamp(self, row: Any) -> Any:
        row._history_user = self.user  # django-simple-history: who made the change
        return row

    # --- sites --------------------------------------------------------------------------------

    def team_sites(self):
        return Site.objects.filter(team=self.team)

    def site_named(self, name: str, records: dict[str, Record], where: Where) -> Site | None:
        """Our site for a NetBox site name: linked, or of that name, or created."""
        if name in self.sites:
            return self.sites[name]
        record = records.get(name) or Record(formats.SITE, {"name": name}, {"": where})
        site = self.links.row(NetboxKind.SITE, record, name, self.team_sites())
        site = site or self.team_sites().filter(name=name).first()
        location = record.get("physical_address") or record.get("facility") or ""
        wanted = {"name": name} | ({"location": location[:200]} if location else {})
        if site is None:
            made: list[Site | None] = []
            self.write(lambda: made.append(self._site_create(record, wanted)), record, SITE_FIELDS)
            site = made[0] if made else None
        else:
            self.write(lambda: self._site_update(site, record, wanted), record, SITE_FIELDS)
        if site is not None and site.pk is not None:
            self.links.keep(NetboxKind.SITE, record, name, site)
            self.sites[name] = site
        return site

    def _site_create(self, record: Record, wanted: dict[str, Any]) -> Site | None:
        o = self.options
        if o.pue is None or o.electricity_price_per_kwh is None:
            self.refuse(
                record.at("name"),
                _(
                    "the site “%(name)s” is new here: give the PUE and electricity price that "
                    "new sites take (NetBox keeps neither)."
                )
                % {"name": wanted["name"]},
            )
            return None
        extra = {"currency": o.currency} if o.currency else {}
        site = site_create(
            team=self.team,
            user=self.user,
            pue=o.pue,
            electricity_price_per_kwh=o.electricity_price_per_kwh,
            **extra,
            **wanted,
        )
        self.result.changes.append(Change("site", site.name, CREATED, where=record.at()))
        return site

    def _site_update(self, site: Site, record: Record, wanted: dict[str, Any]) -> None:
        changed = [(k, getattr(site, k), v) for k, v in wanted.items() if getattr(site, k) != v]
        if changed:
            site_update(site=self.stamp(site), **{k: v for k, _old, v in changed})
        action = UPDATED if changed else UNCHANGED
        self.result.changes.append(Change("site", site.name, action, changed, record.at()))

    # --- racks --------------------------------------------------------------------------------

    def rack_for(self, site: str, location: str | None, name: str) -> Rack | None:
        """A rack this import knows by NetBox names: the location may be left out where the
        site has one rack of that name."""
        rack = self.racks.get(rack_key(site, location, name))
        if rack is None and not location:
            keys = self.rack_names.get((site, name), [])
            rack = self.racks.get(keys[0]) if len(keys) == 1 else None
        if rack is None:
            # A rack an earlier import brought, or one the team keeps under that name.
            ours = Rack.objects.filter(
                rack_group__site__team=self.team, rack_group__site__name=site, name=name
            )
            if location:
                ours = ours.filter(rack_group__name=location)
            found = list(ours[:2])
            rack = found[0] if len(found) == 1 else None
        return rack

    def sync_racks(self, racks: list[Record], site_records: dict[str, Record]) -> None:
        """Change the racks NetBox changed; place the new ones in their location's group."""
        new: dict[tuple[str, str], list[tuple[Record, Rack]]] = defaultdict(list)
        for record in racks:
            site = self.site_named(record.get("site"), site_records, record.at("site"))
            if site is None:
                continue
            location, name = record.get("location"), record.get("name")
            key = rack_key(site.name, location, name)
            ours = Rack.objects.filter(rack_group__site=site)
            rack = self.links.row(NetboxKind.RACK, record, key, ours)
            rack = (
                rack
                or ours.filter(rack_group__name=location or NO_LOCATION_GROUP, name=name).first()
            )
            wanted = self._rack_values(record)
            if rack is None:
                rack = self.stamp(Rack(name=name, **wanted))
                new[(site.name, location or NO_LOCATION_GROUP)].append((record, rack))
            else:
                self._rack_update(rack, record, wanted)
            self.racks[key] = rack
            self.rack_names.setdefault((site.name, name), []).append(key)
        for (site_name, group_name), placed in new.items():
            self._place(self.sites[site_name], group_name, placed)
        for record in racks:
            key = rack_key(record.get("site"), record.get("location"), record.get("name"))
            rack = self.racks.get(key)
            if rack is not None and rack.pk is not None:
                self.links.keep(NetboxKind.RACK, record, key, rack)

    def _rack_values(self, record: Record) -> dict[str, Any]:
        wanted: dict[str, Any] = {"units": record.get("u_height", formats.RACK_DEFAULT_U_HEIGHT)}
        max_kg = weight_kg(record, "max_weight")
        if max_kg is not None:
            wanted["max_kg"] = round(max_kg, 3)
        return wanted

    def _rack_update(self, rack: Rack, record: Record, wanted: dict[str, Any]) -> None:
        changed = self.apply_changes(rack, {"name": record.get("name")} | wanted)
        if changed:
            self.write(lambda: rack_save(rack=self.stamp(rack)), record, RACK_FIELDS)
        action = UPDATED if changed else UNCHANGED
        self.result.changes.append(Change("rack", str(rack), action, changed, record.at()))

    def write(self, write, record: Record, fields: dict[str, str]) -> bool:
        """Run a service's write; what it refuses becomes a problem at the record's place."""
        try:
            write()
        except ValidationError as error:
            self.refuse_invalid(error, record, fields)
            return False
        except ConflictError:
            self.refuse(record.at("name"), _("another row here already has this name."))
            return False
        return True

    def _place(self, site: Site, group_name: str, placed: list[tuple[Record, Rack]]) -> None:
        group = site.rack_groups.filter(name=group_name).first()
        for record, rack in placed:
            self.result.changes.append(
                Change("rack", f"{group_name} / {rack.name}", CREATED, where=record.at())
            )
        if group is not None:
            last = group.racks.order_by("-position").values_list("position", flat=True).first()
            for offset, (record, rack) in enumerate(placed, start=1):
                rack.rack_group, rack.position = group, (last or 0) + offset
                self.write(lambda rack=rack: rack_save(rack=rack), record, RACK_FIELDS)
            return
        figures = self._group_figures(site, group_name, placed)
        if not figures:
            return
        group = self.stamp(RackGroup(site=site, name=group_name, count=len(placed), **figures))
        for position, (_record, rack) in enumerate(placed, start=1):
            rack.position = position
        self.write(
            lambda: rack_group_create_with_racks(rack_group=group, racks=[r for _x, r in placed]),
            placed[0][0],
            RACK_FIELDS | {"power_kw": "", "cooling_kw": "", "units": "u_height"},
        )
        if group.pk is not None:
            self.new_groups.add(group.pk)
        self.result.changes.append(
            Change("rack_group", str(group), CREATED, where=placed[0][0].at())
        )

    def _group_figures(
        self, site: Site, group_name: str, placed: list[tuple[Record, Rack]]
    ) -> dict[str, Any]:
        """A new rack group's figures from its racks. Cooling, which NetBox does not keep: as
        asked, else the site's other rack groups', else equal to the group's power; the result
        notes which."""
        o = self.options
        keys = [(site.name, rack.name) for _record, rack in placed]
        powers = [self.feeds_kw[k] for k in keys if self.feeds_kw.get(k)]
        power_kw = max(powers) if powers else o.power_kw
        loads = [rack.max_kg for _record, rack in placed if rack.max_kg is not None]
        max_kg = max(loads) if loads else o.max_kg
        if power_kw is None:
            self.refuse(
                placed[0][0].at(),
                _(
                    "no active primary power feed of these racks is in the files: import their "
                    "power feeds, or give the power per rack a new rack group takes."
                ),
            )
        if max_kg is None:
            self.refuse(
                placed[0][0].at("max_weight"),
                _("no max_weight for these racks: give the load per rack a new rack group takes."),
            )
        if power_kw is None or max_kg is None:
            return {}
        # The groups the site had before this import: one it made a moment ago took its
        # cooling from its own power, not from what the site keeps.
        site_cooling = list(
            site.rack_groups.exclude(pk__in=self.new_groups)
            .order_by("-cooling_kw")
            .values_list("cooling_kw", flat=True)[:1]
        )
        if o.cooling_kw is not None:
            cooling_kw, source = o.cooling_kw, _("as asked")
        elif site_cooling:
            cooling_kw, source = site_cooling[0], _("as the site's other rack groups")
        else:
            cooling_kw, source = power_kw, _("equal to its power")
        self.result.notes.append(
            _(
                "NetBox keeps no cooling: the new rack group “%(group)s” takes %(kw)s kW of "
                "cooling per rack, %(source)s. Change it on the site's page if it differs."
            )
            % {
                "group": f"{site.name} / {group_name}",
                "kw": number_format(round(cooling_kw, 1), 1),
                "source": source,
            }
        )
        redundant = any(self.redundant.get(k) for k in keys)
        return {
            "power_kw": round(power_kw, 3),
            "cooling_kw": round(cooling_kw, 3),
            "cooling": o.cooling,
            "units": max(rack.units for _record, rack in placed),
            "max_kg": max_kg,
            "feeds": Feeds.A_B_2N if redundant else Feeds.SINGLE,
        }


def _shown(value: Any) -> Any:
    """A related row as its name, for the preview and the JSON."""
    return str(value) if hasattr(value, "pk") else value
