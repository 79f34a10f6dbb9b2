"""Probe measurements of real cards, and the factors derived from them."""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.urls import reverse
from django.utils.translation import gettext_lazy as _


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
