"""What goes wrong with accelerators and what to do about it: the fault guide and a team's own
table of faults and incidents.

A fault entry says which log lines betray a fault (regular expressions, one per line, and
NVIDIA Xid codes), what it looks like, its likely causes, the commands that check it and what
fixes it. The guide's entries are shipped in catalog/data/faults (English and Chinese, each
with its source) and every team reads them; a team adds its own entries and records incidents
(what happened, where, on what, what fixed it), which only that team sees. The seed articles'
advice: keep a fault table, so that you stop starting from zero each time."""

import re

from django.core.exceptions import ValidationError
from django.core.validators import RegexValidator
from django.db import models
from django.db.models import Q
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _

from planner.choices import FaultCategory, FaultLink
from planner.models.base import Sourced, TeamOrReference, VersionedRecord
from planner.models.fields import (
    Figure,
    choice_rule,
    optional_link,
    optional_text,
    read_on_field,
    reference_key_field,
    reference_key_rules,
    source_field,
    team_link,
    version_rule,
)

# A pattern is searched in every line of a pasted log: a long one is a mistake, and a short
# bound keeps one team's pattern from slowing every diagnosis of that team.
MAX_PATTERN_CHARS = 300
MAX_PATTERNS = 20
# How telling a match of the entry is, 1-100: 90 an exact error code or message, 60 a message
# a few faults share, 30 a generic symptom.
DEFAULT_WEIGHT = 60
WEIGHT = Figure(models.PositiveSmallIntegerField, 1, 100)
# NVIDIA numbers Xid codes from 1; the catalog for Ampere and newer runs past 150.
MAX_XID = 999
XID_CODES_VALIDATOR = RegexValidator(
    r"^\d{1,3}( \d{1,3})*$", _("Xid codes are whole numbers separated by spaces, e.g. “63 64”.")
)
# Texts a person reads in their language: the `_en` and `_zh` column of each.
TRANSLATED = ("title", "symptoms", "causes", "fixes")


def pattern_errors(patterns: str) -> list[str]:
    """What is wrong with a block of patterns, one message per bad line (none when all compile)."""
    lines = [line for line in patterns.splitlines() if line.strip()]
    errors = []
    if len(lines) > MAX_PATTERNS:
        errors.append(_("At most %(count)d patterns.") % {"count": MAX_PATTERNS})
    for number, line in enumerate(lines, start=1):
        if len(line) > MAX_PATTERN_CHARS:
            errors.append(
                _("Pattern %(line)d is longer than %(limit)d characters.")
                % {"line": number, "limit": MAX_PATTERN_CHARS}
            )
            continue
        try:
            re.compile(line)
        except re.error as exc:
            errors.append(
                _("Pattern %(line)d is not a regular expression: %(error)s")
                % {"line": number, "error": exc}
            )
    return errors


def lines_of(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip()]


