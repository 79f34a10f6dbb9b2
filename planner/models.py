"""What facility teams keep: sites and their rows of identical racks."""

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q
from django.urls import reverse
from django.utils.translation import gettext_lazy as _
from simple_history.models import HistoricalRecords

from catalog.choices import Currency
from planner.choices import (
    FINISHED_STATUSES,
    Feeds,
    RackCooling,
    SimulationKind,
    SimulationStatus,
    Visibility,
)

# Sane bounds: the densest AI racks today (GB200 NVL72) draw ~130 kW; racks are at most ~60U;
# floor loading rarely allows more than ~2,000 kg per rack; inlet air outside 5-45 °C is
# outside every ASHRAE class.
MAX_RACK_KW = 250
MAX_RACK_UNITS = 60
MAX_RACK_KG = 5000
INLET_RANGE_C = (5, 45)


class Site(models.Model):
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
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    updated_at = models.DateTimeField(_("updated"), auto_now=True)
    version = models.PositiveIntegerField(
        _("record version"),
        default=1,
        editable=False,
        help_text=_("Raised by one on every save; an edit names the version it started from"),
    )
    # The version is bookkeeping for concurrent edits, not a change anyone made.
    history = HistoricalRecords(excluded_fields=["version"])

    class Meta:
        verbose_name = _("site")
        verbose_name_plural = _("sites")
        ordering = ["name"]
        constraints = [
            models.UniqueConstraint(fields=["team", "name"], name="site_unique_name_per_team"),
            models.CheckConstraint(condition=Q(pue__gte=1.0, pue__lte=3.0), name="site_pue_sane"),
            models.CheckConstraint(
                condition=Q(electricity_price_per_kwh__gte=0), name="site_price_non_negative"
            ),
            models.CheckConstraint(condition=~Q(name=""), name="site_has_name"),
            models.CheckConstraint(condition=Q(version__gte=1), name="site_version_positive"),
        ]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("planner:site_detail", kwargs={"pk": self.pk})


class RackGroup(models.Model):
    """A row of identical racks: what each rack can power, cool, hold and carry."""

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
    feeds = models.CharField(_("feeds"), max_length=8, choices=Feeds.choices, default=Feeds.A_B_2N)
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
    version = models.PositiveIntegerField(
        _("record version"),
        default=1,
        editable=False,
        help_text=_("Raised by one on every save; an edit names the version it started from"),
    )
    history = HistoricalRecords(m2m_fields=[fabrics], excluded_fields=["version"])

    class Meta:
        verbose_name = _("rack group")
        verbose_name_plural = _("rack groups")
        ordering = ["site", "name"]
        constraints = [
            models.UniqueConstraint(fields=["site", "name"], name="rackgroup_unique_name_per_site"),
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
            models.CheckConstraint(condition=~Q(name=""), name="rackgroup_has_name"),
            models.CheckConstraint(condition=Q(version__gte=1), name="rackgroup_version_positive"),
        ]

    def __str__(self) -> str:
        return f"{self.site} / {self.name}"

    def get_absolute_url(self) -> str:
        return (
            reverse("planner:site_detail", kwargs={"pk": self.site_id}) + f"#rack-group-{self.pk}"
        )


class Simulation(models.Model):
    """A heavy run queued to a worker: its question, where it stands, and its answer.

    One row per distinct question (`inputs_hash`): asking again returns the same row, and the
    result is written once. The row survives a worker that dies mid-run; the re-delivered task
    picks it up again."""

    kind = models.CharField(_("kind"), max_length=10, choices=SimulationKind.choices)
    inputs = models.JSONField(_("inputs"))
    inputs_hash = models.CharField(_("inputs hash"), max_length=64, unique=True)
    status = models.CharField(
        _("status"),
        max_length=10,
        choices=SimulationStatus.choices,
        default=SimulationStatus.QUEUED,
    )
    progress = models.FloatField(_("progress"), default=0.0, help_text=_("0 to 1"))
    result = models.JSONField(_("result"), null=True, blank=True)
    error = models.TextField(_("error"), blank=True)
    task_id = models.CharField(_("task id"), max_length=64, blank=True)
    parts = models.ManyToManyField(
        "self",
        symmetrical=False,
        blank=True,
        related_name="sweeps",
        verbose_name=_("parts"),
        help_text=_("A sweep's simulations, one per candidate"),
    )
    attempts = models.PositiveSmallIntegerField(
        _("attempts"), default=0, help_text=_("Runs started")
    )
    model_version = models.CharField(_("engine version"), max_length=20)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    queued_at = models.DateTimeField(_("queued"), null=True, blank=True)
    started_at = models.DateTimeField(_("started"), null=True, blank=True)
    finished_at = models.DateTimeField(_("finished"), null=True, blank=True)

    class Meta:
        verbose_name = _("simulation")
        verbose_name_plural = _("simulations")
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(
                condition=Q(progress__gte=0, progress__lte=1), name="simulation_progress_fraction"
            ),
            models.CheckConstraint(
                condition=~Q(status=SimulationStatus.SUCCEEDED) | Q(result__isnull=False),
                name="simulation_success_has_result",
            ),
            models.CheckConstraint(
                condition=Q(finished_at__isnull=True)
                | Q(started_at__isnull=True)
                | Q(finished_at__gte=models.F("started_at")),
                name="simulation_finishes_after_start",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} #{self.pk} ({self.status})"

    def get_absolute_url(self) -> str:
        return reverse("planner:simulation_detail", kwargs={"pk": self.pk})

    @property
    def finished(self) -> bool:
        return self.status in FINISHED_STATUSES

    @property
    def overall_progress(self) -> float:
        """A sweep advances as its parts do."""
        if self.kind != SimulationKind.SWEEP or self.finished:
            return self.progress
        values = list(self.parts.values_list("progress", flat=True))
        return sum(values) / len(values) if values else 0.0

    @property
    def elapsed_s(self) -> float | None:
        if not self.started_at:
            return None
        from django.utils import timezone

        return ((self.finished_at or timezone.now()) - self.started_at).total_seconds()


