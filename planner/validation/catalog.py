"""The curated catalog (catalog/data/) read without a database, as the validation rows name
their cards and models by slug."""

from __future__ import annotations

from types import SimpleNamespace


def catalog_rows(kind: str) -> dict[str, SimpleNamespace]:
    """The catalog's rows of one kind ("accelerators", "models", "fabrics") by slug."""
    from catalog.loader import read_rows  # the curated data, read without a database

    return {row.values["slug"]: SimpleNamespace(**row.values) for row in read_rows(kind)}
