"""Reads of the fault guide, a team's fault table and incidents, and the diagnosis of a pasted
text, always through what the user may see: every reader sees the guide; a team sees its own
entries and incidents; another team's are a 404. Admins see every row."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from django.db.models import Count, Q, QuerySet
from django.urls import reverse

from accounts.services import user_team
from planner.choices import FaultLink
from planner.faults.matching import REPEAT_BONUS_CAP, Match, Rule, diagnose
from planner.models import FaultEntry, FaultIncident
from planner.visibility import team_and_shipped_rows, team_rows, team_rows_editable_by

# The most incidents a match lists; the rest are on the entry's page.
INCIDENTS_PER_MATCH = 5
# A pasted text past this many characters is not a log excerpt: ask for the relevant part.
MAX_TEXT_CHARS = 1_000_000
# What a diagnosis may carry to the Estimate page: the job that ran out of memory.
JOB_KEYS = ("task", "model", "accelerator", "count", "seq_len")


def fault_entry_visible_to(user) -> QuerySet[FaultEntry]:
    """The guide and the user's team's own entries; admins see every entry."""
    return team_and_shipped_rows(FaultEntry.objects.select_related("team"), user)


def fault_entry_editable_by(user) -> QuerySet[FaultEntry]:
    """Entries a user may change: planners their own team's, admins any team's. The guide is
    changed in catalog/data/faults, not here."""
    return team_rows_editable_by(FaultEntry.objects.filter(team__isnull=False), user)


def fault_incident_visible_to(user) -> QuerySet[FaultIncident]:
    incidents = FaultIncident.objects.select_related("entry", "site", "accelerator", "team")
    return team_rows(incidents, user)


def fault_incident_editable_by(user) -> QuerySet[FaultIncident]:
    return team_rows_editable_by(FaultIncident.objects.all(), user)


def fault_search(entries: QuerySet[FaultEntry], text: str) -> QuerySet[FaultEntry]:
    """Entries whose title, symptoms, causes, fixes, checks, patterns or Xid codes hold every
    word of `text`, in either language."""
    fields = (
        "title_en",
        "title_zh",
        "symptoms_en",
        "symptoms_zh",
        "causes_en",
        "causes_zh",
        "fixes_en",
        "fixes_zh",
        "checks",
        "patterns",
        "xid_codes",
    )
    for word in text.split():
        condition = Q()
        for field in fields:
            condition |= Q(**{f"{field}__icontains": word})
        entries = entries.filter(condition)
    return entries


@dataclass(frozen=True)
class FaultMatch:
    entry: FaultEntry
    match: Match
    incidents: list[FaultIncident]
    link_url: str | None


@dataclass(frozen=True)
class FaultDiagnosis:
    matches: list[FaultMatch]
    unlisted_xid_codes: list[int]
    lines_read: int


def _link_url(entry: FaultEntry, job: dict[str, Any]) -> str | None:
    if entry.link == FaultLink.ESTIMATE:
        query = {key: job[key] for key in JOB_KEYS if job.get(key) not in (None, "")}
        return reverse("planner:estimate") + (f"?{urlencode(query)}#results" if query else "")
    if entry.link == FaultLink.RACK_THERMAL:
        return reverse("planner:site_list")
    return None


def fault_diagnosis(*, text: str, user, job: dict[str, Any] | None = None) -> FaultDiagnosis:
    """The faults `text` shows, best first, from the guide and the user's team's own entries;
    an entry the team has met ranks higher by its incidents (one point each, up to a cap), and
    each match lists them. `job` (task, model, accelerator, count) is carried to the Estimate
    page for an out-of-memory match."""
    team = user_team(user)
    entries = FaultEntry.objects.filter(
        Q(team__isnull=True) | Q(team=team) if team else Q(team__isnull=True)
    )
    if team is not None:
        entries = entries.annotate(seen=Count("incidents", filter=Q(incidents__team=team)))
    by_key = {str(entry.pk): entry for entry in entries}
    rules = [
        Rule(
            key=key,
            patterns=tuple(entry.pattern_list),
            xid_codes=tuple(entry.xid_list),
            weight=entry.weight,
            bonus=min(getattr(entry, "seen", 0), REPEAT_BONUS_CAP),
        )
        for key, entry in by_key.items()
    ]
    found = diagnose(text, rules)
    matched = [by_key[m.key] for m in found.matches]
    incidents: dict[int, list[FaultIncident]] = {}
    if team is not None and matched:
        rows = FaultIncident.objects.filter(team=team, entry__in=matched).select_related("site")
        for incident in rows.order_by("-happened_on", "-pk"):
            incidents.setdefault(incident.entry_id, []).append(incident)
    return FaultDiagnosis(
        matches=[
            FaultMatch(
                entry=by_key[m.key],
                match=m,
                incidents=incidents.get(by_key[m.key].pk, [])[:INCIDENTS_PER_MATCH],
                link_url=_link_url(by_key[m.key], job or {}),
            )
            for m in found.matches
        ],
        unlisted_xid_codes=list(found.unlisted_xid_codes),
        lines_read=found.lines_read,
    )


def diagnosis_json(diagnosis: FaultDiagnosis, *, absolute=lambda url: url) -> dict[str, Any]:
    """The diagnosis as the command and the API answer it: `{"matches": [...]}`, in the
    reader's language."""
    return {
        "matches": [_match_json(found, absolute) for found in diagnosis.matches],
        "unlisted_xid_codes": diagnosis.unlisted_xid_codes,
        "lines_read": diagnosis.lines_read,
    }


def _match_json(found: FaultMatch, absolute) -> dict[str, Any]:
    entry, match = found.entry, found.match
    return {
        "entry": entry.pk,
        "key": entry.reference_key or None,
        "title": entry.title,
        "category": entry.category,
        "whose": "guide" if entry.is_reference else "team",
        "score": match.score,
        "xid_code": match.xid_code,
        "evidence": {"line_number": match.evidence.line_number, "line": match.evidence.line},
        "lines_matched": match.lines_matched,
        "symptoms": entry.symptoms,
        "causes": entry.cause_list,
        "checks": entry.check_list,
        "fixes": entry.fix_list,
        "source": entry.source or None,
        "read_on": entry.read_on.isoformat() if entry.read_on else None,
        "compute": {"kind": entry.link, "url": absolute(found.link_url)}
        if found.link_url
        else None,
        "incidents": [
            {
                "id": incident.pk,
                "happened_on": incident.happened_on.isoformat(),
                "what_happened": incident.what_happened,
                "fix": incident.fix,
                "resolved": incident.resolved,
                "site": incident.site.name if incident.site else None,
                "hardware": incident.hardware,
            }
            for incident in found.incidents
        ],
        "url": absolute(entry.get_absolute_url()),
    }
