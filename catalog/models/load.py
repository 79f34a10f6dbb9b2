from django.db import models
from django.utils.translation import gettext_lazy as _

from catalog.choices import LoadStatus


class CatalogLoad(models.Model):
    """One run of the curated-data loader: when, from which files, and what it changed."""

    started_at = models.DateTimeField(_("started"))
    finished_at = models.DateTimeField(_("finished"))
    status = models.CharField(_("status"), max_length=10, choices=LoadStatus.choices)
    data_digest = models.CharField(
        _("data digest"), max_length=64, help_text=_("SHA-256 over the data files read")
    )
    counts = models.JSONField(
        _("counts"), default=dict, help_text=_("created/updated/unchanged per item kind")
    )
    error = models.TextField(_("error"), blank=True)

    class Meta:
        verbose_name = _("catalog load")
        verbose_name_plural = _("catalog loads")
        ordering = ["-started_at"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(finished_at__gte=models.F("started_at")),
                name="catalogload_finishes_after_start",
            ),
            models.CheckConstraint(
                condition=models.Q(status=LoadStatus.SUCCEEDED, error="")
                | models.Q(status=LoadStatus.FAILED) & ~models.Q(error=""),
                name="catalogload_error_iff_failed",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.started_at:%Y-%m-%d %H:%M} {self.status}"

    @property
    def totals(self) -> dict[str, int]:
        out = {"created": 0, "updated": 0, "unchanged": 0}
        for kind_counts in self.counts.values():
            for key in out:
                out[key] += kind_counts.get(key, 0)
        return out
