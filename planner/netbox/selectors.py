"""Reads of the NetBox links: what of a team's racks NetBox keeps in step."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db.models import Count, Max

from accounts.services import user_team
from planner.choices import NetboxKind
from planner.models import NetboxLink


@dataclass(frozen=True)
class LinkSummary:
    counts: dict[str, int]  # NetboxKind value -> rows linked
    last_import: datetime | None


def netbox_link_summary(*, user) -> LinkSummary:
    """How many of the user's team's rows came from NetBox, by kind, and when last imported."""
    team = user_team(user)
    links = NetboxLink.objects.filter(team=team) if team else NetboxLink.objects.none()
    counts = dict(links.values_list("kind").annotate(n=Count("pk")).values_list("kind", "n"))
    return LinkSummary(
        counts={kind: counts.get(kind, 0) for kind in NetboxKind.values},
        last_import=links.aggregate(last=Max("seen_at"))["last"],
    )
