"""What is installed in a rack, and the capacity plans hold in racks until they release it."""

from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _
from simple_history.models import HistoricalRecords

from planner.models.base import VersionedRow
from planner.models.fields import created_by_field, version_rule
from planner.models.racks import Rack
from planner.models.sites import MAX_RACK_KG, MAX_RACK_KW, MAX_RACK_UNITS


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

    rack = models.ForeignKey(
        Rack, on_delete=models.CASCADE, related_name="equipment", verbose_name=_("rack")
    )
    name = models.CharField(_("name"), max_length=120, help_text=_("Host name or device label"))
    server = models.ForeignKey(
        "catalog.ServerPlatform",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="installed",
        verbose_name=_("catalog server"),
        help_text=_("Empty for a device the catalog does not list"),
    )
    position_u = models.PositiveSmallIntegerField(
        _("lowest U"),
        validators=[MinValueValidator(1), MaxValueValidator(MAX_RACK_UNITS)],
        help_text=_("The rack unit its bottom sits in, counted from 1 at the bottom"),
    )
    units = models.PositiveSmallIntegerField(
        _("height (U)"), validators=[MinValueValidator(1), MaxValueValidator(MAX_RACK_UNITS)]
    )
    nameplate_kw = models.FloatField(
        _("nameplate power (kW)"),
        validators=[MinValueValidator(0), MaxValueValidator(MAX_RACK_KW)],
        help_text=_("Rated maximum draw; what the rack's power and cooling budgets count"),
    )
    measured_kw = models.FloatField(
        _("measured power (kW)"),
        null=True,
        blank=True,
        validators=[MinValueValidator(0), MaxValueValidator(MAX_RACK_KW)],
        help_text=_("Peak draw as measured, when known; shown beside the nameplate"),
    )
    weight_kg = models.FloatField(
        _("weight (kg)"), validators=[MinValueValidator(0), MaxValueValidator(MAX_RACK_KG)]
    )
    notes = models.CharField(_("notes"), max_length=200, blank=True)
    installed_at = models.DateTimeField(_("installed"), auto_now_add=True)
    removed_at = models.DateTimeField(_("removed"), null=True, blank=True, editable=False)
    created_by = created_by_field()

    class Meta:
        verbose_name = _("equipment")
        verbose_name_plural = _("equipment")
        ordering = ["rack", "-position_u"]
        constraints = [
            models.CheckConstraint(condition=~Q(name=""), name="equipment_has_name"),
            models.CheckConstraint(
                condition=Q(position_u__gte=1, units__gte=1), name="equipment_place_sane"
            ),
            models.CheckConstraint(
                condition=Q(nameplate_kw__gte=0, nameplate_kw__lte=MAX_RACK_KW),
                name="equipment_power_sane",
            ),
            models.CheckConstraint(
                condition=Q(measured_kw__isnull=True)
                | Q(measured_kw__gte=0, measured_kw__lte=MAX_RACK_KW),
                name="equipment_measured_sane",
            ),
            models.CheckConstraint(
                condition=Q(weight_kg__gte=0, weight_kg__lte=MAX_RACK_KG),
                name="equipment_weight_sane",
            ),
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

    rack = models.ForeignKey(
        Rack, on_delete=models.CASCADE, related_name="commitments", verbose_name=_("rack")
    )
    plan = models.ForeignKey(
        "planner.Plan", on_delete=models.CASCADE, related_name="commitments", verbose_name=_("plan")
    )
    server = models.ForeignKey(
        "catalog.ServerPlatform",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        verbose_name=_("server"),
    )
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
