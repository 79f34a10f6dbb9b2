"""A build's purchase list: what to order (complete systems, or cards and servers; NICs, switch
ports, cables and transceivers; racks), how many, at which unit price, and where each price
comes from. Read from the cost lines the plan stored; nothing is priced again here."""

from __future__ import annotations

import csv
from typing import IO, Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from catalog.models import Fabric
from planner.choices import NETWORK_ITEMS
from planner.models import Plan

ITEM_LABELS = {
    "system": gettext_lazy("Complete system"),
    "accelerator": gettext_lazy("Accelerator"),
    "server": gettext_lazy("Server"),
    "nic": gettext_lazy("Network card (NIC port)"),
    "switch_port": gettext_lazy("Switch port"),
    "cable": gettext_lazy("Cable"),
    "transceiver": gettext_lazy("Transceiver"),
    "rack": gettext_lazy("Rack"),
}
ORIGIN_LABELS = {
    "team": gettext_lazy("your team's quote"),
    "reference": gettext_lazy("reference list"),
    "question": gettext_lazy("given in the question"),
    "missing": gettext_lazy("no price"),
}
# The export's columns: the key each row holds, and its header.
COLUMNS = (
    ("item_label", gettext_lazy("Item")),
    ("description", gettext_lazy("Description")),
    ("name", gettext_lazy("Catalog slug")),
    ("quantity", gettext_lazy("Quantity")),
    ("unit", gettext_lazy("Unit price")),
    ("amount", gettext_lazy("Amount")),
    ("currency", gettext_lazy("Currency")),
    ("own_unit", gettext_lazy("Unit price as quoted")),
    ("own_currency", gettext_lazy("Quoted currency")),
    ("origin_label", gettext_lazy("Price from")),
    ("source", gettext_lazy("Price source")),
    ("price_date", gettext_lazy("Price date")),
    ("price_id", gettext_lazy("Price id")),
)


def _fabric_names(lines: list[dict[str, Any]]) -> dict[str, str]:
    slugs = {line["name"] for line in lines if line["item"] in NETWORK_ITEMS}
    return dict(Fabric.objects.filter(slug__in=slugs).values_list("slug", "name"))


def _description(
    line: dict[str, Any], candidate: dict[str, Any], names: dict, fabrics: dict[str, str]
) -> str:
    card = names["accelerator"].get(candidate["accelerator"], candidate["accelerator"])
    server = names["server"].get(candidate["server"], candidate["server"])
    item = line["item"]
    if item == "system":
        per_node = candidate["count"] // max(candidate["nodes"], 1)
        return f"{server} ({per_node} \u00d7 {card})"
    if item == "accelerator":
        return card
    if item == "server":
        return server
    if item in NETWORK_ITEMS:
        fabric = fabrics.get(line["name"])
        # Without a fabric named, the build talks over its servers' own NIC ports.
        return fabric or _("the servers' own network ports")
    return str(ITEM_LABELS.get(item, item))


def purchase_rows(
    plan: Plan, candidate: dict[str, Any], names: dict[str, dict[str, str]]
) -> list[dict[str, Any]]:
    """One row per cost line of the build, in the plan's currency, each naming its price."""
    lines = (candidate.get("cost") or {}).get("lines") or []
    fabrics = _fabric_names(lines)
    rows = []
    for line in lines:
        origin = line.get("origin") or "missing"
        rows.append(
            {
                "item": line["item"],
                "item_label": str(ITEM_LABELS.get(line["item"], line["item"])),
                "description": _description(line, candidate, names, fabrics),
                "name": line["name"],
                "quantity": line["quantity"],
                "unit": line.get("unit"),
                "amount": line.get("amount"),
                "currency": plan.currency,
                "own_unit": line.get("own_unit"),
                "own_currency": line.get("currency") or "",
                "origin": origin,
                "origin_label": str(ORIGIN_LABELS.get(origin, origin)),
                "source": line.get("source") or "",
                "price_date": line.get("price_date") or "",
                "price_id": line.get("price_id"),
                "provider": line.get("provider") or "",
                "stale": bool(line.get("stale")),
                "expired": bool(line.get("expired")),
            }
        )
    return rows


def purchase_total(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The sum of the priced lines, and the items left without a price."""
    priced = [r["amount"] for r in rows if r["amount"] is not None]
    return {
        "amount": round(sum(priced), 2) if priced else None,
        "missing": [r["item_label"] for r in rows if r["amount"] is None],
    }


def _cell(value: Any) -> Any:
    # Plain numbers with a dot decimal and no grouping: spreadsheets read them as numbers in
    # both our languages, whose decimal mark is the dot.
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return str(value) if not isinstance(value, int | float) else value


def write_purchase_csv(out: IO[str], rows: list[dict[str, Any]]) -> None:
    """The purchase list as CSV, headers in the reader's language."""
    writer = csv.writer(out)
    writer.writerow([str(header) for _key, header in COLUMNS])
    for row in rows:
        writer.writerow([_cell(row[key]) for key, _header in COLUMNS])
