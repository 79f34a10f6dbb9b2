"""Fields and rules that several of the planner's tables declare alike."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _


def optional_link(
    to: str,
    verbose_name: Any = None,
    *,
    related_name: str,
    on_delete: Any = models.PROTECT,
    **options: Any,
) -> models.ForeignKey:
    """A link a row may lack (a price's server, a plan's site). PROTECT by default: a catalog
    row or team that rows still name is not deleted from under them."""
    return models.ForeignKey(
        to,
        verbose_name=verbose_name,
        null=True,
        blank=True,
        on_delete=on_delete,
        related_name=related_name,
        **options,
    )


def parent_link(to: Any, verbose_name: Any, *, related_name: str) -> models.ForeignKey:
    """The row this one is part of (a rack's feed, a group's rack): it goes when its parent goes."""
    return models.ForeignKey(
        to, on_delete=models.CASCADE, related_name=related_name, verbose_name=verbose_name
    )


def created_by_field() -> models.ForeignKey:
    """Who created the row; the row stays when that account is deleted."""
    return models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )


def version_field() -> models.PositiveIntegerField:
    """The version of a row edited through planner/versioning.py."""
    return models.PositiveIntegerField(
        _("record version"),
        default=1,
        editable=False,
        help_text=_("Raised by one on every save; an edit names the version it started from"),
    )


def team_link(
    related_name: str, *, optional: bool = False, help_text: Any = ""
) -> models.ForeignKey:
    """The team a row belongs to; a team that still owns rows is not deleted. An `optional`
    one is empty on the rows no team owns (the shipped ones every team reads, say)."""
    if optional:
        return optional_link(
            "accounts.Team", _("team"), related_name=related_name, help_text=help_text
        )
    return models.ForeignKey(
        "accounts.Team",
        on_delete=models.PROTECT,
        related_name=related_name,
        verbose_name=_("team"),
        help_text=help_text,
    )


def reference_key_field(max_length: int, help_text: Any) -> models.CharField:
    """The key of a row of a shipped reference list (catalog/data/...); empty for a team's own."""
    return models.CharField(
        _("reference key"), max_length=max_length, blank=True, editable=False, help_text=help_text
    )


def reference_key_rules(table: str, *, only_where: str) -> list[models.BaseConstraint]:
    """Only the shipped rows (no team) carry a reference key, and no two the same one."""
    return [
        models.CheckConstraint(
            condition=Q(team__isnull=True) | Q(reference_key=""),
            name=f"{table}_reference_key_only_{only_where}",
        ),
        models.UniqueConstraint(
            fields=["reference_key"],
            condition=~Q(reference_key=""),
            name=f"{table}_reference_key_unique",
        ),
    ]


def choice_rule(table: str, field: str, choices: Any) -> models.CheckConstraint:
    """A column of choices (a TextChoices) holds one of them; the rule is "<table>_<field>_known"."""
    return models.CheckConstraint(
        condition=Q(**{f"{field}__in": choices.values}), name=f"{table}_{field}_known"
    )


def version_rule(table: str) -> models.CheckConstraint:
    """A versioned row's version starts at one."""
    return models.CheckConstraint(condition=Q(version__gte=1), name=f"{table}_version_positive")


def name_rules(table: str, *, unique_within: str | None = None) -> list[models.BaseConstraint]:
    """A row's name is never empty and, with `unique_within` ("team", "site"), unique there."""
    rules: list[models.BaseConstraint] = []
    if unique_within:
        rules.append(
            models.UniqueConstraint(
                fields=[unique_within, "name"], name=f"{table}_unique_name_per_{unique_within}"
            )
        )
    rules.append(models.CheckConstraint(condition=~Q(name=""), name=f"{table}_has_name"))
    return rules


def source_field(help_text: Any, **options: Any) -> models.CharField:
    """Where a row's figures or advice come from: a URL, or a reference a person can follow."""
    return models.CharField(_("source"), max_length=500, help_text=help_text, **options)


def optional_text(verbose_name: Any, max_length: int, help_text: Any = "") -> models.CharField:
    """A line of text a row may leave empty (a note, a name the catalog lacks)."""
    return models.CharField(verbose_name, max_length=max_length, blank=True, help_text=help_text)


def read_on_field(**options: Any) -> models.DateField:
    """The day someone last read a row's source; empty when nobody said."""
    return models.DateField(_("source read on"), null=True, blank=True, **options)


@dataclass(frozen=True)
class Figure:
    """A kind of figure rows state (a rack's power in kW, a price's depreciation in years): its
    field, and the range a form takes, `low` to `high`, which the database rule keeps too.
    `above`, where given, is the rule's looser lower bound: a form asks for at least 0.1 kW,
    the database holds any figure above 0."""

    field_class: type[models.Field]
    low: float
    high: float
    above: float | None = None

    def field(self, verbose_name: Any, help_text: Any = "", **options: Any) -> models.Field:
        """The field of a figure every row states."""
        return self.field_class(
            verbose_name,
            validators=[MinValueValidator(self.low), MaxValueValidator(self.high)],
            help_text=help_text,
            **options,
        )

    def optional(self, verbose_name: Any, help_text: Any = "", **options: Any) -> models.Field:
        """The field of a figure a row may leave empty."""
        return self.field(verbose_name, help_text, null=True, blank=True, **options)

    def rule(self, name: str, field: str, *, optional: bool = False) -> models.CheckConstraint:
        """The rule that keeps `field` within the range; an `optional` one may be empty."""
        if self.above is not None:
            bounds = {f"{field}__gt": self.above, f"{field}__lte": self.high}
        else:
            bounds = {f"{field}__gte": self.low, f"{field}__lte": self.high}
        condition = Q(**bounds)
        if optional:
            condition = Q(**{f"{field}__isnull": True}) | condition
        return models.CheckConstraint(condition=condition, name=name)
