"""What is installed in a rack, and the capacity plans hold in racks until they release it."""

from django.core.validators import MinValueValidator
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _
from simple_history.models import HistoricalRecords

from planner.models.base import VersionedRow
from planner.models.fields import (
    Figure,
    created_by_field,
    name_rules,
    optional_link,
    optional_text,
    parent_link,
    version_rule,
)
from planner.models.racks import Rack
from planner.models.sites import MAX_RACK_KG, MAX_RACK_KW, RACK_UNITS

# What one device may draw and weigh: anything a rack could hold, down to nothing (a patch panel).
DRAW_KW = Figure(models.FloatField, 0, MAX_RACK_KW)
WEIGHT_KG = Figure(models.FloatField, 0, MAX_RACK_KG)


class Equipment(VersionedRow):
    """A catalog server or a free-form device in a rack, from U `position_u` up `units` high.

    Removing it stamps `removed_at`: the row and its history stay, and it no longer counts."""

    STATED_FIELDS = (
        "name",
        "server",
        "position_u",
        "units",
        "nameplate_kw",
        "measured_kw",
        "weight_kg",
        "notes",
    )

    rack = parent_link(Rack, _("rack"), related_name="equipment")
    name = models.CharField(_("name"), max_length=120, help_text=_("Host name or device label"))
    server = optional_link(
        "catalog.ServerPlatform",
        _("catalog server"),
        related_name="installed",
        help_text=_("Empty for a device the catalog does not list"),
    )
    position_u = RACK_UNITS.field(
        _("lowest U"), _("The rack unit its bottom sits in, counted from 1 at the bottom")
    )
    units = RACK_UNITS.field(_("height (U)"))
    nameplate_kw = DRAW_KW.field(
        _("nameplate power (kW)"),
        _("Rated maximum draw; what the rack's power and cooling budgets count"),
    )
    measured_kw = DRAW_KW.optional(
        _("measured power (kW)"), _("Peak draw as measured, when known; shown beside the nameplate")
    )
    weight_kg = WEIGHT_KG.field(_("weight (kg)"))
    notes = optional_text(_("notes"), 200)
    installed_at = models.DateTimeField(_("installed"), auto_now_add=True)
    removed_at = models.DateTimeField(_("removed"), null=True, blank=True, editable=False)
    created_by = created_by_field()

    class Meta:
        verbose_name = _("equipment")
        verbose_name_plural = _("equipment")
        ordering = ["rack", "-position_u"]
        constraints = [
            *name_rules("equipment"),
            models.CheckConstraint(
                condition=Q(position_u__gte=1, units__gte=1), name="equipment_place_sane"
            ),
            DRAW_KW.rule("equipment_power_sane", "nameplate_kw"),
            DRAW_KW.rule("equipment_measured_sane", "measured_kw", optional=True),
            WEIGHT_KG.rule("equipment_weight_sane", "weight_kg"),
            version_rule("equipment"),
        ]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return self.rack.get_absolute_url() + f"#equipment-{self.pk}"

    @property
    def top_u(self) -> int:
        return self.position_u + self.units - 1


class RackCommitment(models.Model):
    """Capacity a plan holds in a rack for the servers of its chosen build, until released."""

    rack = parent_link(Rack, _("rack"), related_name="commitments")
    plan = parent_link("planner.Plan", _("plan"), related_name="commitments")
    server = optional_link("catalog.ServerPlatform", _("server"), related_name="+")
    servers = models.PositiveIntegerField(_("servers"), validators=[MinValueValidator(1)])
    power_kw = models.FloatField(_("power held (kW)"), validators=[MinValueValidator(0)])
    units = models.PositiveSmallIntegerField(_("space held (U)"))
    weight_kg = models.FloatField(_("weight held (kg)"), validators=[MinValueValidator(0)])
    created_by = created_by_field()
    created_at = models.DateTimeField(_("committed"), auto_now_add=True)
    released_at = models.DateTimeField(_("released"), null=True, blank=True)
    history = HistoricalRecords()

    class Meta:
        verbose_name = _("rack commitment")
        verbose_name_plural = _("rack commitments")
        ordering = ["rack", "created_at"]
        constraints = [
            models.CheckConstraint(condition=Q(servers__gte=1), name="commitment_servers_sane"),
            models.CheckConstraint(
                condition=Q(power_kw__gte=0, weight_kg__gte=0), name="commitment_figures_sane"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.plan} → {self.rack}"
