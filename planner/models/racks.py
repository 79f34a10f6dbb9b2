"""What a facility team keeps inside a rack group: its racks, one by one.

A rack group states the limits its racks share; a rack states its own only where it differs
(an empty figure means "as the group")."""

from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from planner.models.base import VersionedRow
from planner.models.fields import name_rules, version_rule
from planner.models.sites import MAX_RACK_KG, MAX_RACK_KW, MAX_RACK_UNITS, RackGroup


class Rack(VersionedRow):
    """One rack of a rack group, with the limits where it differs from its group's."""

    # What a person states about a rack: its form's, its API's fields, in that order.
    STATED_FIELDS = ("name", "position", "units", "power_kw", "cooling_kw", "max_kg", "notes")

    rack_group = models.ForeignKey(
        RackGroup, on_delete=models.CASCADE, related_name="racks", verbose_name=_("rack group")
    )
    # Room for the group's name and the place a count gives it ("Row A-07").
    name = models.CharField(_("name"), max_length=140)
    position = models.PositiveIntegerField(
        _("position"), default=1, help_text=_("Order of the rack in its row, from 1")
    )
    units = models.PositiveSmallIntegerField(
        _("usable U"),
        null=True,
        blank=True,
        validators=[MinValueValidator(1), MaxValueValidator(MAX_RACK_UNITS)],
        help_text=_("Empty: as the rack group"),
    )
    power_kw = models.FloatField(
        _("usable power (kW)"),
        null=True,
        blank=True,
        validators=[MinValueValidator(0.1), MaxValueValidator(MAX_RACK_KW)],
        help_text=_("Empty: as the rack group, or from the rack's power feeds"),
    )
    cooling_kw = models.FloatField(
        _("cooling (kW)"),
        null=True,
        blank=True,
        validators=[MinValueValidator(0.1), MaxValueValidator(MAX_RACK_KW)],
        help_text=_("Empty: as the rack group"),
    )
    max_kg = models.FloatField(
        _("maximum load (kg)"),
        null=True,
        blank=True,
        validators=[MinValueValidator(1), MaxValueValidator(MAX_RACK_KG)],
        help_text=_("Empty: as the rack group"),
    )
    notes = models.CharField(_("notes"), max_length=200, blank=True)
    updated_at = models.DateTimeField(_("updated"), auto_now=True)

    class Meta:
        verbose_name = _("rack")
        verbose_name_plural = _("racks")
        ordering = ["rack_group", "position", "name"]
        constraints = [
            *name_rules("rack", unique_within="rack_group"),
            models.CheckConstraint(
                condition=Q(units__isnull=True) | Q(units__gte=1, units__lte=MAX_RACK_UNITS),
                name="rack_units_sane",
            ),
            models.CheckConstraint(
                condition=Q(power_kw__isnull=True) | Q(power_kw__gt=0, power_kw__lte=MAX_RACK_KW),
                name="rack_power_sane",
            ),
            models.CheckConstraint(
                condition=Q(cooling_kw__isnull=True)
                | Q(cooling_kw__gt=0, cooling_kw__lte=MAX_RACK_KW),
                name="rack_cooling_sane",
            ),
            models.CheckConstraint(
                condition=Q(max_kg__isnull=True) | Q(max_kg__gt=0, max_kg__lte=MAX_RACK_KG),
                name="rack_weight_sane",
            ),
            version_rule("rack"),
        ]

    def __str__(self) -> str:
        return f"{self.rack_group.name} / {self.name}"

    def get_absolute_url(self) -> str:
        return reverse("planner:rack_detail", kwargs={"pk": self.pk})
