"""Writes to the catalog. Everything that changes catalog rows goes through here."""

from __future__ import annotations

from pathlib import Path

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from catalog.choices import LoadStatus
from catalog.loader import DATA_DIR, KINDS, CatalogDataError, Row, data_digest, read_catalog
from catalog.models import CatalogLoad


def _condition_fields(condition) -> set[str]:
    """Field names a CHECK condition reads (`Q(memory_gib__gt=0)` -> {"memory_gib"})."""
    if isinstance(condition, Q):
        return set().union(*(_condition_fields(child) for child in condition.children))
    if isinstance(condition, tuple):
        return {condition[0].split("__")[0]}
    return set()


def _validate(instance, row: Row) -> None:
    """Field validation, then each constraint, so an error names the field it concerns."""
    try:
        instance.full_clean(validate_constraints=False)
    except ValidationError as exc:
        field, messages = next(iter(exc.message_dict.items()))
        field = None if field == "__all__" else field
        raise CatalogDataError(row.path, row.line, field, "; ".join(messages)) from None
    model = type(instance)
    for constraint in model._meta.constraints:
        try:
            constraint.validate(model, instance)
        except ValidationError as exc:
            fields = _condition_fields(getattr(constraint, "condition", None))
            field = fields.pop() if len(fields) == 1 else None
            message = f"{'; '.join(exc.messages)} ({constraint.name})"
            raise CatalogDataError(row.path, row.line, field, message) from None


def _apply_row(row: Row) -> str:
    """Create or update the item one row describes. Returns created, updated or unchanged."""
    model = KINDS[row.kind]
    values = dict(row.values)
    for field_name, slug in row.references.items():
        related = model._meta.get_field(field_name).related_model
        try:
            values[field_name] = related.objects.get(slug=slug)
        except related.DoesNotExist:
            raise CatalogDataError(row.path, row.line, field_name, f"no item {slug!r}") from None
    for field in model._meta.concrete_fields:
        # A relation column left empty (or absent) means "none".
        if field.is_relation and field.name not in values:
            values[field.name] = None

    instance = model.objects.filter(slug=values["slug"]).first()
    if instance is None:
        instance, outcome = model(**values), "created"
    else:
        changed = [name for name, value in values.items() if getattr(instance, name) != value]
        if not changed:
            return "unchanged"
        for name in changed:
            setattr(instance, name, values[name])
        outcome = "updated"
    _validate(instance, row)
    instance.save()
    return outcome


def catalog_load(*, data_dir: Path = DATA_DIR) -> CatalogLoad:
    """Upsert every item of the curated data in one transaction and record the run.

    Either every row is applied or none is: a bad row raises `CatalogDataError` (after the
    failed run is recorded) and the catalog stays as it was.
    """
    started_at = timezone.now()
    digest = data_digest(data_dir)
    try:
        rows = read_catalog(data_dir)
        counts: dict[str, dict[str, int]] = {}
        with transaction.atomic():
            for kind, kind_rows in rows.items():
                tally = {"created": 0, "updated": 0, "unchanged": 0}
                for row in kind_rows:
                    tally[_apply_row(row)] += 1
                counts[kind] = tally
    except CatalogDataError as exc:
        CatalogLoad.objects.create(
            started_at=started_at,
            finished_at=timezone.now(),
            status=LoadStatus.FAILED,
            data_digest=digest,
            error=str(exc),
        )
        raise
    return CatalogLoad.objects.create(
        started_at=started_at,
        finished_at=timezone.now(),
        status=LoadStatus.SUCCEEDED,
        data_digest=digest,
        counts=counts,
    )
