import dataclasses

from django.db import models
from django.utils.translation import gettext_lazy as _

from planner.engine.facility import RackSpec


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


class Visibility(models.TextChoices):
    TEAM = "team", _("My team only")
    SHARED = "shared", _("Every team (read only)")


class SimulationKind(models.TextChoices):
    TRAINING = "training", _("Training campaign")
    SERVING = "serving", _("Serving under load")
    SWEEP = "sweep", _("Sweep over candidates")


class SimulationStatus(models.TextChoices):
    QUEUED = "queued", _("Queued")
    RUNNING = "running", _("Running")
    SUCCEEDED = "succeeded", _("Succeeded")
    FAILED = "failed", _("Failed")
    CANCELLED = "cancelled", _("Cancelled")
    TIMED_OUT = "timed_out", _("Timed out")


ACTIVE_STATUSES = (SimulationStatus.QUEUED, SimulationStatus.RUNNING)
FINISHED_STATUSES = (
    SimulationStatus.SUCCEEDED,
    SimulationStatus.FAILED,
    SimulationStatus.CANCELLED,
    SimulationStatus.TIMED_OUT,
)


class PriceKind(models.TextChoices):
    PURCHASE = "purchase", _("Purchase")
    RENT = "rent", _("Rent")


class PriceItem(models.TextChoices):
    """What a price is for. A system is a complete server sold with its cards."""

    ACCELERATOR = "accelerator", _("Accelerator")
    SERVER = "server", _("Server platform (bare)")
    SYSTEM = "system", _("Complete system (server with its cards)")
    NIC = "nic", _("Network card (NIC)")
    SWITCH_PORT = "switch_port", _("Switch port")
    CABLE = "cable", _("Cable")
    TRANSCEIVER = "transceiver", _("Transceiver")
    RACK = "rack", _("Rack")


# Network items name a catalog fabric, or a free-text item name, or both.
NETWORK_ITEMS = (PriceItem.NIC, PriceItem.SWITCH_PORT, PriceItem.CABLE, PriceItem.TRANSCEIVER)


class RentTerms(models.TextChoices):
    ON_DEMAND = "on_demand", _("On demand")
    RESERVED_1Y = "reserved_1y", _("Reserved, 1 year")
    RESERVED_3Y = "reserved_3y", _("Reserved, 3 years")
    SPOT = "spot", _("Spot")
    CAPACITY_BLOCK = "capacity_block", _("Capacity block")


class FaultCategory(models.TextChoices):
    """Where a fault shows itself first: the layer a person starts checking."""

    XID = "xid", _("NVIDIA Xid (kernel log)")
    CUDA = "cuda", _("CUDA and framework errors")
    DRIVER = "driver", _("Driver and devices")
    INTERCONNECT = "interconnect", _("NCCL, NVLink and network")
    THERMAL = "thermal", _("Thermal and power")
    THROUGHPUT = "throughput", _("Utilisation and throughput")


class FaultLink(models.TextChoices):
    """What flopfit can compute about a fault, linked from its entry."""

    NONE = "", _("Nothing to compute")
    ESTIMATE = "estimate", _("The Estimate page's memory breakdown")
    RACK_THERMAL = "rack_thermal", _("The rack groups' power, cooling and thermal derating")


class FeedSupply(models.TextChoices):
    AC = "ac", _("AC")
    DC = "dc", _("DC")


class FeedPhase(models.TextChoices):
    SINGLE = "single", _("Single-phase")
    THREE = "three", _("Three-phase")


class FeedType(models.TextChoices):
    PRIMARY = "primary", _("Primary")
    REDUNDANT = "redundant", _("Redundant")


class NetboxKind(models.TextChoices):
    """What a NetBox object became here (planner.models.netbox.NetboxLink)."""

    SITE = "site", _("Site")
    RACK = "rack", _("Rack")
    POWER_FEED = "power_feed", _("Power feed")
    DEVICE = "device", _("Device")
