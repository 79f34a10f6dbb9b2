"""Probe measurements of real cards, and the factors derived from them."""

from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from planner.models.base import CreatedRecord
from planner.models.fields import name_rules, optional_link


class CalibrationProfile(CreatedRecord):
    """A probe's measurements of one real card, and the factors derived from them that an
    estimate or a plan can use instead of the engine's defaults."""

    detail_view = "planner:calibration_detail"

    name = models.CharField(_("name"), max_length=200)
    accelerator = optional_link(
        "catalog.Accelerator",
        _("accelerator"),
        related_name="calibrations",
        help_text=_("The catalog card the probe's device matched; empty when none did"),
    )
    device_name = models.CharField(_("device"), max_length=200, help_text=_("As the probe read it"))
    probe = models.JSONField(_("probe report"))
    derived = models.JSONField(_("derived factors"), null=True, blank=True)
    team = optional_link("accounts.Team", related_name="calibrations")

    class Meta(CreatedRecord.Meta):
        verbose_name = _("calibration profile")
        verbose_name_plural = _("calibration profiles")
        constraints = [
            *name_rules("calibrationprofile"),
            models.CheckConstraint(
                condition=Q(accelerator__isnull=True) | Q(derived__isnull=False),
                name="calibrationprofile_matched_has_factors",
            ),
        ]

    def __str__(self) -> str:
        return self.name
