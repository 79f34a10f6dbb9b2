"""CSV cells of a price, read into model values: dates, amounts, whole numbers and catalog slugs.
The shipped reference list and a team's import read their cells the same way. Each reader
raises ValidationError with a message that can stand after "line N, column:"."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from django.core.exceptions import ValidationError

from catalog.models import Accelerator, Fabric, ServerPlatform

# The catalog relation each slug column names.
SLUG_COLUMNS = {"accelerator": Accelerator, "server": ServerPlatform, "fabric": Fabric}


def parse_day(text: str) -> dt.date:
    """ISO day; sources that give only a month or a year mean its first day ("2024-03",
    "2020")."""
    raw = text.strip()
    try:
        if len(raw) == 4:
            return dt.date(int(raw), 1, 1)
        if len(raw) == 7:
            return dt.date.fromisoformat(f"{raw}-01")
        return dt.date.fromisoformat(raw)
    except ValueError:
        raise ValidationError(f"{raw!r} is not a date (YYYY-MM-DD)") from None


def parse_optional_day(text: str) -> dt.date | None:
    return parse_day(text) if text.strip() else None


def parse_amount(text: str) -> Decimal:
    raw = text.strip().replace(",", "")
    try:
        value = Decimal(raw)
    except InvalidOperation:
        raise ValidationError(f"{text.strip()!r} is not a number") from None
    if not value.is_finite():
        raise ValidationError(f"{text.strip()!r} is not a number")
    return value


def parse_optional_amount(text: str) -> Decimal | None:
    return parse_amount(text) if text.strip() else None


def parse_optional_whole(text: str) -> int | None:
    raw = text.strip()
    if not raw:
        return None
    if not raw.isascii() or not raw.lstrip("-").isdigit() or len(raw) > 9:
        raise ValidationError(f"{raw!r} is not a whole number")
    return int(raw)


# The price CSV's columns that are not plain text, and how each cell is read.
PARSED_COLUMNS = {
    "amount": parse_amount,
    "price_date": parse_day,
    "valid_until": parse_optional_day,
    "read_on": parse_optional_day,
    "support_share_per_year": parse_optional_amount,
    "depreciation_years": parse_optional_whole,
    "accelerators_per_instance": parse_optional_whole,
}


@dataclass
class CatalogSlugs:
    """The catalog rows a file may name, read once: slug -> row, per column."""

    rows: dict[str, dict[str, object]]

    @classmethod
    def load(cls) -> CatalogSlugs:
        return cls(
            {
                column: {o.slug: o for o in model.objects.all()}
                for column, model in SLUG_COLUMNS.items()
            }
        )

    def get(self, column: str, slug: str):
        """The row `slug` names in `column`, None for an empty cell."""
        slug = slug.strip()
        if not slug:
            return None
        try:
            return self.rows[column][slug]
        except KeyError:
            noun = SLUG_COLUMNS[column]._meta.verbose_name
            raise ValidationError(f"no {noun} {slug!r} in the catalog") from None
