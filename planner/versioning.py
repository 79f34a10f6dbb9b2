"""Writes that never overwrite a change the writer has not seen: every versioned row carries a
`version` raised by one on each save, and a write names the version it read."""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from typing import Any

from django.db import IntegrityError
from django.db.models import Model


class ConflictError(Exception):
    """The write would break a uniqueness rule another row already holds."""


class StaleVersionError(Exception):
    """Someone else saved or deleted the row after the caller read it: writing now would
    overwrite a change the caller has not seen."""

    def __init__(self, current: Model | None, message: str = ""):
        self.current = current  # the row as saved now; None when it is gone
        super().__init__(message or "The row changed since it was read.")


def claim_version(obj) -> None:
    """Compare-and-set on the version: move the row from the version `obj` was read at to the
    next one, or raise StaleVersionError. On PostgreSQL a concurrent writer waits on the row
    lock and then re-checks the condition against the committed row, so of two writers that
    read the same version exactly one gets through."""
    model = type(obj)
    claimed = model.objects.filter(pk=obj.pk, version=obj.version).update(version=obj.version + 1)
    if not claimed:
        raise StaleVersionError(model.objects.filter(pk=obj.pk).first())
    obj.version += 1


# Every history record one save writes (the row, then its many-to-many fields cleared and set)
# carries the same mark as its change reason, so the history shows them as one change.
SAVE_MARK_PREFIX = "save:"


def mark_save(obj) -> None:
    """Stamp the history records the next save of `obj` writes as one change
    (django-simple-history's documented `_change_reason`)."""
    obj._change_reason = SAVE_MARK_PREFIX + uuid.uuid4().hex


def save_versioned(obj) -> None:
    """Insert a new row, or update one that is still at the version it was read at."""
    mark_save(obj)
    read_at = obj.version
    try:
        if obj.pk is not None:
            claim_version(obj)
        obj.save()
    except IntegrityError as exc:
        # The caller's transaction rolls back on the way out, the claim with it.
        obj.version = read_at
        raise ConflictError(str(exc)) from None


def save_checked(obj, **fields: Any) -> Any:
    """Set `fields` on `obj`, validate the whole row, and save it as `save_versioned` does: a
    new row is inserted, a row read at `obj.version` updated (StaleVersionError otherwise)."""
    for name, value in fields.items():
        setattr(obj, name, value)
    obj.full_clean()
    save_versioned(obj)
    return obj


def save_shipped(current, fresh, fields: Iterable[str], **reset: Any) -> str:
    """Write a row read from the shipped files over the saved row of its key (`current`, None
    when there is none): "created", "updated" or "unchanged", so loading twice changes nothing.
    `reset` names values an update also sets (a retired reference row comes back); a saved row
    that holds other values is updated even when `fields` agree."""
    if current is None:
        save_versioned(fresh)
        return "created"
    fields = list(fields)
    if all(getattr(current, name) == value for name, value in reset.items()) and all(
        getattr(current, name) == getattr(fresh, name) for name in fields
    ):
        return "unchanged"
    for name in fields:
        setattr(current, name, getattr(fresh, name))
    for name, value in reset.items():
        setattr(current, name, value)
    save_versioned(current)
    return "updated"
