"""What an import asks beside its files, and what it did (or, as a dry run, would do)."""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from decimal import Decimal
from typing import Any

from planner.choices import RackCooling
from planner.netbox.formats import Where

CREATED, UPDATED, UNCHANGED, SKIPPED = "created", "updated", "unchanged", "skipped"


@dataclass(frozen=True)
class ImportOptions:
    """`site`: only that NetBox site's objects. The rest is what NetBox does not keep: a new
    site's PUE and electricity price, and a new rack group's cooling per rack (else its site's,
    else its power), load per rack (where NetBox states no max_weight) and power per rack
    (where its racks have no feeds)."""

    site: str = ""
    pue: float | None = None
    electricity_price_per_kwh: Decimal | None = None
    currency: str = ""
    cooling_kw: float | None = None
    cooling: str = RackCooling.ROOM_AIR
    max_kg: float | None = None
    power_kw: float | None = None

    @classmethod
    def of(cls, values: Mapping[str, Any]) -> ImportOptions:
        """The options among `values` (a form's cleaned data, a command's options); a price
        as text becomes a Decimal."""
        chosen = {f.name: values[f.name] for f in fields(cls) if values.get(f.name) is not None}
        price = chosen.get("electricity_price_per_kwh")
        if isinstance(price, str):
            chosen["electricity_price_per_kwh"] = Decimal(price)
        return cls(**chosen)


@dataclass
class Change:
    """One of our rows and what the import does to it, with the NetBox record it came from."""

    kind: str  # site, rack_group, rack, power_feed, equipment
    name: str
    action: str  # created, updated, unchanged, skipped
    fields: list[tuple[str, Any, Any]] = field(default_factory=list)  # (field, old, new)
    where: Where | None = None
    note: str = ""

    def as_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "name": self.name,
            "action": self.action,
            "changes": [{"field": f, "old": old, "new": new} for f, old, new in self.fields],
            "source": str(self.where) if self.where else "",
            "note": self.note,
        }


@dataclass(frozen=True)
class RackPower:
    site: str
    rack_group: str
    rack: str
    usable_power_kw: float
    power_from: str  # feeds, rack or group (planner.racks.capacity.RackLimits)


@dataclass
class ImportResult:
    dry_run: bool
    changes: list[Change] = field(default_factory=list)
    racks: list[RackPower] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def counts(self) -> dict[str, int]:
        counted = Counter(change.action for change in self.changes)
        return {action: counted[action] for action in (CREATED, UPDATED, UNCHANGED, SKIPPED)}

    @property
    def writes(self) -> bool:
        return any(c.action in (CREATED, UPDATED) for c in self.changes)

    def as_json(self) -> dict[str, Any]:
        return {
            "dry_run": self.dry_run,
            "counts": self.counts,
            "changes": [change.as_json() for change in self.changes],
            "racks": [
                {
                    "site": r.site,
                    "rack_group": r.rack_group,
                    "rack": r.rack,
                    "usable_power_kw": round(r.usable_power_kw, 3),
                    "power_from": r.power_from,
                }
                for r in self.racks
            ],
            "notes": self.notes,
        }

    def fingerprint(self) -> str:
        """What the import writes, as a digest: a preview and the import it confirms must agree."""
        writes = [c.as_json() for c in self.changes if c.action in (CREATED, UPDATED)]
        for write in writes:
            write.pop("source")
            write.pop("note")  # in the reader's language
        text = json.dumps(writes, sort_keys=True, default=str)
        return hashlib.sha256(text.encode()).hexdigest()
