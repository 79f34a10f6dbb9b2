from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from catalog.choices import Airflow, FormFactor, Population, ServerCooling, Topology
from catalog.models.accelerator import Accelerator
from catalog.models.base import CatalogItem, positive


class ServerPlatform(CatalogItem):
    """A server (or rack-scale system) that holds accelerators: what fits, how they talk, and
    what the facility must supply (rack units, power, weight, cooling)."""

    vendor = models.CharField(_("vendor"), max_length=40)
    accelerator_slots = models.PositiveSmallIntegerField(_("accelerator slots"))
    form_factors = models.JSONField(
        _("form factors"), default=list, help_text=_("Accelerator form factors that fit")
    )
    fixed_accelerator = models.ForeignKey(
        "catalog.Accelerator",
        verbose_name=_("fixed accelerator"),
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="integrated_servers",
        help_text=_("The accelerator an integrated system ships with; empty when chosen freely"),
    )
    accepts = models.JSONField(
        _("accepts"),
        default=list,
        help_text=_(
            "Slugs of the catalog accelerators the vendor sells or validates this server with"
        ),
    )
    population = models.CharField(
        _("population"),
        max_length=5,
        choices=Population.choices,
        default=Population.ANY,
        help_text=_("Whether it comes only fully populated or takes any count up to its slots"),
    )
    topology = models.CharField(_("intra-node topology"), max_length=14, choices=Topology.choices)
    rack_units = models.PositiveSmallIntegerField(_("rack units (U)"))
    max_power_kw = models.FloatField(
        _("max power (kW)"),
        null=True,
        blank=True,
        help_text=_(
            "Published maximum system draw, kW; empty where it depends on the accelerators "
            "installed (then estimated from their board power)"
        ),
    )
    base_power_w = models.FloatField(
        _("platform base load (W)"),
        null=True,
        blank=True,
        help_text=_(
            "Draw of everything but the accelerators (CPUs, memory, NICs, fans, drives), W: the "
            "server draws this plus its cards' board power"
        ),
    )
    power_note = models.TextField(
        _("power note"),
        blank=True,
        help_text=_(
            "Where the maximum or the base load comes from: published, derived or measured"
        ),
    )
    weight_kg = models.FloatField(
        _("weight (kg)"), null=True, blank=True, help_text=_("Published weight, kg")
    )
    cooling = models.CharField(_("cooling"), max_length=8, choices=ServerCooling.choices)
    airflow = models.CharField(_("airflow"), max_length=14, choices=Airflow.choices)
    network_ports = models.PositiveSmallIntegerField(
        _("fabric ports"), default=0, help_text=_("Compute-fabric ports")
    )
    network_port_gbps = models.FloatField(
        _("port speed (Gbit/s)"), null=True, blank=True, help_text=_("Gbit/s per fabric port")
    )

    class Meta(CatalogItem.Meta):
        verbose_name = _("server platform")
        verbose_name_plural = _("server platforms")
        constraints = [
            *CatalogItem.Meta.constraints,
            positive("accelerator_slots"),
            positive("rack_units"),
            positive("max_power_kw", nullable=True),
            positive("base_power_w", nullable=True),
            models.CheckConstraint(
                condition=Q(max_power_kw__isnull=False) | Q(base_power_w__isnull=False),
                name="serverplatform_power_known",
                violation_error_message=_("Give the published maximum or the base load."),
            ),
            models.CheckConstraint(
                condition=Q(population__in=Population.values),
                name="serverplatform_population_valid",
            ),
            positive("weight_kg", nullable=True),
            positive("network_port_gbps", nullable=True),
        ]

    def get_absolute_url(self) -> str:
        return reverse("catalog:server_detail", kwargs={"slug": self.slug})

    def clean(self) -> None:
        super().clean()
        allowed = set(FormFactor.values)
        if not isinstance(self.form_factors, list) or not self.form_factors:
            raise ValidationError({"form_factors": _("Give at least one form factor.")})
        unknown = [f for f in self.form_factors if f not in allowed]
        if unknown:
            raise ValidationError(
                {"form_factors": _("Unknown form factor(s): %s") % ", ".join(map(str, unknown))}
            )
        if self.fixed_accelerator and self.fixed_accelerator.form_factor not in self.form_factors:
            raise ValidationError(
                {"fixed_accelerator": _("Its form factor does not fit this server.")}
            )
        self._clean_accepts()

    def _clean_accepts(self) -> None:
        if not isinstance(self.accepts, list) or not self.accepts:
            raise ValidationError({"accepts": _("Name at least one accelerator it takes.")})
        known = set(
            Accelerator.objects.filter(slug__in=self.accepts).values_list("slug", flat=True)
        )
        unknown = [slug for slug in self.accepts if slug not in known]
        if unknown:
            raise ValidationError(
                {"accepts": _("Unknown accelerator(s): %s") % ", ".join(map(str, unknown))}
            )
        if self.fixed_accelerator and self.fixed_accelerator.slug not in self.accepts:
            raise ValidationError({"accepts": _("It must list its fixed accelerator.")})

    @property
    def fabric_gbps(self) -> float:
        """Total compute-fabric bandwidth out of the box, Gbit/s."""
        return self.network_ports * (self.network_port_gbps or 0)

    def takes(self, accelerator) -> bool:
        """Whether the vendor sells or validates this server with `accelerator`."""
        return accelerator.slug in self.accepts

    @property
    def whole_systems_only(self) -> bool:
        return self.population == Population.FIXED
