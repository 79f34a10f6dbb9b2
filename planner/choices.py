"""The planner's enumerations. Most are declared as a table of values and their labels, each
member named after its value in capitals (`"timed_out"` is `SimulationStatus.TIMED_OUT`); the
few whose members are named otherwise are classes."""

import dataclasses
from typing import Any

from django.db import models
from django.utils.translation import gettext_lazy as _

from planner.engine.facility import RackSpec


# Any, not type[TextChoices]: the members are made when the module runs, so no type checker
# could name them; callers use them as ordinary TextChoices members.
def text_choices(name: str, labels: dict[str, Any]) -> Any:
    """Choices from a table of values and their labels, each member named after its value."""
    members = [(value.upper(), (value, label)) for value, label in labels.items()]
    return models.TextChoices(name, members, module=__name__)


class Feeds(models.TextChoices):
    SINGLE = "single", _("Single feed")
    A_B_2N = "2n", _("A/B feeds (2N)")


# What a rack's feeds are when nobody says: the engine's default (planner.engine.facility's
# RackSpec, which the fit and plan questions also take), so a saved rack group and a fit
# question left at their defaults mean the same racks.
DEFAULT_FEEDS = Feeds(next(f.default for f in dataclasses.fields(RackSpec) if f.name == "feeds"))


class RackCooling(models.TextChoices):
    ROOM_AIR = "air", _("Room air")
    RDHX = "rdhx", _("Rear-door heat exchanger")
    LIQUID = "liquid", _("Direct liquid")


Visibility = text_choices(
    "Visibility", {"team": _("My team only"), "shared": _("Every team (read only)")}
)

SimulationKind = text_choices(
    "SimulationKind",
    {
        "training": _("Training campaign"),
        "serving": _("Serving under load"),
        "sweep": _("Sweep over candidates"),
    },
)

SimulationStatus = text_choices(
    "SimulationStatus",
    {
        "queued": _("Queued"),
        "running": _("Running"),
        "succeeded": _("Succeeded"),
        "failed": _("Failed"),
        "cancelled": _("Cancelled"),
        "timed_out": _("Timed out"),
    },
)

ACTIVE_STATUSES = (SimulationStatus.QUEUED, SimulationStatus.RUNNING)
FINISHED_STATUSES = (
    SimulationStatus.SUCCEEDED,
    SimulationStatus.FAILED,
    SimulationStatus.CANCELLED,
    SimulationStatus.TIMED_OUT,
)

PriceKind = text_choices("PriceKind", {"purchase": _("Purchase"), "rent": _("Rent")})

# What a price is for. A system is a complete server sold with its cards.
PriceItem = text_choices(
    "PriceItem",
    {
        "accelerator": _("Accelerator"),
        "server": _("Server platform (bare)"),
        "system": _("Complete system (server with its cards)"),
        "nic": _("Network card (NIC)"),
        "switch_port": _("Switch port"),
        "cable": _("Cable"),
        "transceiver": _("Transceiver"),
        "rack": _("Rack"),
    },
)

# Network items name a catalog fabric, or a free-text item name, or both.
NETWORK_ITEMS = (PriceItem.NIC, PriceItem.SWITCH_PORT, PriceItem.CABLE, PriceItem.TRANSCEIVER)

RentTerms = text_choices(
    "RentTerms",
    {
        "on_demand": _("On demand"),
        "reserved_1y": _("Reserved, 1 year"),
        "reserved_3y": _("Reserved, 3 years"),
        "spot": _("Spot"),
        "capacity_block": _("Capacity block"),
    },
)

# Where a fault shows itself first: the layer a person starts checking.
FaultCategory = text_choices(
    "FaultCategory",
    {
        "xid": _("NVIDIA Xid (kernel log)"),
        "cuda": _("CUDA and framework errors"),
        "driver": _("Driver and devices"),
        "interconnect": _("NCCL, NVLink and network"),
        "thermal": _("Thermal and power"),
        "throughput": _("Utilisation and throughput"),
    },
)


class FaultLink(models.TextChoices):
    """What flopfit can compute about a fault, linked from its entry."""

    NONE = "", _("Nothing to compute")
    ESTIMATE = "estimate", _("The Estimate page's memory breakdown")
    RACK_THERMAL = "rack_thermal", _("The rack groups' power, cooling and thermal derating")


FeedSupply = text_choices("FeedSupply", {"ac": _("AC"), "dc": _("DC")})

FeedPhase = text_choices("FeedPhase", {"single": _("Single-phase"), "three": _("Three-phase")})

FeedType = text_choices("FeedType", {"primary": _("Primary"), "redundant": _("Redundant")})

# What a NetBox object became here (planner.models.netbox.NetboxLink).
NetboxKind = text_choices(
    "NetboxKind",
    {
        "site": _("Site"),
        "rack": _("Rack"),
        "power_feed": _("Power feed"),
        "device": _("Device"),
    },
)
