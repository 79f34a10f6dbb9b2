"""Plans and the workloads they are made for."""

from django.db import models
from django.db.models import Q
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from catalog.choices import Currency
from planner.models.base import StampedRecord
from planner.models.fields import name_rules, optional_link, team_link


class Plan(StampedRecord):
    """A purchase question: a workload, a site (or none), a budget and the builds allowed; its
    ranking is computed once and kept, since weights only re-order it."""

    detail_view = "planner:plan_detail"

    name = models.CharField(_("name"), max_length=200)
    team = team_link("plans")
    site = optional_link("planner.Site", _("site"), related_name="plans", on_delete=models.SET_NULL)
    workload = optional_link(
        "Workload",
        _("workload"),
        related_name="plans",
        on_delete=models.SET_NULL,
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
    ranked_at = models.DateTimeField(
        _("ranked"),
        null=True,
        blank=True,
        help_text=_("When the ranking was computed; the site's changes after it are not in it"),
    )
    serving_check = optional_link(
        "Simulation",
        _("serving check"),
        related_name="+",
        on_delete=models.SET_NULL,
        help_text=_("The sweep that simulates the best builds at the plan's load and SLOs"),
    )
    serving_check_builds = models.JSONField(
        _("builds checked"),
        default=list,
        blank=True,
        help_text=_("[accelerator, server, count] of each build the check simulates, in order"),
    )

    class Meta(StampedRecord.Meta):
        verbose_name = _("plan")
        verbose_name_plural = _("plans")
        constraints = name_rules("plan")

    def __str__(self) -> str:
        return self.name


class Workload(StampedRecord):
    """A job a team plans hardware for: the estimate question without accelerator and count,
    kept with the targets the plan checks (deadline, requests per second, latency).

    `spec` is a fragment of the recommend question (planner.plans): `{"workload": {...}}` plus
    the top-level targets, so a plan's question is `{**workload.spec, "budget": ..., ...}`."""

    name = models.CharField(_("name"), max_length=200)
    team = team_link("workloads")
    spec = models.JSONField(
        _("specification"),
        help_text=_(
            '{"workload": the estimate question without accelerator and count, plus '
            "deadline_days, target_rps, ttft_ms and tpot_ms (ms) where set}"
        ),
    )

    class Meta:
        verbose_name = _("workload")
        verbose_name_plural = _("workloads")
        ordering = ["name"]
        constraints = [
            *name_rules("workload", unique_within="team"),
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
