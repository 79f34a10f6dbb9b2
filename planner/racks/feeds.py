"""Writes to racks' power feeds: each one validated in full, versioned and kept in history."""

from __future__ import annotations

from django.db import transaction

from planner.models import PowerFeed
from planner.versioning import claim_version, save_versioned


@transaction.atomic
def power_feed_save(*, feed: PowerFeed) -> PowerFeed:
    """Create a feed, or change one still at `feed.version`."""
    feed.full_clean()
    save_versioned(feed)
    return feed


@transaction.atomic
def power_feed_delete(*, feed: PowerFeed) -> None:
    claim_version(feed)
    feed.delete()
