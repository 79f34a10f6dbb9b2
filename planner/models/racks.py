"""What a facility team keeps inside a rack group: its racks, one by one.

A rack group states the limits its racks share; a rack states its own only where it differs
(an empty figure means "as the group")."""

from django.db import models
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from planner.models.base import VersionedRow
from planner.models.fields import name_rules, optional_text, parent_link, version_rule
from planner.models.sites import RACK_KG, RACK_KW, RACK_UNITS, RackGroup, rack_limit_rules

# What a rack's own limit says when it leaves the figure to its group.
AS_THE_GROUP = _("Empty: as the rack group")


class Rack(VersionedRow):
    """One rack of a rack group, with the limits where it differs from its group's."""

    # What a person states about a rack: its form's, its API's fields, in that order.
    STATED_FIELDS = ("name", "position", "units", "power_kw", "cooling_kw", "max_kg", "notes")

    rack_group = parent_link(RackGroup, _("rack group"), related_name="racks")
    # Room for the group's name and the place a count gives it ("Row A-07").
    name = models.CharField(_("name"), max_length=140)
    position = models.PositiveIntegerField(
        _("position"), default=1, help_text=_("Order of the rack in its row, from 1")
    )
    units = RACK_UNITS.optional(_("usable U"), AS_THE_GROUP)
    power_kw = RACK_KW.optional(
        _("usable power (kW)"), _("Empty: as the rack group, or from the rack's power feeds")
    )
    cooling_kw = RACK_KW.optional(_("cooling (kW)"), AS_THE_GROUP)
    max_kg = RACK_KG.optional(_("maximum load (kg)"), AS_THE_GROUP)
    notes = optional_text(_("notes"), 200)
    updated_at = models.DateTimeField(_("updated"), auto_now=True)

    class Meta:
        verbose_name = _("rack")
        verbose_name_plural = _("racks")
        ordering = ["rack_group", "position", "name"]
        constraints = [
            *name_rules("rack", unique_within="rack_group"),
            *rack_limit_rules("rack", optional=True),
            version_rule("rack"),
        ]

    def __str__(self) -> str:
        return f"{self.rack_group.name} / {self.name}"

    def get_absolute_url(self) -> str:
        return reverse("planner:rack_detail", kwargs={"pk": self.pk})
