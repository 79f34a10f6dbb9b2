"""Reading and writing the CSV files people import and export (rack groups, prices).

A file is read whole before anything is saved. What it may not be is the same for every
import: larger than CSV_MAX_BYTES, not UTF-8, binary, not CSV, without the columns it needs or
with columns nobody asked for, longer than CSV_MAX_ROWS rows, or with a text cell a spreadsheet
would run as a formula. The file-wide problems come back as sentences; a row's problems are
kept per column, so a page can name the line and the field."""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from django.core.exceptions import ValidationError
from django.db.models import QuerySet

from planner.versioning import StaleVersionError

CSV_MAX_BYTES = 256 * 1024
CSV_MAX_ROWS = 2000
# Spreadsheet programs run cells starting with these as formulas (CSV injection).
FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")


@dataclass
class CsvRow:
    """One line of the file: its number as an editor shows it, the cells by column, and what is
    wrong with them (column -> messages; "row" for the line as a whole)."""

    line: int
    values: dict[str, str]
    errors: dict[str, list[str]] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.errors

    def add_error(self, column: str, message: str) -> None:
        self.errors.setdefault(column, []).append(message)

    def add_validation_error(self, error: ValidationError, *, columns: Collection[str]) -> None:
        """A model's full_clean errors, under the column each names ("row" for the rest)."""
        for name, messages in error.message_dict.items():
            column = name if name in columns else "row"
            self.errors.setdefault(column, []).extend(messages)


@dataclass
class CsvPreview:
    """What an import would do: every row checked, nothing saved."""

    rows: Sequence[CsvRow]
    errors: list[str]  # problems with the file as a whole

    @property
    def ok(self) -> bool:
        return not self.errors and bool(self.rows) and all(r.ok for r in self.rows)

    @property
    def bad_rows(self) -> int:
        return sum(1 for row in self.rows if not row.ok)

    @property
    def versions(self) -> Mapping[str, int | None]:
        """The version of each saved row the file would overwrite, by the row's key in the file;
        the import compares it with what the preview showed. Each import says how."""
        raise NotImplementedError


Preview = TypeVar("Preview", bound=CsvPreview)


def check_again_locked(
    locked: QuerySet,
    check: Callable[[], Preview],
    *,
    expected_versions: Mapping[str, int | None],
    changed: str,
) -> Preview:
    """An import's second look at its file: the rows it may change (`locked`) are locked first,
    so nobody changes them while the file is checked and saved; the file is checked again, and
    if the rows it would overwrite changed since the preview (`expected_versions`, the
    preview's `versions`), StaleVersionError (`changed`) says so and nothing is imported."""
    list(locked.select_for_update().order_by("pk").values_list("pk", flat=True))
    preview = check()
    if preview.ok and preview.versions != expected_versions:
        raise StaleVersionError(None, changed)
    return preview


def import_checked(
    locked: QuerySet,
    check: Callable[[], Preview],
    save_row: Callable[[Any], None],
    *,
    expected_versions: Mapping[str, int | None],
    changed: str,
) -> Preview:
    """Import every row or none (call it inside a transaction): check the file again with its
    rows locked (check_again_locked), then, when every row is good, hand each to `save_row`.
    The answer is the second preview; not `ok`, nothing was saved."""
    preview = check_again_locked(
        locked, check, expected_versions=expected_versions, changed=changed
    )
    if preview.ok:
        for row in preview.rows:
            save_row(row)
    return preview


def parse_bool(text: str) -> bool:
    lowered = text.strip().lower()
    if lowered in {"true", "yes", "1"}:
        return True
    if lowered in {"false", "no", "0", ""}:
        return False
    raise ValidationError(f"{text!r} is not true or false")


def _decoded(data: bytes, max_bytes: int) -> tuple[str | None, str | None]:
    if len(data) > max_bytes:
        return None, f"The file is {len(data) // 1024} KiB; the limit is {max_bytes // 1024} KiB."
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return None, "The file is not UTF-8 text."
    if "\x00" in text:
        return None, "The file contains binary data, not CSV text."
    return text, None


def _header_problems(header: Sequence[str], columns: Sequence[str], optional: Collection[str]):
    missing = [c for c in columns if c not in header and c not in optional]
    unknown = [c for c in header if c not in columns]
    problems = []
    if missing:
        problems.append(f"Missing columns: {', '.join(missing)}.")
    if unknown:
        problems.append(f"Unknown columns: {', '.join(unknown)}; expected {', '.join(columns)}.")
    return problems


def read_csv_rows(
    data: bytes,
    *,
    columns: Sequence[str],
    optional: Collection[str] = (),
    numeric: Collection[str] = (),
    max_bytes: int | None = None,
    max_rows: int | None = None,
) -> CsvPreview:
    """The file's rows with their cells stripped, or the file-wide problems that stop it.

    `columns` are the ones the file may have, `optional` those it may leave out. A text cell
    starting with a formula character is an error on its column; `numeric` columns are left
    to their number check, where "-5" is an ordinary (if perhaps wrong) value. The limits
    default to CSV_MAX_BYTES and CSV_MAX_ROWS."""
    max_bytes = CSV_MAX_BYTES if max_bytes is None else max_bytes
    max_rows = CSV_MAX_ROWS if max_rows is None else max_rows
    text, problem = _decoded(data, max_bytes)
    if problem:
        return CsvPreview([], [problem])
    try:
        reader = csv.DictReader(io.StringIO(text))
        header = reader.fieldnames or []
    except csv.Error as exc:
        return CsvPreview([], [f"Not a CSV file: {exc}"])
    problems = _header_problems(header, columns, optional)
    if problems:
        return CsvPreview([], problems)

    rows: list[CsvRow] = []
    try:
        for record in reader:
            if len(rows) >= max_rows:
                return CsvPreview([], [f"More than {max_rows} rows; split the file."])
            if None in record:
                rows.append(
                    CsvRow(reader.line_num, {}, {"row": ["has more cells than the header"]})
                )
                continue
            row = CsvRow(reader.line_num, {k: (v or "").strip() for k, v in record.items()})
            for column, value in row.values.items():
                if value.startswith(FORMULA_PREFIXES) and column not in numeric:
                    row.add_error(column, "starts with a formula character; write plain text")
            rows.append(row)
    except csv.Error as exc:
        return CsvPreview(rows, [f"Not a CSV file: {exc}"])
    if not rows:
        return CsvPreview([], ["The file has a header but no rows."])
    return CsvPreview(rows, [])


def safe_cell(value: Any) -> str:
    """A cell as text, quoted where a spreadsheet would run it as a formula."""
    text = "" if value is None else str(value)
    return "'" + text if text.startswith(FORMULA_PREFIXES) else text


def write_csv(columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    """A header and rows; text cells made formula-safe (numbers are written as they are)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(columns)
    for row in rows:
        writer.writerow(
            [cell if isinstance(cell, int | float) else safe_cell(cell) for cell in row]
        )
    return out.getvalue()
