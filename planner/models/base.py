"""Abstract tables the planner's rows build on: who made a row and when, the versioned rows
edited through planner/versioning.py and kept with their history, rows that cite a source, and
rows of a reference list shipped to every team beside each team's own."""

from django.db import models
from django.urls import reverse
from django.utils.translation import gettext_lazy as _
from simple_history.models import HistoricalRecords

from planner.models.fields import created_by_field, version_field

# A source that starts so is a link; anything else (a quote's reference) is said as written.
URL_SCHEMES = ("http://", "https://")


class CreatedRecord(models.Model):
    """A row that remembers who created it and when, listed newest first unless its Meta says
    otherwise, with a page of its own named by `detail_view`."""

    detail_view: str  # the URL name of the row's page, e.g. "planner:plan_detail"

    created_by = created_by_field()
    created_at = models.DateTimeField(_("created"), auto_now_add=True)

    class Meta:
        abstract = True
        ordering = ["-created_at"]

    def get_absolute_url(self) -> str:
        return reverse(self.detail_view, kwargs={"pk": self.pk})


class StampedRecord(CreatedRecord):
    """A row that also remembers when it last changed."""

    updated_at = models.DateTimeField(_("updated"), auto_now=True)

    class Meta(CreatedRecord.Meta):
        abstract = True


class VersionedRow(models.Model):
    """A row edited with optimistic locking (an edit names the version it started from) and kept
    with its history; the version itself is bookkeeping for concurrent edits, not history."""

    version = version_field()
    history = HistoricalRecords(excluded_fields=["version"], inherit=True)

    class Meta:
        abstract = True


class VersionedRecord(StampedRecord, VersionedRow):
    """A versioned row that also remembers who made it and when it changed."""

    class Meta(StampedRecord.Meta):
        abstract = True


class Sourced(models.Model):
    """A row that says where its figures or advice come from, in `source`: a link, or a
    reference a person can follow ("quote from <vendor>, ref <number>")."""

    source: str

    class Meta:
        abstract = True

    @property
    def source_url(self) -> str | None:
        """The source when it is a link; a quote reference is not."""
        return self.source if self.source.startswith(URL_SCHEMES) else None


class TeamOrReference(models.Model):
    """A row a team owns or, with no team, a row of a reference list flopfit ships in
    catalog/data (the fault guide, the reference prices), which every team reads."""

    team_id: int | None

    class Meta:
        abstract = True

    @property
    def is_reference(self) -> bool:
        return self.team_id is None
