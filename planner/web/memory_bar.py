"""The stacked bar of one device's memory, as the estimate page and a plan's candidate page
show it (templates/htmx/memory_bar.html draws it)."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext_lazy as _

# The parts of one device's memory, in the order they are stacked in the bar.
MEMORY_PARTS = (
    ("weights_gib", _("Weights"), "weights"),
    ("gradients_gib", _("Gradients"), "gradients"),
    ("optimizer_gib", _("Optimizer states"), "optimizer"),
    ("activations_gib", _("Activations"), "activations"),
    ("kv_cache_gib", _("KV cache"), "kv-cache"),
    ("overhead_gib", _("Overhead"), "overhead"),
)
# Past this share of the bar's track the capacity caption fits before (left of) its marker.
CAPTION_ROOM = 0.3


def _percent(part: float, whole: float) -> str:
    """A CSS width: always a dot decimal, whatever the visitor's locale."""
    share = 100 * part / whole if whole > 0 else 0.0
    return f"{min(max(share, 0.0), 100.0):.2f}%"


def memory_bar(memory: dict[str, Any]) -> dict[str, Any]:
    """The stacked bar of one device's memory. The track spans the larger of the total and the
    capacity, so the capacity marker always lands on it; the stack's segments are each part's
    share of the per-device total."""
    total = memory["per_device_gib"]
    capacity = memory["capacity_gib"]
    track = max(total, capacity)
    capacity_share = capacity / track if track > 0 else 1.0
    parts = [
        {
            "label": label,
            "css": css,
            "gib": memory.get(key, 0.0),
            "share": 100 * memory.get(key, 0.0) / total if total > 0 else 0.0,
            "width": _percent(memory.get(key, 0.0), total),
        }
        for key, label, css in MEMORY_PARTS
    ]
    return {
        "parts": parts,
        "stack_width": _percent(total, track),
        "capacity_left": _percent(capacity, track),
        # The marker's caption sits on whichever side of the line has room for it.
        "capacity_caption_side": "before" if capacity_share > CAPTION_ROOM else "after",
        "total_gib": total,
        "capacity_gib": capacity,
        "fits": memory["fits"],
    }
