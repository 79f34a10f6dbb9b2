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
