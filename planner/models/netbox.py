"""Which of a team's rows each NetBox object became, so that importing again is a sync."""

from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _
from simple_history.models import HistoricalRecords

from planner.choices import NetboxKind


class NetboxLink(models.Model):
    """One NetBox object (a site, rack, power feed or device) and the team's row it became:
    matched by NetBox's id when the file carries one, else by its names (`natural_key`). `seen`
    keeps the values NetBox gave the last time, so the history shows what NetBox changed."""

    team = models.ForeignKey(
        "accounts.Team",
        on_delete=models.CASCADE,
        related_name="netbox_links",
        verbose_name=_("team"),
    )
    kind = models.CharField(_("kind"), max_length=12, choices=NetboxKind.choices)
    netbox_id = models.PositiveBigIntegerField(
        _("NetBox id"), null=True, blank=True, help_text=_("Empty when only CSV files named it")
    )
    natural_key = models.CharField(
        _("NetBox names"), max_length=400, help_text=_("Site / location / rack / name")
    )
    object_id = models.PositiveBigIntegerField(_("row"))
    seen = models.JSONField(_("values NetBox gave"), default=dict)
    seen_at = models.DateTimeField(_("last imported"), auto_now=True)
    history = HistoricalRecords()

    class Meta:
        verbose_name = _("NetBox link")
        verbose_name_plural = _("NetBox links")
        ordering = ["team", "kind", "natural_key"]
        constraints = [
            models.UniqueConstraint(
                fields=["team", "kind", "natural_key"], name="netboxlink_unique_names"
            ),
            models.UniqueConstraint(
                fields=["team", "kind", "netbox_id"],
                condition=Q(netbox_id__isnull=False),
                name="netboxlink_unique_id",
            ),
            models.CheckConstraint(condition=~Q(natural_key=""), name="netboxlink_has_names"),
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} {self.natural_key}"
