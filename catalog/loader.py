"""Reading the curated catalog under catalog/data into unsaved model instances.

Each kind has a folder (`accelerators/`, `servers/`, ...) of CSV files, one row per item. A
column is named after the model field it fills; an empty cell is "unknown". Any problem is
raised as `CatalogDataError` naming the file, the line and the field, so a curator can fix it.
"""

from __future__ import annotations

import csv
import datetime as dt
import hashlib
import io
import math
from dataclasses import dataclass
from pathlib import Path

from django.core.exceptions import FieldDoesNotExist, ValidationError
from django.db import models

from catalog.models import Accelerator, Fabric, ModelArchitecture, ServerPlatform

DATA_DIR = Path(__file__).resolve().parent / "data"

# Load order matters: servers refer to accelerators by slug.
KINDS: dict[str, type[models.Model]] = {
    "accelerators": Accelerator,
    "fabrics": Fabric,
    "models": ModelArchitecture,
    "servers": ServerPlatform,
}


# The largest magnitude a catalog figure may have. The biggest real one is a parameter count
# (DeepSeek-V3: 6.7e11, catalog/data/models); 1e15 leaves room for any model to come and keeps
# every product the engine forms (bytes, FLOPs, watts x hours) finite.
NUMBER_LIMIT = 1e15
# A text cell starting with one of these is run as a formula by the spreadsheet a curator opens
# an export in (OWASP, "CSV Injection"); no name, note or URL needs to.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


class CatalogDataError(Exception):
    def __init__(self, path: Path, line: int | None, field: str | None, message: str):
        self.path, self.line, self.field, self.message = path, line, field, message
        where = str(path) + (f", line {line}" if line else "") + (f", {field}" if field else "")
        super().__init__(f"{where}: {message}")


@dataclass(frozen=True)
class Row:
    kind: str
    path: Path
    line: int
    values: dict[str, object]
    # Foreign keys stay as slugs until the rows they point to exist.
    references: dict[str, str]


def data_digest(data_dir: Path = DATA_DIR) -> str:
    digest = hashlib.sha256()
    for path in sorted(data_dir.glob("*/*.csv")):
        digest.update(path.relative_to(data_dir).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def _locate(data: bytes, offset: int) -> tuple[int, str | None]:
    """The line (from 1) and the header's column name of the byte at `offset`."""
    line = data.count(b"\n", 0, offset) + 1
    header = next(csv.reader([data.split(b"\n", 1)[0].decode("utf-8", "replace")]), [])
    line_start = data.rfind(b"\n", 0, offset) + 1
    prefix = data[line_start:offset].decode("utf-8", "replace")
    index = max(len(next(csv.reader([prefix]), [])) - 1, 0) if prefix else 0
    return line, header[index] if index < len(header) else None


def read_text(path: Path) -> str:
    """A data file's text; bytes that are not UTF-8, or a NUL, fail naming file, line and
    column (Python's csv module would stop at them with a traceback or keep the NUL)."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise CatalogDataError(path, None, None, f"cannot read it: {exc.strerror}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line, column = _locate(data, exc.start)
        message = f"not UTF-8 (byte 0x{data[exc.start]:02x}); save the file as UTF-8"
        raise CatalogDataError(path, line, column, message) from None
    if "\x00" in text:
        line, column = _locate(data, data.index(b"\x00"))
        raise CatalogDataError(path, line, column, "holds a NUL (0x00) character")
    return text


def _check_text(raw: str) -> None:
    if raw.startswith(FORMULA_STARTS):
        raise ValidationError(
            f"{raw[:20]!r} starts with {raw[0]!r}, which a spreadsheet runs as a formula"
        )


def _check_number(raw: str, value: object) -> None:
    number = float(value)  # type: ignore[arg-type]
    if not math.isfinite(number):
        raise ValidationError(f"{raw!r} is not a finite number")
    if abs(number) > NUMBER_LIMIT:
        raise ValidationError(f"{raw!r} is beyond the limit of {NUMBER_LIMIT:g} in magnitude")


def _convert(field: models.Field, raw: str) -> object:
    raw = raw.strip()
    if raw == "":
        if isinstance(field, models.BooleanField):
            return field.get_default()
        if field.null:
            return None
        if field.blank and isinstance(field, models.CharField | models.TextField):
            return ""
        if field.has_default():
            return field.get_default()
        raise ValidationError("a value is required")
    if isinstance(field, models.JSONField | models.CharField | models.TextField):
        for word in raw.split() if isinstance(field, models.JSONField) else [raw]:
            _check_text(word)
    if isinstance(field, models.JSONField):
        return raw.split()
    if isinstance(field, models.DateField):
        # Prices are quoted by month: "2024-03" means 1 March 2024.
        try:
            return dt.date.fromisoformat(raw if len(raw) > 7 else f"{raw}-01")
        except ValueError as exc:
            raise ValidationError(f"{raw!r} is not a YYYY-MM month") from exc
    if isinstance(field, models.BooleanField):
        if raw not in {"true", "false"}:
            raise ValidationError(f"{raw!r} is not true or false")
        return raw == "true"
    value = field.to_python(raw)
    if isinstance(field, models.FloatField | models.DecimalField | models.IntegerField):
        _check_number(raw, value)
    return value


def read_rows(kind: str, data_dir: Path = DATA_DIR) -> list[Row]:
    model = KINDS[kind]
    rows: list[Row] = []
    seen: dict[str, tuple[Path, int]] = {}
    for path in sorted((data_dir / kind).glob("*.csv")):
        with io.StringIO(read_text(path), newline="") as handle:
            reader = csv.DictReader(handle)
            fields = {}
            for column in reader.fieldnames or []:
                try:
                    fields[column] = model._meta.get_field(column)
                except FieldDoesNotExist:
                    raise CatalogDataError(path, 1, column, "unknown column") from None
            if "slug" not in fields:
                raise CatalogDataError(path, 1, "slug", "the header has no slug column")
            for record in reader:
                line = reader.line_num
                if None in record or any(value is None for value in record.values()):
                    raise CatalogDataError(path, line, None, "wrong number of cells")
                values: dict[str, object] = {}
                references: dict[str, str] = {}
                for column, field in fields.items():
                    if field.is_relation:
                        if record[column].strip():
                            references[field.name] = record[column].strip()
                        continue
                    try:
                        values[column] = _convert(field, record[column])
                    except ValidationError as exc:
                        raise CatalogDataError(
                            path, line, column, "; ".join(exc.messages)
                        ) from None
                slug = values["slug"]
                if slug in seen:
                    first_path, first_line = seen[slug]
                    raise CatalogDataError(
                        path,
                        line,
                        "slug",
                        f"{slug!r} already given at {first_path.name}:{first_line}",
                    )
                seen[slug] = (path, line)
                rows.append(Row(kind, path, line, values, references))
    return rows


def read_catalog(data_dir: Path = DATA_DIR) -> dict[str, list[Row]]:
    return {kind: read_rows(kind, data_dir) for kind in KINDS}
