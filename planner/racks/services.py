"""Writes to racks. A rack group's `count` and its racks always agree: saving a group with a
new count adds or removes racks, and adding or deleting a rack moves the count."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext as _
from simple_history.utils import bulk_create_with_history

from planner.models import Rack, RackGroup
from planner.racks.occupancy import held, installed
from planner.versioning import claim_version, save_versioned


def rack_name(group_name: str, position: int) -> str:
    """The name a rack gets when a group's count adds it: the group's, then its place."""
    return f"{group_name}-{position:02d}"


def rack_removable(rack: Rack) -> bool:
    """A rack may go when nothing is installed in it and no plan holds capacity there."""
    return (
        not installed(rack.equipment.all()).exists() and not held(rack.commitments.all()).exists()
    )


def _free_name(group: RackGroup, position: int, taken: set[str]) -> str:
    name, suffix = rack_name(group.name, position), 1
    while name in taken:
        suffix += 1
        name = f"{rack_name(group.name, position)}-{suffix}"
    return name


@transaction.atomic
def racks_match_count(*, rack_group: RackGroup) -> None:
    """Add racks at the end of the row until the group has `count`, or remove empty racks from
    the end; a ValidationError on `count` when the racks left to remove are not empty."""
    racks = list(rack_group.racks.order_by("position", "name"))
    missing = rack_group.count - len(racks)
    if missing > 0:
        taken = {r.name for r in racks}
        last = max((r.position for r in racks), default=0)
        new = []
        for position in range(last + 1, last + missing + 1):
            new.append(
                Rack(
                    rack_group=rack_group,
                    name=_free_name(rack_group, position, taken),
                    position=position,
                )
            )
            taken.add(new[-1].name)
        # A count of thousands is one statement, each new rack with its "created" history.
        bulk_create_with_history(new, Rack)
    elif missing < 0:
        empty = [r for r in reversed(racks) if rack_removable(r)][:-missing]
        if len(empty) < -missing:
            raise ValidationError(
                {
                    "count": _(
                        "Only %(empty)d of the racks are empty; remove equipment before "
                        "lowering the count below %(least)d."
                    )
                    % {"empty": len(empty), "least": len(racks) - len(empty)}
                }
            )
        for rack in empty:
            rack.delete()


def _count_follows(rack_group_id: int) -> None:
    """The group's count becomes its number of racks, as a change of the group (its history
    says so)."""
    group = RackGroup.objects.select_for_update().get(pk=rack_group_id)
    count = group.racks.count()
    if group.count != count:
        group.count = count
        group.full_clean()
        save_versioned(group)


@transaction.atomic
def rack_save(*, rack: Rack) -> Rack:
    """Create a rack, or change one still at `rack.version`; a new rack raises its group's
    count."""
    rack.full_clean()
    created = rack.pk is None
    save_versioned(rack)
    if created:
        _count_follows(rack.rack_group_id)
    return rack


@transaction.atomic
def rack_delete(*, rack: Rack) -> None:
    """Delete an empty rack still at the version the caller read; its group's count follows.
    The last rack of a group stays: a group is at least one rack."""
    if not rack_removable(rack):
        raise ValidationError(_("Remove the equipment installed in this rack first."))
    if rack.rack_group.racks.count() <= 1:
        raise ValidationError(_("A rack group keeps at least one rack; delete the group instead."))
    claim_version(rack)
    group_id = rack.rack_group_id
    rack.delete()
    _count_follows(group_id)


@transaction.atomic
def rack_group_create_with_racks(*, rack_group: RackGroup, racks: list[Rack]) -> RackGroup:
    """Create a rack group with racks named as given (an import's), instead of the numbered
    racks its count would add: its count is their number."""
    rack_group.count = len(racks)
    rack_group.full_clean()
    save_versioned(rack_group)
    for rack in racks:
        rack.rack_group = rack_group
        rack.full_clean()
        save_versioned(rack)
    return rack_group