class FaultEntry(VersionedRecord, Sourced, TeamOrReference):
    """One fault: the lines that betray it, its symptoms, likely causes, checks and fixes. With
    no team, an entry of the shipped guide, which every team reads; with one, that team's own."""

    detail_view = "planner:fault_detail"

    STATED_FIELDS = (
        "title_en",
        "title_zh",
        "category",
        "xid_codes",
        "patterns",
        "weight",
        "symptoms_en",
        "symptoms_zh",
        "causes_en",
        "causes_zh",
        "checks",
        "fixes_en",
        "fixes_zh",
        "link",
        "source",
        "read_on",
    )

    title_en = optional_text(_("title (English)"), 200)
    title_zh = optional_text(_("title (Chinese)"), 200)
    category = models.CharField(_("category"), max_length=16, choices=FaultCategory.choices)
    xid_codes = models.CharField(
        _("Xid codes"),
        max_length=100,
        blank=True,
        validators=[XID_CODES_VALIDATOR],
        help_text=_("NVIDIA Xid codes that name this fault, separated by spaces"),
    )
    patterns = models.TextField(
        _("log patterns"),
        blank=True,
        help_text=_("Regular expressions (Python syntax), one per line, searched in each log line"),
    )
    weight = WEIGHT.field(
        _("weight"),
        _("How telling a match is, 1-100: 90 an exact message, 30 a generic symptom"),
        default=DEFAULT_WEIGHT,
    )
    symptoms_en = models.TextField(_("symptoms (English)"), blank=True)
    symptoms_zh = models.TextField(_("symptoms (Chinese)"), blank=True)
    causes_en = models.TextField(
        _("likely causes (English)"), blank=True, help_text=_("One per line")
    )
    causes_zh = models.TextField(
        _("likely causes (Chinese)"), blank=True, help_text=_("One per line")
    )
    checks = models.TextField(
        _("checks"), blank=True, help_text=_("Commands to run, one per line, e.g. nvidia-smi -q")
    )
    fixes_en = models.TextField(_("fixes (English)"), blank=True, help_text=_("One per line"))
    fixes_zh = models.TextField(_("fixes (Chinese)"), blank=True, help_text=_("One per line"))
    link = models.CharField(
        _("flopfit can compute"), max_length=16, choices=FaultLink.choices, blank=True
    )
    source = source_field(
        _("A URL to the vendor's documentation, or where the team learnt it"), blank=True
    )
    read_on = read_on_field()
    from_seed = models.BooleanField(
        _("in the seed articles' fault tables"), default=False, editable=False
    )
    team = team_link(
        "fault_entries",
        optional=True,
        help_text=_("Empty for the shipped guide, which every team reads"),
    )
    reference_key = reference_key_field(
        80, _("The entry's slug in catalog/data/faults; empty for a team's own entries")
    )

    class Meta:
        verbose_name = _("fault entry")
        verbose_name_plural = _("fault entries")
        ordering = ["category", "reference_key", "pk"]
        constraints = [
            choice_rule("faultentry", "category", FaultCategory),
            models.CheckConstraint(
                condition=~Q(title_en="") | ~Q(title_zh=""), name="faultentry_has_title"
            ),
            WEIGHT.rule("faultentry_weight_1_100", "weight"),
            models.CheckConstraint(
                condition=Q(team__isnull=False)
                | (~Q(reference_key="") & ~Q(source="") & ~Q(title_en="") & ~Q(title_zh="")),
                name="faultentry_guide_has_key_source_and_both_titles",
            ),
            *reference_key_rules("faultentry", only_where="in_guide"),
            version_rule("faultentry"),
        ]

    def __str__(self) -> str:
        return self.title

    def _in_language(self, name: str) -> str:
        """The text in the reader's language, or in the other one where only that is given."""
        chinese = (get_language() or "en").lower().startswith("zh")
        first, second = ("zh", "en") if chinese else ("en", "zh")
        return getattr(self, f"{name}_{first}") or getattr(self, f"{name}_{second}")

    @property
    def title(self) -> str:
        return self._in_language("title")

    @property
    def symptoms(self) -> str:
        return self._in_language("symptoms")

    @property
    def cause_list(self) -> list[str]:
        return lines_of(self._in_language("causes"))

    @property
    def fix_list(self) -> list[str]:
        return lines_of(self._in_language("fixes"))

    @property
    def check_list(self) -> list[str]:
        return lines_of(self.checks)

    @property
    def pattern_list(self) -> list[str]:
        return lines_of(self.patterns)

    @property
    def xid_list(self) -> list[int]:
        return [int(code) for code in self.xid_codes.split()]

    def clean(self) -> None:
        super().clean()
        errors: dict[str, object] = {}
        if not (self.title_en.strip() or self.title_zh.strip()):
            errors["title_en"] = _("Give the entry a title, in English or Chinese.")
        if not self.patterns.strip() and not self.xid_codes.strip():
            errors["patterns"] = _(
                "Give at least one log pattern or Xid code, or diagnoses will never find it."
            )
        bad = pattern_errors(self.patterns)
        if bad:
            errors["patterns"] = bad
        if any(int(code) > MAX_XID for code in self.xid_codes.split() if code.isdigit()):
            errors["xid_codes"] = _("Xid codes run from 1 to %(max)d.") % {"max": MAX_XID}
        if errors:
            raise ValidationError(errors)


class FaultIncident(VersionedRecord):
    """A fault a team met: when, where, on what hardware, what was seen and what fixed it. Kept
    with its history; only the team sees it."""

    detail_view = "planner:fault_incident_detail"

    STATED_FIELDS = (
        "entry",
        "happened_on",
        "site",
        "accelerator",
        "hardware",
        "what_happened",
        "evidence",
        "fix",
        "resolved",
    )

    team = team_link("fault_incidents")
    entry = optional_link(
        FaultEntry,
        _("fault"),
        related_name="incidents",
        on_delete=models.SET_NULL,
        help_text=_("The guide's or your team's entry this incident was"),
    )
    happened_on = models.DateField(_("happened on"))
    site = optional_link(
        "planner.Site", _("site"), related_name="fault_incidents", on_delete=models.SET_NULL
    )
    accelerator = optional_link(
        "catalog.Accelerator",
        _("accelerator"),
        related_name="fault_incidents",
        on_delete=models.SET_NULL,
    )
    hardware = optional_text(
        _("hardware"), 200, _("Server, node, slot or serial, e.g. “DGX H100 node gpu-17, GPU 3”")
    )
    what_happened = models.TextField(_("what happened"))
    evidence = models.TextField(
        _("evidence"), blank=True, help_text=_("The log lines that showed it")
    )
    fix = models.TextField(_("what fixed it"), blank=True)
    resolved = models.BooleanField(_("resolved"), default=False)

    class Meta:
        verbose_name = _("fault incident")
        verbose_name_plural = _("fault incidents")
        ordering = ["-happened_on", "-pk"]
        indexes = [models.Index(fields=["team", "entry"], name="faultincident_team_entry_idx")]
        constraints = [
            models.CheckConstraint(
                condition=~Q(what_happened=""), name="faultincident_says_what_happened"
            ),
            version_rule("faultincident"),
        ]

    def __str__(self) -> str:
        first = self.what_happened.strip().splitlines()[0] if self.what_happened.strip() else ""
        return f"{self.happened_on:%Y-%m-%d} {first[:60]}"

    def clean(self) -> None:
        super().clean()
        errors = {}
        if self.entry_id and self.entry.team_id not in (None, self.team_id):
            errors["entry"] = _("Choose an entry of the guide or of your team.")
        if self.site_id and self.site.team_id != self.team_id:
            errors["site"] = _("Choose one of your team's sites.")
        if errors:
            raise ValidationError(errors)
