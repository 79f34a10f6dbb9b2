"""Writes to sites and rack groups, and their CSV import and export. Every write goes through
here, inside a transaction, with full model validation first."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import ProtectedError, RestrictedError

from catalog.models import Fabric
from planner.csv_import import CSV_MAX_BYTES as CSV_MAX_BYTES
from planner.csv_import import (
    CsvPreview,
    CsvRow,
    import_checked,
    parse_bool,
    read_csv_rows,
    write_csv,
)
from planner.models import RackGroup, Site
from planner.racks.services import racks_match_count
from planner.versioning import ConflictError, claim_version, save_versioned

CSV_COLUMNS = list(RackGroup.STATED_FIELDS)
CSV_OPTIONAL_COLUMNS = ("fabrics", "liquid_loops", "inlet_c", "feeds", "cooling")
# Left to their number check: "-5" there is a wrong number, not a formula.
CSV_NUMERIC_COLUMNS = ("power_kw", "cooling_kw", "count", "units", "max_kg", "inlet_c")


def _full_clean(obj) -> None:
    obj.full_clean()


@transaction.atomic
def site_create(*, team, user, **fields) -> Site:
    site = Site(team=team, created_by=user, **fields)
    _full_clean(site)
    save_versioned(site)
    return site


@transaction.atomic
def site_update(*, site: Site, **fields) -> Site:
    """Change a site that still stands at `site.version`, the version the caller read;
    otherwise StaleVersionError, and nothing is written."""
    for name, value in fields.items():
        setattr(site, name, value)
    _full_clean(site)
    save_versioned(site)
    return site


@transaction.atomic
def site_delete(*, site: Site) -> None:
    """Delete a site still at the version the caller read, with its rack groups (their history
    stays)."""
    claim_version(site)
    try:
        site.delete()
    except (ProtectedError, RestrictedError) as exc:
        raise ConflictError("Other records still use this site; remove them first.") from exc


@transaction.atomic
def rack_group_save(*, rack_group: RackGroup, fabrics=None) -> RackGroup:
    """Create a rack group, or change one that still stands at `rack_group.version`; a change
    of fabrics counts as a change of the rack group and raises its version too. Its racks
    follow its count (planner.racks.services.racks_match_count)."""
    _full_clean(rack_group)
    save_versioned(rack_group)
    racks_match_count(rack_group=rack_group)
    if fabrics is not None:
        rack_group.fabrics.set(fabrics)
    return rack_group


@transaction.atomic
def rack_group_delete(*, rack_group: RackGroup) -> None:
    """Delete a rack group still at the version the caller read."""
    claim_version(rack_group)
    rack_group.delete()


@dataclass
class RackCsvRow(CsvRow):
    rack_group: RackGroup | None = None
    fabrics: list[Fabric] = field(default_factory=list)


@dataclass
class RackCsvPreview(CsvPreview):
    rows: list[RackCsvRow]

    @property
    def versions(self) -> dict[str, int | None]:
        """What each row would overwrite: the version of the rack group of that name, or None
        for a row that adds one. The import compares it with what the preview showed."""
        return {
            row.values.get("name", ""): row.rack_group.version if row.rack_group.pk else None
            for row in self.rows
            if row.rack_group is not None
        }


def rack_csv_preview(*, site: Site, data: bytes) -> RackCsvPreview:
    """Read a CSV of rack groups and check every row without saving anything."""
    read = read_csv_rows(
        data, columns=CSV_COLUMNS, optional=CSV_OPTIONAL_COLUMNS, numeric=CSV_NUMERIC_COLUMNS
    )
    rows = [RackCsvRow(row.line, row.values, row.errors) for row in read.rows]
    if read.errors:
        return RackCsvPreview(rows, read.errors)
    names_seen: dict[str, int] = {}
    fabrics_by_slug = {f.slug: f for f in Fabric.objects.all()}
    for row in rows:
        if row.errors:
            continue
        _check_row(site, row, fabrics_by_slug)
        name = row.values.get("name", "")
        if name in names_seen:
            row.add_error("name", f"also on line {names_seen[name]}")
        names_seen.setdefault(name, row.line)
    return RackCsvPreview(rows, [])


def _check_row(site: Site, row: RackCsvRow, fabrics_by_slug: dict[str, Fabric]) -> None:
    v = row.values
    existing = RackGroup.objects.filter(site=site, name=v.get("name", "")).first()
    group = existing or RackGroup(site=site)
    numbers = {
        "count": int,
        "power_kw": float,
        "cooling_kw": float,
        "units": int,
        "max_kg": float,
        "inlet_c": float,
    }
    for column, kind in numbers.items():
        if column == "inlet_c" and not v.get(column):
            continue
        try:
            setattr(group, column, kind(v.get(column, "")))
        except ValueError:
            row.add_error(column, f"{v.get(column, '')!r} is not a number")
    group.name = v.get("name", "")
    if v.get("feeds"):
        group.feeds = v["feeds"]
    if v.get("cooling"):
        group.cooling = v["cooling"]
    try:
        group.liquid_loops = parse_bool(v.get("liquid_loops", ""))
    except ValidationError as exc:
        row.errors.setdefault("liquid_loops", []).extend(exc.messages)
    slugs = v.get("fabrics", "").split()
    unknown = [s for s in slugs if s not in fabrics_by_slug]
    if unknown:
        row.add_error("fabrics", f"unknown fabric {', '.join(unknown)}")
    row.fabrics = [fabrics_by_slug[s] for s in slugs if s in fabrics_by_slug]
    if row.errors:
        return
    try:
        group.full_clean(exclude=["site"])
    except ValidationError as exc:
        for name, messages in exc.message_dict.items():
            row.errors.setdefault("row" if name == "__all__" else name, []).extend(messages)
    row.rack_group = group


@transaction.atomic
def rack_import_csv(
    *, site: Site, data: bytes, expected_versions: dict[str, int | None]
) -> RackCsvPreview:
    """Import every row or none: re-checks the file, then creates or updates by name.

    `expected_versions` is the preview's `versions`, what the person confirmed. The site's rack
    groups are locked first, so nobody changes them while the file is checked and saved; if
    any of them changed after the preview (or a row's name was taken meanwhile), nothing is
    imported and StaleVersionError says so, instead of overwriting an edit nobody saw."""
    return import_checked(
        RackGroup.objects.filter(site=site),
        lambda: rack_csv_preview(site=site, data=data),
        lambda row: rack_group_save(rack_group=row.rack_group, fabrics=row.fabrics),
        expected_versions=expected_versions,
        changed="The site's rack groups changed since the preview.",
    )


def rack_export_csv(*, site: Site) -> str:
    return write_csv(
        CSV_COLUMNS,
        (
            [
                group.name,
                group.count,
                group.power_kw,
                group.feeds,
                group.cooling_kw,
                group.cooling,
                group.units,
                group.max_kg,
                group.inlet_c,
                "true" if group.liquid_loops else "false",
                " ".join(f.slug for f in group.fabrics.order_by("slug")),
            ]
            for group in site.rack_groups.prefetch_related("fabrics").order_by("name")
        ),
    )
