from django.core.exceptions import ValidationError
from django.db import models
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from catalog.choices import Airflow, FormFactor, ServerCooling, Topology
from catalog.models.base import CatalogItem, Priced, non_negative, positive


class ServerPlatform(CatalogItem, Priced):
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
    price = models.DecimalField(_("price"), max_digits=12, decimal_places=2, null=True, blank=True)

    class Meta(CatalogItem.Meta):
        verbose_name = _("server platform")
        verbose_name_plural = _("server platforms")
        constraints = [
            *CatalogItem.Meta.constraints,
            positive("accelerator_slots"),
            positive("rack_units"),
            positive("max_power_kw", nullable=True),
            positive("weight_kg", nullable=True),
            positive("network_port_gbps", nullable=True),
            non_negative("price"),
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

    @property
    def fabric_gbps(self) -> float:
        """Total compute-fabric bandwidth out of the box, Gbit/s."""
        return self.network_ports * (self.network_port_gbps or 0)

    def accepts(self, accelerator) -> bool:
        if self.fixed_accelerator_id is not None:
            return self.fixed_accelerator_id == accelerator.pk
        return accelerator.form_factor in self.form_factors
