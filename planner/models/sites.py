"""What facility teams keep: sites and their rows of identical racks."""

from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q
from django.urls import reverse
from django.utils.translation import gettext_lazy as _
from simple_history.models import HistoricalRecords

from catalog.choices import Currency
from planner.choices import (
    DEFAULT_FEEDS,
    Feeds,
    RackCooling,
    Visibility,
)
from planner.models.base import VersionedRecord
from planner.models.fields import name_rules, version_field, version_rule

# Sane bounds: the densest AI racks today (GB200 NVL72) draw ~130 kW; racks are at most ~60U;
# floor loading rarely allows more than ~2,000 kg per rack; inlet air outside 5-45 °C is
# outside every ASHRAE class.
MAX_RACK_KW = 250
MAX_RACK_UNITS = 60
MAX_RACK_KG = 5000
INLET_RANGE_C = (5, 45)


class Site(VersionedRecord):
    """A data centre or machine room: where the racks are, what power costs there."""

    team = models.ForeignKey(
        "accounts.Team", on_delete=models.PROTECT, related_name="sites", verbose_name=_("team")
    )
    visibility = models.CharField(
        _("visibility"), max_length=8, choices=Visibility.choices, default=Visibility.TEAM
    )
    name = models.CharField(_("name"), max_length=120)
    location = models.CharField(_("location"), max_length=200, blank=True)
    currency = models.CharField(
        _("currency"), max_length=3, choices=Currency.choices, default=Currency.CNY
    )
    electricity_price_per_kwh = models.DecimalField(
        _("electricity price per kWh"),
        max_digits=8,
        decimal_places=4,
        validators=[MinValueValidator(0), MaxValueValidator(100)],
        help_text=_("In the site's currency"),
    )
    pue = models.FloatField(
        _("PUE"),
        validators=[MinValueValidator(1.0), MaxValueValidator(3.0)],
        help_text=_("Facility power / IT power, 1.0-3.0"),
    )
    notes = models.TextField(_("notes"), blank=True)

    detail_view = "planner:site_detail"

    class Meta:
        verbose_name = _("site")
        verbose_name_plural = _("sites")
        ordering = ["name"]
        constraints = [
            *name_rules("site", unique_within="team"),
            models.CheckConstraint(condition=Q(pue__gte=1.0, pue__lte=3.0), name="site_pue_sane"),
            models.CheckConstraint(
                condition=Q(electricity_price_per_kwh__gte=0), name="site_price_non_negative"
            ),
            version_rule("site"),
        ]

    def __str__(self) -> str:
        return self.name


class RackGroup(models.Model):
    """A row of identical racks: what each rack can power, cool, hold and carry."""

    # What a person states about a rack group: the fields of its form, of the API and of the
    # CSV import and export, in that order.
    STATED_FIELDS = (
        "name",
        "count",
        "power_kw",
        "feeds",
        "cooling_kw",
        "cooling",
        "units",
        "max_kg",
        "inlet_c",
        "liquid_loops",
        "fabrics",
    )

    site = models.ForeignKey(
        Site, on_delete=models.CASCADE, related_name="rack_groups", verbose_name=_("site")
    )
    name = models.CharField(_("name"), max_length=120)
    count = models.PositiveIntegerField(
        _("racks"), validators=[MinValueValidator(1), MaxValueValidator(10000)]
    )
    power_kw = models.FloatField(
        _("usable power per rack (kW)"),
        validators=[MinValueValidator(0.1), MaxValueValidator(MAX_RACK_KW)],
        help_text=_("With A/B feeds, what one feed carries"),
    )
    feeds = models.CharField(_("feeds"), max_length=8, choices=Feeds.choices, default=DEFAULT_FEEDS)
    cooling_kw = models.FloatField(
        _("cooling per rack (kW)"),
        validators=[MinValueValidator(0.1), MaxValueValidator(MAX_RACK_KW)],
    )
    cooling = models.CharField(
        _("cooling"), max_length=8, choices=RackCooling.choices, default=RackCooling.ROOM_AIR
    )
    units = models.PositiveSmallIntegerField(
        _("usable U"), validators=[MinValueValidator(1), MaxValueValidator(MAX_RACK_UNITS)]
    )
    max_kg = models.FloatField(
        _("maximum load (kg)"), validators=[MinValueValidator(1), MaxValueValidator(MAX_RACK_KG)]
    )
    inlet_c = models.FloatField(
        _("inlet air (°C)"),
        default=25,
        validators=[MinValueValidator(INLET_RANGE_C[0]), MaxValueValidator(INLET_RANGE_C[1])],
    )
    liquid_loops = models.BooleanField(_("liquid cooling loops"), default=False)
    fabrics = models.ManyToManyField(
        "catalog.Fabric", blank=True, related_name="rack_groups", verbose_name=_("fabrics offered")
    )
    updated_at = models.DateTimeField(_("updated"), auto_now=True)
    version = version_field()
    history = HistoricalRecords(m2m_fields=[fabrics], excluded_fields=["version"])

    class Meta:
        verbose_name = _("rack group")
        verbose_name_plural = _("rack groups")
        ordering = ["site", "name"]
        constraints = [
            *name_rules("rackgroup", unique_within="site"),
            models.CheckConstraint(
                condition=Q(count__gte=1, count__lte=10000), name="rackgroup_count_sane"
            ),
            models.CheckConstraint(
                condition=Q(power_kw__gt=0, power_kw__lte=MAX_RACK_KW), name="rackgroup_power_sane"
            ),
            models.CheckConstraint(
                condition=Q(cooling_kw__gt=0, cooling_kw__lte=MAX_RACK_KW),
                name="rackgroup_cooling_sane",
            ),
            models.CheckConstraint(
                condition=Q(units__gte=1, units__lte=MAX_RACK_UNITS), name="rackgroup_units_sane"
            ),
            models.CheckConstraint(
                condition=Q(max_kg__gt=0, max_kg__lte=MAX_RACK_KG), name="rackgroup_weight_sane"
            ),
            models.CheckConstraint(
                condition=Q(inlet_c__gte=INLET_RANGE_C[0], inlet_c__lte=INLET_RANGE_C[1]),
                name="rackgroup_inlet_sane",
            ),
            models.CheckConstraint(
                condition=~Q(cooling=RackCooling.LIQUID) | Q(liquid_loops=True),
                name="rackgroup_liquid_cooling_has_loops",
                violation_error_message=_("Direct liquid cooling needs liquid loops."),
            ),
            version_rule("rackgroup"),
        ]

    def __str__(self) -> str:
        return f"{self.site} / {self.name}"

    def get_absolute_url(self) -> str:
        return (
            reverse("planner:site_detail", kwargs={"pk": self.site_id}) + f"#rack-group-{self.pk}"
        )
