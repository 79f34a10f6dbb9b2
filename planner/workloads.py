"""Writes to workloads: a team's saved jobs that plans are made for."""

from __future__ import annotations

from typing import Any

from django.db import IntegrityError, transaction
from django.utils.translation import gettext

from planner.models import Workload


class NameTaken(Exception):
    """Another workload of the team holds the name (a race past the form's check)."""


@transaction.atomic
def workload_create(*, name: str, spec: dict[str, Any], user, team) -> Workload:
    try:
        with transaction.atomic():
            return Workload.objects.create(name=name, spec=spec, team=team, created_by=user)
    except IntegrityError:
        raise NameTaken from None


@transaction.atomic
def workload_update(*, workload: Workload, name: str, spec: dict[str, Any]) -> Workload:
    workload.name, workload.spec = name, spec
    try:
        with transaction.atomic():
            workload.save(update_fields=["name", "spec", "updated_at"])
    except IntegrityError:
        raise NameTaken from None
    return workload


@transaction.atomic
def workload_copy(*, workload: Workload, user) -> Workload:
    """A duplicate to edit, named "<name> (copy)", "(copy 2)", ... so it never collides."""
    taken = set(Workload.objects.filter(team=workload.team).values_list("name", flat=True))
    suffix = gettext("copy")
    number = 1
    while True:
        tail = f" ({suffix})" if number == 1 else f" ({suffix} {number})"
        name = workload.name[: 200 - len(tail)] + tail
        if name not in taken:
            break
        number += 1
    return workload_create(name=name, spec=workload.spec, user=user, team=workload.team)