class Plan(models.Model):
    """A purchase question: a workload, a site (or none), a budget and the builds allowed; its
    ranking is computed once and kept, since weights only re-order it."""

    name = models.CharField(_("name"), max_length=200)
    team = models.ForeignKey(
        "accounts.Team", on_delete=models.PROTECT, related_name="plans", verbose_name=_("team")
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    site = models.ForeignKey(
        Site,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="plans",
        verbose_name=_("site"),
    )
    workload = models.ForeignKey(
        "Workload",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="plans",
        verbose_name=_("workload"),
        help_text=_("The saved workload the question was built from, if any"),
    )
    question = models.JSONField(
        _("question"), help_text=_("The recommend question, as `manage.py recommend` takes it")
    )
    currency = models.CharField(
        _("currency"), max_length=3, choices=Currency.choices, default=Currency.USD
    )
    ranking = models.JSONField(_("ranking"), null=True, blank=True)
    model_version = models.CharField(_("engine version"), max_length=20)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    updated_at = models.DateTimeField(_("updated"), auto_now=True)

    class Meta:
        verbose_name = _("plan")
        verbose_name_plural = _("plans")
        ordering = ["-created_at"]
        constraints = [models.CheckConstraint(condition=~Q(name=""), name="plan_has_name")]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("planner:plan_detail", kwargs={"pk": self.pk})


class Workload(models.Model):
    """A job a team plans hardware for: the estimate question without accelerator and count,
    kept with the targets the plan checks (deadline, requests per second, latency).

    `spec` is a fragment of the recommend question (planner.plans): `{"workload": {...}}` plus
    the top-level targets, so a plan's question is `{**workload.spec, "budget": ..., ...}`."""

    name = models.CharField(_("name"), max_length=200)
    team = models.ForeignKey(
        "accounts.Team", on_delete=models.PROTECT, related_name="workloads", verbose_name=_("team")
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    spec = models.JSONField(
        _("specification"),
        help_text=_(
            '{"workload": the estimate question without accelerator and count, plus '
            "deadline_days, target_rps, ttft_ms and tpot_ms (ms) where set}"
        ),
    )
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    updated_at = models.DateTimeField(_("updated"), auto_now=True)

    class Meta:
        verbose_name = _("workload")
        verbose_name_plural = _("workloads")
        ordering = ["name"]
        constraints = [
            models.UniqueConstraint(fields=["team", "name"], name="workload_unique_name_per_team"),
            models.CheckConstraint(condition=~Q(name=""), name="workload_has_name"),
            models.CheckConstraint(
                condition=Q(spec__has_key="workload"), name="workload_spec_has_workload"
            ),
        ]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("planner:workload_list") + f"#workload-{self.pk}"

    @property
    def task(self) -> str:
        return self.spec.get("workload", {}).get("task", "train")


class CalibrationProfile(models.Model):
    """A probe's measurements of one real card, and the factors derived from them that an
    estimate or a plan can use instead of the engine's defaults."""

    name = models.CharField(_("name"), max_length=200)
    accelerator = models.ForeignKey(
        "catalog.Accelerator",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="calibrations",
        verbose_name=_("accelerator"),
        help_text=_("The catalog card the probe's device matched; empty when none did"),
    )
    device_name = models.CharField(_("device"), max_length=200, help_text=_("As the probe read it"))
    probe = models.JSONField(_("probe report"))
    derived = models.JSONField(_("derived factors"), null=True, blank=True)
    team = models.ForeignKey(
        "accounts.Team",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="calibrations",
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(_("created"), auto_now_add=True)

    class Meta:
        verbose_name = _("calibration profile")
        verbose_name_plural = _("calibration profiles")
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(condition=~Q(name=""), name="calibrationprofile_has_name"),
            models.CheckConstraint(
                condition=Q(accelerator__isnull=True) | Q(derived__isnull=False),
                name="calibrationprofile_matched_has_factors",
            ),
        ]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("planner:calibration_detail", kwargs={"pk": self.pk})
