from django.db import models
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from catalog.choices import FabricKind
from catalog.models.base import CatalogItem, positive


class Fabric(CatalogItem):
    """A scale-out network between servers: InfiniBand, RoCE or plain Ethernet."""

    kind = models.CharField(_("kind"), max_length=12, choices=FabricKind.choices)
    port_gbps = models.FloatField(_("port speed (Gbit/s)"), help_text=_("Gbit/s per port"))
    latency_us = models.FloatField(
        _("latency (µs)"),
        null=True,
        blank=True,
        help_text=_("Port-to-port latency the vendor publishes, microseconds; empty if none"),
    )
    topology = models.CharField(_("typical topology"), max_length=80, blank=True)
    switch_radix = models.PositiveSmallIntegerField(
        _("switch ports"),
        null=True,
        blank=True,
        help_text=_("Ports per switch of the fabric's reference switch; sizes the fat tree"),
    )

    class Meta(CatalogItem.Meta):
        verbose_name = _("fabric")
        verbose_name_plural = _("fabrics")
        constraints = [
            *CatalogItem.Meta.constraints,
            positive("port_gbps"),
            positive("latency_us", nullable=True),
            positive("switch_radix", nullable=True),
        ]

    def get_absolute_url(self) -> str:
        return reverse("catalog:fabric_detail", kwargs={"slug": self.slug})

    @property
    def port_gb_s(self) -> float:
        """Port speed in GB/s (bytes), the unit the engine uses for bandwidth."""
        return self.port_gbps / 8
