"""What changed in a record kept with django-simple-history, in a form pages and the API show."""

from __future__ import annotations


def readable_value(value):
    """Many-to-many history comes as through-table rows; show the fabrics' slugs instead."""
    if isinstance(value, list) and value and isinstance(value[0], dict) and "fabric" in value[0]:
        from catalog.models import Fabric

        ids = [row["fabric"] for row in value]
        return sorted(Fabric.objects.filter(pk__in=ids).values_list("slug", flat=True))
    return value


def history_of(obj) -> list[dict]:
    """Each recorded version, newest first: who, when, what kind of change, and the fields
    that changed with their old and new values."""
    records = list(
        obj.history.select_related("history_user").order_by("-history_date", "-history_id")
    )
    out = []
    for newer, older in zip(records, [*records[1:], None], strict=True):
        changes = []
        if older is not None:
            delta = newer.diff_against(older)
            changes = [
                {"field": c.field, "old": readable_value(c.old), "new": readable_value(c.new)}
                for c in delta.changes
            ]
        out.append(
            {
                "when": newer.history_date,
                "who": newer.history_user.username if newer.history_user else None,
                "kind": {"+": "created", "~": "changed", "-": "deleted"}[newer.history_type],
                "changes": changes,
            }
        )
    return out
