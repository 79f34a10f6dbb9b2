"""Writes of the fault guide and of a team's own fault table, and the diagnosis of a pasted
text. Every write runs in a transaction with full model validation first, and keeps history."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from django.db import transaction
from django.db.models import ProtectedError

from planner.faults.reference import FAULTS_DIR, ROW_FIELDS, read_guide
from planner.models import FaultEntry, FaultIncident
from planner.versioning import ConflictError, claim_version, save_checked, save_shipped


@dataclass(frozen=True)
class GuideLoad:
    created: int
    updated: int
    unchanged: int
    removed: int
    kept: int  # entries gone from the files that incidents still name: kept, so history holds


@transaction.atomic
def fault_guide_load(*, data_dir: Path = FAULTS_DIR) -> GuideLoad:
    """Upsert the shipped guide by its slugs, in one transaction: loading twice changes nothing,
    and a bad row raises CatalogDataError (file, line, column) with nothing changed. Entries
    that left the files are deleted, unless a team's incident names one."""
    rows = read_guide(data_dir)
    saved = {e.reference_key: e for e in FaultEntry.objects.filter(team__isnull=True)}
    outcomes = Counter(
        save_shipped(saved.pop(row.key, None), row.instance(), ROW_FIELDS) for row in rows
    )
    removed = kept = 0
    for gone in saved.values():
        if gone.incidents.exists():
            kept += 1
            continue
        gone.delete()
        removed += 1
    return GuideLoad(outcomes["created"], outcomes["updated"], outcomes["unchanged"], removed, kept)


@transaction.atomic
def fault_entry_create(*, team, user, **fields) -> FaultEntry:
    return save_checked(FaultEntry(team=team, created_by=user), **fields)


@transaction.atomic
def fault_entry_update(*, entry: FaultEntry, **fields) -> FaultEntry:
    """Change an entry still at `entry.version`, the version the caller read; otherwise
    StaleVersionError and nothing is written."""
    return save_checked(entry, **fields)


@transaction.atomic
def fault_entry_delete(*, entry: FaultEntry) -> None:
    """Delete a team's entry still at the version the caller read; its incidents stay, no
    longer linked, and its history stays."""
    claim_version(entry)
    try:
        entry.delete()
    except ProtectedError as exc:
        raise ConflictError("Other records still use this entry.") from exc


@transaction.atomic
def fault_incident_create(*, team, user, **fields) -> FaultIncident:
    return save_checked(FaultIncident(team=team, created_by=user), **fields)


@transaction.atomic
def fault_incident_update(*, incident: FaultIncident, **fields) -> FaultIncident:
    return save_checked(incident, **fields)


@transaction.atomic
def fault_incident_delete(*, incident: FaultIncident) -> None:
    claim_version(incident)
    incident.delete()
