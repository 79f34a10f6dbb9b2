"""Writes to sites and rack groups, and their CSV import and export. Every write goes through
here, inside a transaction, with full model validation first."""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import ProtectedError, RestrictedError

from catalog.models import Fabric
from planner.models import RackGroup, Site
from planner.versioning import ConflictError, StaleVersionError, claim_version, save_versioned

CSV_COLUMNS = list(RackGroup.STATED_FIELDS)
CSV_MAX_BYTES = 256 * 1024
CSV_MAX_ROWS = 2000
# Spreadsheet programs run cells starting with these as formulas (CSV injection).
FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")


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
    of fabrics counts as a change of the rack group and raises its version too."""
    _full_clean(rack_group)
    save_versioned(rack_group)
    if fabrics is not None:
        rack_group.fabrics.set(fabrics)
    return rack_group


@transaction.atomic
def rack_group_delete(*, rack_group: RackGroup) -> None:
    """Delete a rack group still at the version the caller read."""
    claim_version(rack_group)
    rack_group.delete()


@dataclass
class CsvRow:
    line: int
    values: dict[str, str]
    errors: dict[str, list[str]] = field(default_factory=dict)
    rack_group: RackGroup | None = None
    fabrics: list[Fabric] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.errors


@dataclass
class CsvPreview:
    rows: list[CsvRow]
    errors: list[str]  # problems with the file as a whole

    @property
    def ok(self) -> bool:
        return not self.errors and bool(self.rows) and all(r.ok for r in self.rows)

    @property
    def versions(self) -> dict[str, int | None]:
        """What each row would overwrite: the version of the rack group of that name, or None
        for a row that adds one. The import compares it with what the preview showed."""
        return {
            row.values.get("name", ""): row.rack_group.version if row.rack_group.pk else None
            for row in self.rows
            if row.rack_group is not None
        }


def _parse_bool(text: str) -> bool:
    lowered = text.strip().lower()
    if lowered in {"true", "yes", "1"}:
        return True
    if lowered in {"false", "no", "0", ""}:
        return False
    raise ValidationError(f"{text!r} is not true or false")


def rack_csv_preview(*, site: Site, data: bytes) -> CsvPreview:
    """Read a CSV of rack groups and check every row without saving anything."""
    if len(data) > CSV_MAX_BYTES:
        return CsvPreview(
            [], [f"The file is {len(data) // 1024} KiB; the limit is {CSV_MAX_BYTES // 1024} KiB."]
        )
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return CsvPreview([], ["The file is not UTF-8 text."])
    if "\x00" in text:
        return CsvPreview([], ["The file contains binary data, not CSV text."])
    try:
        reader = csv.DictReader(io.StringIO(text))
        header = reader.fieldnames or []
    except csv.Error as exc:
        return CsvPreview([], [f"Not a CSV file: {exc}"])
    missing = [
        c
        for c in CSV_COLUMNS
        if c not in header and c not in ("fabrics", "liquid_loops", "inlet_c", "feeds", "cooling")
    ]
    unknown = [c for c in header if c not in CSV_COLUMNS]
    problems = []
    if missing:
        problems.append(f"Missing columns: {', '.join(missing)}.")
    if unknown:
        problems.append(
            f"Unknown columns: {', '.join(unknown)}; expected {', '.join(CSV_COLUMNS)}."
        )
    if problems:
        return CsvPreview([], problems)

    rows: list[CsvRow] = []
    names_seen: dict[str, int] = {}
    fabrics_by_slug = {f.slug: f for f in Fabric.objects.all()}
    try:
        for record in reader:
            if len(rows) >= CSV_MAX_ROWS:
                return CsvPreview([], [f"More than {CSV_MAX_ROWS} rows; split the file."])
            line = reader.line_num
            if None in record:
                rows.append(CsvRow(line, {}, {"row": ["has more cells than the header"]}))
                continue
            values = {k: (v or "").strip() for k, v in record.items()}
            row = CsvRow(line, values)
            rows.append(row)
            for column, value in values.items():
                if value.startswith(FORMULA_PREFIXES) and column not in (
                    "power_kw",
                    "cooling_kw",
                    "count",
                    "units",
                    "max_kg",
                    "inlet_c",
                ):
                    row.errors.setdefault(column, []).append(
                        "starts with a formula character; write plain text"
                    )
            if row.errors:
                continue
            _check_row(site, row, fabrics_by_slug)
            name = values.get("name", "")
            if name in names_seen:
                row.errors.setdefault("name", []).append(f"also on line {names_seen[name]}")
            names_seen.setdefault(name, line)
    except csv.Error as exc:
        return CsvPreview(rows, [f"Not a CSV file: {exc}"])
    if not rows:
        return CsvPreview([], ["The file has a header but no rows."])
    return CsvPreview(rows, [])


def _check_row(site: Site, row: CsvRow, fabrics_by_slug: dict[str, Fabric]) -> None:
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
            row.errors.setdefault(column, []).append(f"{v.get(column, '')!r} is not a number")
    group.name = v.get("name", "")
    if v.get("feeds"):
        group.feeds = v["feeds"]
    if v.get("cooling"):
        group.cooling = v["cooling"]
    try:
        group.liquid_loops = _parse_bool(v.get("liquid_loops", ""))
    except ValidationError as exc:
        row.errors.setdefault("liquid_loops", []).extend(exc.messages)
    slugs = v.get("fabrics", "").split()
    unknown = [s for s in slugs if s not in fabrics_by_slug]
    if unknown:
        row.errors.setdefault("fabrics", []).append(f"unknown fabric {', '.join(unknown)}")
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
) -> CsvPreview:
    """Import every row or none: re-checks the file, then creates or updates by name.

    `expected_versions` is the preview's `versions`, what the person confirmed. The site's rack
    groups are locked first, so nobody changes them while the file is checked and saved; if
    any of them changed after the preview (or a row's name was taken meanwhile), nothing is
    imported and StaleVersionError says so, instead of overwriting an edit nobody saw."""
    locked = RackGroup.objects.select_for_update().filter(site=site).order_by("pk")
    list(locked.values_list("pk", flat=True))
    preview = rack_csv_preview(site=site, data=data)
    if not preview.ok:
        return preview
    if preview.versions != expected_versions:
        raise StaleVersionError(None, "The site's rack groups changed since the preview.")
    for row in preview.rows:
        rack_group_save(rack_group=row.rack_group, fabrics=row.fabrics)
    return preview


def _safe_cell(value) -> str:
    text = str(value)
    # Quote what a spreadsheet would run as a formula.
    return "'" + text if text.startswith(FORMULA_PREFIXES) else text


def rack_export_csv(*, site: Site) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for group in site.rack_groups.prefetch_related("fabrics").order_by("name"):
        writer.writerow(
            [
                _safe_cell(group.name),
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
        )
    return out.getvalue()
