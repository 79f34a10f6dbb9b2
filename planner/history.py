"""What changed in a record kept with django-simple-history, in a form pages and the API show."""

from __future__ import annotations

from typing import Any

from django.db.models import Model

from planner.versioning import SAVE_MARK_PREFIX


def _m2m_keys(field, value: Any) -> Any:
    """A many-to-many field's history comes as through-table rows: name the related rows by
    their slug (or their text where they have none), sorted."""
    if not isinstance(value, list):
        return value
    ids = [row.get(field.m2m_reverse_field_name()) for row in value if isinstance(row, dict)]
    related = field.related_model.objects.filter(pk__in=ids)
    if any(f.name == "slug" for f in field.related_model._meta.get_fields()):
        return sorted(related.values_list("slug", flat=True))
    return sorted(str(row) for row in related)


def _same_save(newer: Any, older: Any) -> bool:
    mark = newer.history_change_reason or ""
    return mark.startswith(SAVE_MARK_PREFIX) and mark == older.history_change_reason


def _saves(records: list[Any]) -> list[tuple[Any, Any, str]]:
    """(newest record of a save, the record before the save, the save's kind) per save, newest
    first: the records one save wrote carry the same mark (planner.versioning.mark_save), and a
    save that began by creating the row is a creation."""
    saves = []
    i = 0
    while i < len(records):
        j = i
        while j + 1 < len(records) and _same_save(records[j], records[j + 1]):
            j += 1
        kind = "+" if records[j].history_type == "+" else records[i].history_type
        saves.append((records[i], records[j + 1] if j + 1 < len(records) else None, kind))
        i = j + 1
    return saves


def history_of(obj: Model) -> list[dict[str, Any]]:
    """Each recorded change, newest first: who, when, what kind of change, and the fields that
    changed with their old and new values (related rows by slug). One save is one change, though
    it writes several records (the row, then its fabrics cleared and set); a save that changed
    none of the tracked fields is left out."""
    many_to_many = {f.name: f for f in type(obj)._meta.many_to_many}
    records = list(
        obj.history.select_related("history_user").order_by("-history_date", "-history_id")
    )
    out = []
    for newer, older, kind in _saves(records):
        changes = []
        if older is not None:
            delta = newer.diff_against(older)
            changes = [
                {
                    "field": c.field,
                    "old": _m2m_keys(many_to_many[c.field], c.old)
                    if c.field in many_to_many
                    else c.old,
                    "new": _m2m_keys(many_to_many[c.field], c.new)
                    if c.field in many_to_many
                    else c.new,
                }
                for c in delta.changes
            ]
        if kind == "~" and not changes:
            continue
        out.append(
            {
                "when": newer.history_date,
                "who": newer.history_user.username if newer.history_user else None,
                "kind": {"+": "created", "~": "changed", "-": "deleted"}[kind],
                "changes": changes,
            }
        )
    return out
