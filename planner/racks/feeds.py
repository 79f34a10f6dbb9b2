"""Writes to racks' power feeds: each one validated in full, versioned and kept in history. An
A/B pair is a primary feed and its redundant twin of the same rating, added in one write."""

from __future__ import annotations

import copy

from django.db import transaction

from planner.choices import FeedType
from planner.models import PowerFeed
from planner.versioning import claim_version, save_versioned


def b_side_name(name: str) -> str:
    """The redundant twin's name: "PDU-A" becomes "PDU-B", any other name gets " (B)"."""
    for a_side, b_side in (("-A", "-B"), (" A", " B"), ("-a", "-b"), (" a", " b")):
        if name.endswith(a_side) and len(name) > len(a_side):
            return name[: -len(a_side)] + b_side
    return f"{name[:56]} (B)"


@transaction.atomic
def power_feed_save(*, feed: PowerFeed) -> PowerFeed:
    """Create a feed, or change one still at `feed.version`."""
    feed.full_clean()
    save_versioned(feed)
    return feed


@transaction.atomic
def power_feed_pair_create(*, feed: PowerFeed) -> tuple[PowerFeed, PowerFeed]:
    """An A/B pair: `feed` as the primary (A) side and a redundant (B) twin of the same rating,
    which takes the load when A fails and so adds nothing to the rack's usable power."""
    feed.feed_type = FeedType.PRIMARY
    twin = copy.copy(feed)
    twin.pk, twin.id = None, None
    twin.name, twin.feed_type = b_side_name(feed.name), FeedType.REDUNDANT
    return power_feed_save(feed=feed), power_feed_save(feed=twin)


@transaction.atomic
def power_feed_delete(*, feed: PowerFeed) -> None:
    claim_version(feed)
    feed.delete()
