"""Heavy runs queued to a worker, one row per question."""

from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from planner.choices import (
    FINISHED_STATUSES,
    SimulationKind,
    SimulationStatus,
)
from planner.models.base import CreatedRecord
from planner.models.fields import optional_text, team_link


class Simulation(CreatedRecord):
    """A heavy run queued to a worker: its question, where it stands, and its answer.

    One row per distinct question and team (`inputs_hash` covers both): asking again within a
    team returns the same row, and the result is written once; another team asking the same
    question gets a row of its own, so one team's cancel never stops another's run. A row with
    no team (started from the command line) is seen by admins only. The row survives a worker
    that dies mid-run; the re-delivered task picks it up again."""

    detail_view = "planner:simulation_detail"

    kind = models.CharField(_("kind"), max_length=10, choices=SimulationKind.choices)
    inputs = models.JSONField(_("inputs"))
    inputs_hash = models.CharField(
        _("inputs hash"),
        max_length=64,
        unique=True,
        help_text=_("SHA-256 of the question and the team that asked it"),
    )
    team = team_link("simulations", optional=True)
    status = models.CharField(
        _("status"),
        max_length=10,
        choices=SimulationStatus.choices,
        default=SimulationStatus.QUEUED,
    )
    progress = models.FloatField(_("progress"), default=0.0, help_text=_("0 to 1"))
    result = models.JSONField(_("result"), null=True, blank=True)
    error = models.TextField(_("error"), blank=True)
    task_id = optional_text(_("task id"), 64)
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
    queued_at = models.DateTimeField(_("queued"), null=True, blank=True)
    started_at = models.DateTimeField(_("started"), null=True, blank=True)
    finished_at = models.DateTimeField(_("finished"), null=True, blank=True)

    class Meta(CreatedRecord.Meta):
        verbose_name = _("simulation")
        verbose_name_plural = _("simulations")
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
