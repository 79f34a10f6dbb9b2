"""Reading the fault guide shipped in catalog/data/faults: one CSV row per fault, English and
Chinese each in its own column, every row with its source.

Cells that hold lists (patterns, causes, checks, fixes) hold one item per line. A bad row raises
`CatalogDataError` naming the file, the line the row starts on and the column, so a curator can
fix it; nothing is loaded from a file that has one."""

from __future__ import annotations

import csv
import datetime as dt
from dataclasses import dataclass
from pathlib import Path

from django.core.exceptions import ValidationError

from catalog.loader import DATA_DIR, CatalogDataError
from planner.models import FaultEntry

FAULTS_DIR = DATA_DIR / "faults"
KEY_COLUMN = "slug"
# The model's stated fields a guide row fills; `from_seed` marks what the seed articles' fault
# tables also list.
ROW_FIELDS = (*FaultEntry.STATED_FIELDS, "from_seed")
COLUMNS = (KEY_COLUMN, *ROW_FIELDS)
# Every guide entry reads the same in both languages: these columns are required in both.
BILINGUAL = ("title", "symptoms", "causes", "fixes")
REQUIRED = (
    "category",
    "checks",
    "source",
    *(f"{n}_{lang}" for n in BILINGUAL for lang in ("en", "zh")),
)


@dataclass(frozen=True)
class GuideRow:
    path: Path
    line: int  # where the row starts: its cells may span lines
    key: str
    values: dict[str, object]

    def error(self, field: str | None, message: str) -> CatalogDataError:
        return CatalogDataError(self.path, self.line, field, message)

    def instance(self) -> FaultEntry:
        return FaultEntry(reference_key=self.key, team=None, **self.values)


def _values(path: Path, line: int, record: dict[str, str]) -> dict[str, object]:
    values: dict[str, object] = {}
    for column in ROW_FIELDS:
        raw = (record.get(column) or "").strip()
        if column in REQUIRED and not raw:
            raise CatalogDataError(path, line, column, "a value is required")
        if column == "weight":
            if not raw.isdigit():
                raise CatalogDataError(path, line, column, f"{raw!r} is not a whole number")
            values[column] = int(raw)
        elif column == "read_on":
            try:
                values[column] = dt.date.fromisoformat(raw) if raw else None
            except ValueError:
                raise CatalogDataError(path, line, column, f"{raw!r} is not a date") from None
        elif column == "from_seed":
            if raw not in ("true", "false", ""):
                raise CatalogDataError(path, line, column, f"{raw!r} is not true or false")
            values[column] = raw == "true"
        else:
            values[column] = raw
    return values


def _validated(row: GuideRow) -> GuideRow:
    entry = row.instance()
    try:
        # Uniqueness and the table's constraints are the database's to check on load: the
        # row's own key would otherwise clash with itself once loaded.
        entry.full_clean(
            exclude=["team", "created_by"], validate_unique=False, validate_constraints=False
        )
    except ValidationError as exc:
        field, messages = next(iter(exc.message_dict.items()))
        raise row.error(None if field == "__all__" else field, "; ".join(messages)) from None
    if not entry.source_url:
        raise row.error("source", "the source is a link (http:// or https://)")
    return row


def read_guide_file(path: Path) -> list[GuideRow]:
    rows: list[GuideRow] = []
    with path.open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        header = reader.fieldnames or []
        unknown = [c for c in header if c not in COLUMNS]
        if unknown:
            raise CatalogDataError(path, 1, unknown[0], "unknown column")
        missing = [c for c in COLUMNS if c not in header]
        if missing:
            raise CatalogDataError(path, 1, missing[0], "the header lacks this column")
        start = reader.line_num + 1
        for record in reader:
            if None in record or any(value is None for value in record.values()):
                raise CatalogDataError(path, start, None, "wrong number of cells")
            key = (record[KEY_COLUMN] or "").strip()
            if not key:
                raise CatalogDataError(path, start, KEY_COLUMN, "a value is required")
            rows.append(_validated(GuideRow(path, start, key, _values(path, start, record))))
            start = reader.line_num + 1
    return rows


def read_guide(data_dir: Path = FAULTS_DIR) -> list[GuideRow]:
    """Every row of every CSV file in `data_dir`, checked; a slug given twice is an error."""
    rows: list[GuideRow] = []
    seen: dict[str, GuideRow] = {}
    for path in sorted(data_dir.glob("*.csv")):
        for row in read_guide_file(path):
            if row.key in seen:
                first = seen[row.key]
                raise row.error(
                    KEY_COLUMN, f"{row.key!r} already given at {first.path.name}:{first.line}"
                )
            seen[row.key] = row
            rows.append(row)
    if not rows:
        raise CatalogDataError(data_dir, None, None, "no fault entries found")
    return rows
