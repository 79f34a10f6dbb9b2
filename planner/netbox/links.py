"""The team's NetBox links: which row a NetBox object became, found by NetBox's id or names."""

from __future__ import annotations

from typing import Any

from django.db.models import Model, QuerySet

from planner.models import NetboxLink
from planner.netbox.formats import Record


class Links:
    """The links of one team, read once per import and written as the import goes."""

    def __init__(self, team) -> None:
        self.team = team
        self.by_id: dict[tuple[str, int], NetboxLink] = {}
        self.by_key: dict[tuple[str, str], NetboxLink] = {}
        for link in NetboxLink.objects.filter(team=team):
            self._index(link)

    def _index(self, link: NetboxLink) -> None:
        if link.netbox_id is not None:
            self.by_id[(link.kind, link.netbox_id)] = link
        self.by_key[(link.kind, link.natural_key)] = link

    def find(self, kind: str, record: Record, key: str) -> NetboxLink | None:
        netbox_id = record.values.get("id")
        if netbox_id is not None and (kind, netbox_id) in self.by_id:
            return self.by_id[(kind, netbox_id)]
        return self.by_key.get((kind, key))

    def row(self, kind: str, record: Record, key: str, rows: QuerySet) -> Any:
        """The row the link names, when it is still one of `rows` (what the team may change)."""
        link = self.find(kind, record, key)
        if link is None:
            return None
        return rows.filter(pk=link.object_id).first()

    def keep(self, kind: str, record: Record, key: str, row: Model) -> None:
        """Remember that `record` became `row`; written only when something about it changed."""
        netbox_id = record.values.get("id")
        seen = {k: v for k, v in record.values.items() if k != "power_ports"}
        link = self.find(kind, record, key)
        other = self.by_key.get((kind, key))
        if other is not None and other is not link:
            # The names moved to another NetBox object: the newer one holds them now.
            other.delete()
            del self.by_key[(kind, key)]
        if link is None:
            link = NetboxLink(team=self.team, kind=kind)
        wanted = {
            "natural_key": key,
            "object_id": row.pk,
            "netbox_id": netbox_id if netbox_id is not None else link.netbox_id,
            "seen": seen,
        }
        if link.pk is not None and all(getattr(link, k) == v for k, v in wanted.items()):
            return
        if link.pk is not None:
            self.by_key.pop((kind, link.natural_key), None)
        for name, value in wanted.items():
            setattr(link, name, value)
        link.full_clean()
        link.save()
        self._index(link)
