"""Writes to what is installed in racks: install, change, move, remove (kept in history), and
the CSV export. A rack is locked while its space is checked, so two installs never take the
same U."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import F
from django.utils import timezone
from django.utils.translation import gettext as _

from planner.csv_import import write_csv
from planner.models import Equipment, Rack
from planner.racks.capacity import rack_limits
from planner.racks.occupancy import installed
from planner.versioning import save_versioned

# Where the equipment is, what a person states about it (notes aside), and when it came and went.
EXPORT_COLUMNS = (
    "site",
    "rack_group",
    "rack",
    *(name for name in Equipment.STATED_FIELDS if name != "notes"),
    "installed_at",
    "removed_at",
)


def _catalog_defaults(equipment: Equipment) -> None:
    """A catalog server's height, nameplate and weight where the person left them empty."""
    server = equipment.server
    if server is None:
        return
    if equipment.units is None:
        equipment.units = server.rack_units
    if equipment.nameplate_kw is None and server.max_power_kw is not None:
        equipment.nameplate_kw = server.max_power_kw
    if equipment.weight_kg is None and server.weight_kg is not None:
        equipment.weight_kg = server.weight_kg
    if not equipment.name:
        equipment.name = server.name


def _check_place(equipment: Equipment) -> None:
    """Inside the rack's usable U, and clear of everything else installed there."""
    units = rack_limits(equipment.rack).units
    top = equipment.position_u + equipment.units - 1
    if top > units:
        raise ValidationError(
            {
                "position_u": _("U%(bottom)d to U%(top)d does not fit in a %(units)d U rack.")
                % {"bottom": equipment.position_u, "top": top, "units": units}
            }
        )
    clash = (
        installed(Equipment.objects.filter(rack=equipment.rack))
        .exclude(pk=equipment.pk)
        .annotate(top=F("position_u") + F("units") - 1)
        .filter(position_u__lte=top, top__gte=equipment.position_u)
        .first()
    )
    if clash is not None:
        raise ValidationError(
            {
                "position_u": _("“%(name)s” already takes U%(bottom)d to U%(top)d.")
                % {"name": clash.name, "bottom": clash.position_u, "top": clash.top_u}
            }
        )


def _lock(rack: Rack) -> None:
    Rack.objects.select_for_update().filter(pk=rack.pk).first()


def _save(equipment: Equipment) -> Equipment:
    _catalog_defaults(equipment)
    if equipment.removed_at is not None:
        raise ValidationError(_("This equipment was removed; install it again as new."))
    equipment.full_clean()
    _lock(equipment.rack)
    _check_place(equipment)
    save_versioned(equipment)
    return equipment


@transaction.atomic
def equipment_install(*, equipment: Equipment, user=None) -> Equipment:
    """Install a catalog server (its height, nameplate and weight from the catalog unless
    given) or a free-form device, in free U of its rack."""
    equipment.created_by = user
    return _save(equipment)


@transaction.atomic
def equipment_update(*, equipment: Equipment) -> Equipment:
    """Change equipment still at `equipment.version` (its place too: a move is a change)."""
    return _save(equipment)


@transaction.atomic
def equipment_move(*, equipment: Equipment, rack: Rack, position_u: int) -> Equipment:
    equipment.rack, equipment.position_u = rack, position_u
    return _save(equipment)


@transaction.atomic
def equipment_remove(*, equipment: Equipment) -> None:
    """Take equipment out: it counts nowhere from now on, and its row and history stay."""
    if equipment.removed_at is not None:
        return
    equipment.removed_at = timezone.now()
    save_versioned(equipment)


def equipment_export_csv(*, racks) -> str:
    """Everything ever installed in `racks` (removed rows with their date), one row each."""
    rows = (
        Equipment.objects.filter(rack__in=racks)
        .select_related("rack__rack_group__site", "server")
        .order_by("rack__rack_group__name", "rack__position", "rack__name", "-position_u")
    )
    return write_csv(
        list(EXPORT_COLUMNS),
        (
            [
                e.rack.rack_group.site.name,
                e.rack.rack_group.name,
                e.rack.name,
                e.name,
                e.server.slug if e.server else "",
                e.position_u,
                e.units,
                e.nameplate_kw,
                "" if e.measured_kw is None else e.measured_kw,
                e.weight_kg,
                e.installed_at.isoformat(timespec="seconds"),
                e.removed_at.isoformat(timespec="seconds") if e.removed_at else "",
            ]
            for e in rows
        ),
    )
