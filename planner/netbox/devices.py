"""NetBox devices to installed equipment: a device counts when it has a rack and a position.
Its height and weight come from its device type (the library's YAML, or NetBox's device-types
JSON), else the matching catalog server; its power from its power ports (allocated draw, else
maximum draw, summed as NetBox's rack power utilisation sums them), else its device type's
ports, else the catalog server's maximum."""

from __future__ import annotations

import math
from functools import partial
from typing import Any

from django.db.models import Q
from django.utils.translation import gettext as _

from catalog.models import ServerPlatform
from planner.choices import NetboxKind
from planner.models import Equipment
from planner.netbox.formats import Record
from planner.netbox.power import Index
from planner.netbox.results import CREATED, UNCHANGED, UPDATED, Change
from planner.netbox.sync import Sync, weight_kg
from planner.racks.equipment import equipment_install, equipment_update

EQUIPMENT_FIELDS = {
    "name": "name",
    "position_u": "position",
    "units": "device_type",
    "weight_kg": "device_type",
    "nameplate_kw": "device_type",
}
WATTS_PER_KW = 1000


def _draw_kw(ports: list[Record]) -> float | None:
    draws = [p.get("allocated_draw", p.get("maximum_draw")) for p in ports]
    draws = [d for d in draws if d is not None]
    return sum(draws) / WATTS_PER_KW if draws else None


def _catalog_server(record: Record, device_type: Record | None) -> ServerPlatform | None:
    names = {record.get("device_type"), record.get("device_type_slug")}
    if device_type is not None:
        names |= {device_type.get("model"), device_type.get("slug")}
    names.discard(None)
    query = Q()
    for name in names:
        query |= Q(slug__iexact=name) | Q(name__iexact=name)
    return ServerPlatform.objects.filter(query).first() if names else None


def device_values(sync: Sync, index: Index, record: Record) -> dict[str, Any] | None:
    """Our equipment's values for a device in a rack, or None when something is unknown (a
    problem names it)."""
    model = record.get("device_type")
    device_type = index.types.get(model.lower()) or index.types.get(
        (record.get("device_type_slug") or "").lower()
    )
    server = _catalog_server(record, device_type)
    height = device_type.get("u_height") if device_type else None
    if height is None and server is not None:
        height = server.rack_units
    weight = weight_kg(device_type, "weight") if device_type else None
    if weight is None and server is not None:
        weight = server.weight_kg
    ports = index.ports_by_device.get(f"id:{record.get('id')}") or index.ports_by_device.get(
        record.get("name") or "", []
    )
    power = _draw_kw(ports)
    if power is None and device_type is not None:
        power = _draw_kw(device_type.values.get("power_ports", []))
    if power is None and server is not None:
        power = server.max_power_kw
    missing = [
        label
        for label, value in ((_("height"), height), (_("weight"), weight), (_("power"), power))
        if value is None
    ]
    if missing:
        sync.refuse(
            record.at("device_type"),
            _(
                "no %(missing)s known for the device type “%(model)s”: add its YAML from the "
                "device-type library, or NetBox's /api/dcim/device-types/ JSON, or its power ports."
            )
            % {"missing": ", ".join(missing), "model": model},
        )
        return None
    if height == 0:
        return {}  # a 0U device (a vertical PDU) takes no rack units
    return {
        "name": record.get("name") or f"{model} U{record.get('position'):g}",
        "server": server,
        "position_u": int(record.get("position")),
        "units": max(1, math.ceil(height)),
        "nameplate_kw": round(power, 3),
        "weight_kg": round(weight, 3),
    }


def sync_devices(sync: Sync, index: Index, devices: list[Record]) -> None:
    for record in devices:
        label = record.get("name") or record.get("device_type")
        if not record.get("rack") or record.get("position") is None:
            sync.skip("equipment", label, record, _("it has no rack position in NetBox"))
            continue
        rack = sync.rack_named(record, record.get("site"), *index.rack_of(record))
        wanted = device_values(sync, index, record) if rack is not None else None
        if rack is None or wanted is None:
            continue
        if not wanted:
            sync.skip("equipment", label, record, _("a 0U device takes no rack units"))
            continue
        key = f"{record.get('site')}/{wanted['name']}"
        ours = Equipment.objects.filter(
            rack__rack_group__site__team=sync.team, removed_at__isnull=True
        )
        equipment = sync.links.row(NetboxKind.DEVICE, record, key, ours)
        equipment = equipment or ours.filter(rack=rack, name=wanted["name"]).first()
        if equipment is None:
            equipment, changed, action = sync.stamp(Equipment(rack=rack, **wanted)), [], CREATED
            write = partial(equipment_install, equipment=equipment, user=sync.user)
        else:
            changed = sync.apply_changes(equipment, wanted | {"rack": rack})
            action = UPDATED if changed else UNCHANGED
            write = partial(equipment_update, equipment=sync.stamp(equipment))
        if action != UNCHANGED and not sync.write(write, record, EQUIPMENT_FIELDS):
            continue
        sync.links.keep(NetboxKind.DEVICE, record, key, equipment)
        name = f"{rack} / {equipment.name}"
        sync.result.changes.append(Change("equipment", name, action, changed, record.at()))
