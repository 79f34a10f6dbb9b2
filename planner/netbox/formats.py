"""NetBox's own formats, as its documentation and import forms state them: which columns each
bulk-import CSV takes (netbox/dcim/forms/bulk_import.py: SiteImportForm, RackImportForm,
PowerPanelImportForm, PowerFeedImportForm, DeviceImportForm, PowerPortImportForm), the choice
values it spells (netbox/dcim/choices.py), and which of them the import reads.

A NetBox record of any source (a CSV line, an API `results` item, a device-type YAML) is read
into a `Record`: its values by the names used here, and where in the file each came from."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.utils.translation import gettext as _

# The kinds of NetBox object the import reads.
SITE = "site"
RACK = "rack"
POWER_PANEL = "power_panel"
POWER_FEED = "power_feed"
DEVICE = "device"
POWER_PORT = "power_port"
DEVICE_TYPE = "device_type"
KINDS = (SITE, RACK, POWER_PANEL, POWER_FEED, DEVICE, POWER_PORT, DEVICE_TYPE)

# The columns of NetBox's bulk-import forms (Meta.fields, NetBox 4.x). A file may carry any of
# them; the import reads those in READ below and lets the others be.
IMPORT_COLUMNS: dict[str, tuple[str, ...]] = {
    SITE: (
        "name", "slug", "status", "region", "group", "tenant", "facility", "time_zone",
        "description", "physical_address", "shipping_address", "latitude", "longitude", "owner",
        "comments", "tags",
    ),
    RACK: (
        "site", "location", "group", "name", "facility_id", "tenant", "status", "role",
        "rack_type", "form_factor", "serial", "asset_tag", "width", "u_height", "desc_units",
        "outer_width", "outer_height", "outer_depth", "outer_unit", "mounting_depth", "airflow",
        "weight", "max_weight", "weight_unit", "description", "owner", "comments", "tags",
        "starting_unit",
    ),
    POWER_PANEL: ("site", "location", "name", "description", "owner", "comments", "tags"),
    POWER_FEED: (
        "site", "power_panel", "location", "rack", "name", "status", "type", "mark_connected",
        "supply", "phase", "voltage", "amperage", "max_utilization", "tenant", "description",
        "owner", "comments", "tags",
    ),
    DEVICE: (
        "name", "role", "device_role", "tenant", "manufacturer", "device_type", "platform",
        "serial", "asset_tag", "status", "site", "location", "rack", "position", "face",
        "latitude", "longitude", "parent", "device_bay", "airflow", "virtual_chassis",
        "vc_position", "vc_priority", "cluster", "description", "config_template", "owner",
        "comments", "tags",
    ),
    POWER_PORT: (
        "device", "name", "label", "type", "mark_connected", "maximum_draw", "allocated_draw",
        "description", "owner", "tags",
    ),
}  # fmt: skip

# Columns only one kind's CSV has: they tell the files apart (a rack file and a power panel
# file may both hold only site, location and name; the file's name settles that).
SIGNATURES = (
    (POWER_PORT, frozenset({"device", "maximum_draw", "allocated_draw"})),
    (DEVICE, frozenset({"device_type", "position", "face", "role", "device_role"})),
    (POWER_FEED, frozenset({"power_panel", "amperage", "voltage", "phase", "supply"})),
    (RACK, frozenset(IMPORT_COLUMNS[RACK]) - {"site", "location", "name", "description"}
     - {"owner", "comments", "tags", "tenant", "status"}),
    (SITE, frozenset({"slug", "facility", "physical_address", "time_zone", "region"})),
)  # fmt: skip

# Choice values as NetBox spells them (netbox/dcim/choices.py).
FEED_STATUSES = ("offline", "active", "planned", "failed")
FEED_TYPES = ("primary", "redundant")
FEED_SUPPLIES = ("ac", "dc")
FEED_PHASES = ("single-phase", "three-phase")
DEVICE_FACES = ("front", "rear")
WEIGHT_UNITS = ("kg", "g", "lb", "oz")
# netbox/netbox/choices.py WeightUnitChoices, to kilograms (1 lb = 0.45359237 kg exactly).
KG_PER = {"kg": 1.0, "g": 0.001, "lb": 0.45359237, "oz": 0.45359237 / 16}

# NetBox's defaults for a feed's figures a file leaves out (netbox/netbox/config/parameters.py:
# POWERFEED_DEFAULT_VOLTAGE, _AMPERAGE, _MAX_UTILIZATION), and a rack's height
# (netbox/dcim/constants.py RACK_U_HEIGHT_DEFAULT).
FEED_DEFAULT_VOLTAGE_V = 120
FEED_DEFAULT_AMPERAGE_A = 15
FEED_DEFAULT_MAX_UTILIZATION_PCT = 80
RACK_DEFAULT_U_HEIGHT = 42


@dataclass(frozen=True)
class Spec:
    """How one value is read: `kind` is text, ref (a name, or an API object's name), number,
    whole or choice (one of `choices`); `required` values may not be empty."""

    kind: str
    required: bool = False
    choices: tuple[str, ...] = ()
    ref_key: str = "name"  # the key of an API object that names it


def _text(required: bool = False) -> Spec:
    return Spec("text", required)


def _ref(required: bool = False, key: str = "name") -> Spec:
    return Spec("ref", required, ref_key=key)


# What the import reads of each kind, by NetBox's name for it.
READ: dict[str, dict[str, Spec]] = {
    SITE: {"name": _text(True), "facility": _text(), "physical_address": _text()},
    RACK: {
        "site": _ref(True),
        "location": _ref(),
        "name": _text(True),
        "status": Spec("choice", choices=("reserved", "available", "planned", "active", "deprecated")),
        "u_height": Spec("whole"),
        "max_weight": Spec("number"),
        "weight_unit": Spec("choice", choices=WEIGHT_UNITS),
    },
    POWER_PANEL: {"site": _ref(True), "location": _ref(), "name": _text(True)},
    POWER_FEED: {
        "site": _ref(),
        "power_panel": _ref(True),
        "rack": _ref(),
        "name": _text(True),
        "status": Spec("choice", choices=FEED_STATUSES),
        "type": Spec("choice", choices=FEED_TYPES),
        "supply": Spec("choice", choices=FEED_SUPPLIES),
        "phase": Spec("choice", choices=FEED_PHASES),
        "voltage": Spec("number"),
        "amperage": Spec("number"),
        "max_utilization": Spec("number"),
    },
    DEVICE: {
        "name": _text(),
        "site": _ref(True),
        "rack": _ref(),
        "position": Spec("number"),
        "face": Spec("choice", choices=DEVICE_FACES),
        "device_type": _ref(True, key="model"),
        "status": _text(),
    },
    POWER_PORT: {
        "device": _ref(True),
        "name": _text(True),
        "maximum_draw": Spec("number"),
        "allocated_draw": Spec("number"),
    },
    DEVICE_TYPE: {
        "manufacturer": _ref(),
        "model": _text(True),
        "slug": _text(),
        "u_height": Spec("number"),
        "weight": Spec("number"),
        "weight_unit": Spec("choice", choices=WEIGHT_UNITS),
    },
}  # fmt: skip


@dataclass(frozen=True)
class Where:
    """A place in a file: the line, and the column by number and by name where one is known."""

    file: str
    line: int
    column: int | None = None
    name: str = ""

    def __str__(self) -> str:
        place = {"file": self.file, "line": self.line, "column": self.column, "name": self.name}
        if self.column is not None and self.name:
            return _("%(file)s, line %(line)d, column %(column)d (%(name)s)") % place
        if self.column is not None:
            return _("%(file)s, line %(line)d, column %(column)d") % place
        return _("%(file)s, line %(line)d") % place


@dataclass
class Record:
    """One NetBox object as read: its values by NetBox's field names (`<field>_id` for the id of
    an object an API answer names), and where each value (and the object, under "") stood."""

    kind: str
    values: dict[str, Any]
    where: dict[str, Where] = field(default_factory=dict)

    def at(self, name: str = "") -> Where:
        return self.where.get(name) or self.where[""]

    def get(self, name: str, default: Any = None) -> Any:
        value = self.values.get(name)
        return default if value is None or value == "" else value


@dataclass(frozen=True)
class Problem:
    where: Where
    message: str

    def __str__(self) -> str:
        return _("%(where)s: %(message)s") % {"where": self.where, "message": self.message}


class ImportRefused(Exception):
    """The files cannot be imported; nothing was written. Each problem names its place."""

    def __init__(self, problems: list[Problem]):
        self.problems = problems
        super().__init__("; ".join(str(p) for p in problems[:5]))
