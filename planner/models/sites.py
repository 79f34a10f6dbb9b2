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
from planner.models.fields import (
    Figure,
    name_rules,
    optional_text,
    parent_link,
    team_link,
    version_field,
    version_rule,
)

# Sane bounds: the densest AI racks today (GB200 NVL72) draw ~130 kW; racks are at most ~60U;
# floor loading rarely allows more than ~2,000 kg per rack; inlet air outside 5-45 °C is
# outside every ASHRAE class; a row of more than 10,000 racks is a typo.
MAX_RACK_KW = 250
MAX_RACK_UNITS = 60
MAX_RACK_KG = 5000
INLET_RANGE_C = (5, 45)
MAX_RACKS_PER_GROUP = 10000

# A rack's limits. Forms ask for at least 0.1 kW and 1 kg; the database holds any positive figure.
RACK_UNITS = Figure(models.PositiveSmallIntegerField, 1, MAX_RACK_UNITS)
RACK_KW = Figure(models.FloatField, 0.1, MAX_RACK_KW, above=0)
RACK_KG = Figure(models.FloatField, 1, MAX_RACK_KG, above=0)
RACKS_PER_GROUP = Figure(models.PositiveIntegerField, 1, MAX_RACKS_PER_GROUP)
INLET_C = Figure(models.FloatField, *INLET_RANGE_C)
# Facility power over IT power: never below 1; above 3 is a typo, not a data centre.
PUE = Figure(models.FloatField, 1.0, 3.0)
# Which field holds each limit and what its rule is named after. A rack group states them for
# all its racks; a rack states its own only where it differs from its group.
RACK_LIMITS = (
    ("units", RACK_UNITS, "units"),
    ("power_kw", RACK_KW, "power"),
    ("cooling_kw", RACK_KW, "cooling"),
    ("max_kg", RACK_KG, "weight"),
)


def rack_limit_rules(table: str, *, optional: bool = False) -> list[models.BaseConstraint]:
    """The rules that keep a rack's limits sane; `optional` ones may be empty."""
    return [
        figure.rule(f"{table}_{rule}_sane", field, optional=optional)
        for field, figure, rule in RACK_LIMITS
    ]


class Site(VersionedRecord):
    """A data centre or machine room: where the racks are, what power costs there."""

    team = team_link("sites")
    visibility = models.CharField(
        _("visibility"), max_length=8, choices=Visibility.choices, default=Visibility.TEAM
    )
    name = models.CharField(_("name"), max_length=120)
    location = optional_text(_("location"), 200)
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
    pue = PUE.field(_("PUE"), _("Facility power / IT power, 1.0-3.0"))
    notes = models.TextField(_("notes"), blank=True)

    detail_view = "planner:site_detail"

    class Meta:
        verbose_name = _("site")
        verbose_name_plural = _("sites")
        ordering = ["name"]
        constraints = [
            *name_rules("site", unique_within="team"),
            PUE.rule("site_pue_sane", "pue"),
            # The bounds the form and the API hold the price to.
            models.CheckConstraint(
                condition=Q(electricity_price_per_kwh__gte=0, electricity_price_per_kwh__lte=100),
                name="site_price_in_range",
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

    site = parent_link(Site, _("site"), related_name="rack_groups")
    name = models.CharField(_("name"), max_length=120)
    count = RACKS_PER_GROUP.field(_("racks"))
    power_kw = RACK_KW.field(
        _("usable power per rack (kW)"), _("With A/B feeds, what one feed carries")
    )
    feeds = models.CharField(_("feeds"), max_length=8, choices=Feeds.choices, default=DEFAULT_FEEDS)
    cooling_kw = RACK_KW.field(_("cooling per rack (kW)"))
    cooling = models.CharField(
        _("cooling"), max_length=8, choices=RackCooling.choices, default=RackCooling.ROOM_AIR
    )
    units = RACK_UNITS.field(_("usable U"))
    max_kg = RACK_KG.field(_("maximum load (kg)"))
    inlet_c = INLET_C.field(_("inlet air (°C)"), default=25)
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
            RACKS_PER_GROUP.rule("rackgroup_count_sane", "count"),
            *rack_limit_rules("rackgroup"),
            INLET_C.rule("rackgroup_inlet_sane", "inlet_c"),
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
