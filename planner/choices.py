from django.db import models
from django.utils.translation import gettext_lazy as _


class Feeds(models.TextChoices):
    SINGLE = "single", _("Single feed")
    A_B_2N = "2n", _("A/B feeds (2N)")


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
