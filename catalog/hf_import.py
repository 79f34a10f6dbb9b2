"""A catalog model from its Hugging Face config.json, for curators: the file is read by the
engine's mapping (planner.engine.hf_config), the row is written into the curated data
(catalog/data/models/) with its sources, and the catalog is loaded from there as always, so the
data files stay the one place a model is described."""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from catalog.loader import DATA_DIR, CatalogDataError
from config.json_input import loads
from planner.adapters import UNGATED_FAMILIES
from planner.engine import RequestError
from planner.engine.hf_config import hf_shape

MODELS_FILE = Path("models") / "models.csv"


@dataclass(frozen=True)
class CatalogEntry:
    """What a curator says about the model beyond its config.json."""

    slug: str
    name: str
    family: str
    sources: tuple[str, ...]
    notes: str = ""
    context: int | None = None


def model_row(config: dict[str, Any], entry: CatalogEntry, *, path: Path) -> dict[str, str]:
    """The models.csv row of the model the config describes; `CatalogDataError` names the key of
    the file that is missing or wrong, or what the catalog cannot hold."""
    try:
        shape = hf_shape(config)
    except RequestError as exc:
        raise CatalogDataError(path, None, exc.field, exc.message) from None
    spec = shape.spec
    if spec.attention_head_dim:
        raise CatalogDataError(
            path,
            None,
            "head_dim",
            f"{spec.head_dim} is not hidden_size / num_attention_heads, and the catalog has no "
            "per-head width: ask with the config itself (model.hf_config)",
        )
    if spec.shared_ffn:
        raise CatalogDataError(
            path,
            None,
            "n_shared_experts",
            "the catalog has no shared experts: ask with the config itself (model.hf_config)",
        )
    # The engine reads a catalog model's MLP type from its family (planner.adapters).
    plain_family = entry.family.lower().startswith(UNGATED_FAMILIES)
    if plain_family == spec.gated_mlp:
        kind = "gated (SwiGLU)" if spec.gated_mlp else "plain (GELU)"
        raise CatalogDataError(
            path,
            None,
            "family",
            f"the config's MLP is {kind}, but family {entry.family!r} would be read as the "
            f"other; families starting with {', '.join(UNGATED_FAMILIES)} are read as plain",
        )
    context = entry.context or shape.context
    if context is None:
        raise CatalogDataError(path, None, "max_position_embeddings", "is required (or --context)")
    params = round(spec.params)
    notes = entry.notes or (
        f"Shape read from config.json (model_type {config.get('model_type', 'unknown')}); params "
        f"{params} counted from it, {'tied' if shape.tied_embeddings else 'untied'} embeddings."
    )
    return {
        "slug": entry.slug,
        "family": entry.family,
        "name": entry.name,
        "params": str(params),
        "active_params": str(round(spec.active_params)),
        "layers": str(spec.layers),
        "hidden": str(spec.hidden),
        "heads": str(spec.heads),
        "kv_heads": str(spec.kv_heads),
        "ffn": str(spec.ffn),
        "vocab": str(spec.vocab),
        "context": str(context),
        "experts": str(spec.experts),
        "active_experts": str(spec.active_experts),
        "source_urls": " ".join(entry.sources),
        "notes": notes,
    }


def read_config(path: Path) -> dict[str, Any]:
    try:
        config = loads(path.read_bytes())
    except OSError as exc:
        raise CatalogDataError(path, None, None, f"cannot read it: {exc.strerror}") from None
    except ValueError as exc:  # not JSON, not UTF-8, or refused by config.json_input
        raise CatalogDataError(path, None, None, f"not a JSON file: {exc}") from None
    if not isinstance(config, dict):
        raise CatalogDataError(path, None, None, "a config.json holds one JSON object")
    return config


def write_model_row(row: dict[str, str], *, data_dir: Path = DATA_DIR) -> str:
    """Add the row to the curated models file, or replace the row of the same slug; "added" or
    "replaced". The file keeps its columns and the order of its other rows."""
    path = data_dir / MODELS_FILE
    with path.open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        columns = list(reader.fieldnames or [])
        rows = list(reader)
    unknown = set(row) - set(columns)
    if unknown:
        raise CatalogDataError(path, 1, None, f"no column for {', '.join(sorted(unknown))}")
    outcome = "added"
    for index, existing in enumerate(rows):
        if existing["slug"] == row["slug"]:
            rows[index], outcome = row, "replaced"
    if outcome == "added":
        rows.append(row)
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=columns, lineterminator="\n")
        writer.writeheader()
        writer.writerows({column: r.get(column, "") for column in columns} for r in rows)
    return outcome
