"""How a serving build is laid out and what it sustains, as the plan pages show it: the engine's
`estimate["serving"]` (tensor parallelism, replicas, the batch per replica and what the KV cache
holds, the p99 latencies, what stops a higher rate and the sentence saying so), read from a
plan's stored ranking. Plans stored before the engine searched the layout have none."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext_lazy

# What stops a higher rate, short enough for a table cell (the sentence says it in full).
LIMIT_LABELS = {
    "ttft": gettext_lazy("TTFT"),
    "tpot": gettext_lazy("TPOT"),
    "batch": gettext_lazy("KV-cache batch"),
    "saturation": gettext_lazy("decode rate"),
}


def serving_figures(estimate: dict[str, Any]) -> dict[str, Any] | None:
    """One build's serving layout, or None where the plan gave no rate: `ttft_ms` and `tpot_ms`
    at the question's rate (None in a plan ranked before the engine gave them, or past
    capacity), `edge_*` at capacity. `why` is as the estimate holds it: written out once the
    candidate is localised."""
    serving = estimate.get("serving")
    if not serving:
        return None
    inference = estimate.get("inference") or {}
    # The estimate's KV figures are at its own tensor parallelism; they describe this layout
    # only where the two agree.
    same_tp = (estimate.get("parallelism") or {}).get("tp") == serving["tp"]
    return {
        "tp": serving["tp"],
        "replicas": serving["replicas"],
        "batch": serving["batch_per_replica"],
        "max_batch": serving["max_batch_per_replica"],
        "capacity_rps": serving["capacity_rps"],
        "target_rps": serving.get("target_rps"),
        "ttft_ms": serving.get("target_ttft_ms"),
        "tpot_ms": serving.get("target_tpot_ms"),
        "edge_ttft_ms": serving["ttft_ms"],
        "edge_tpot_ms": serving["tpot_ms"],
        "binding": serving["binding"],
        "limit": LIMIT_LABELS.get(serving["binding"], serving["binding"]),
        "why": serving.get("why", ""),
        "kv_budget_gib": inference.get("kv_budget_gib") if same_tp else None,
        "kv_per_sequence_gib": inference.get("kv_per_sequence_gib") if same_tp else None,
    }


def compare_lines(rows: list[dict[str, Any]]) -> list[tuple[Any, list[Any], str | None]]:
    """The comparison's serving lines: label, one figure per build, which way is better. A plan
    without a rate has no layout: the estimate's latencies of one batch then."""
    if not any(r.get("serving") for r in rows):
        inference = [r["estimate"].get("inference") or {} for r in rows]
        return [
            (gettext_lazy("TTFT (ms)"), [i.get("ttft_ms") for i in inference], "low"),
            (gettext_lazy("TPOT (ms)"), [i.get("tpot_ms") for i in inference], "low"),
        ]

    def each(key: str) -> list[Any]:
        return [(r.get("serving") or {}).get(key) for r in rows]

    return [
        (gettext_lazy("Tensor parallelism per replica"), each("tp"), None),
        (gettext_lazy("Replicas"), each("replicas"), None),
        (gettext_lazy("Batch per replica (requests)"), each("batch"), None),
        (gettext_lazy("Batch the KV cache holds (requests)"), each("max_batch"), "high"),
        (gettext_lazy("TTFT p99 at the target rate (ms)"), each("ttft_ms"), "low"),
        (gettext_lazy("TPOT p99 at the target rate (ms)"), each("tpot_ms"), "low"),
        (gettext_lazy("What stops a higher rate"), each("limit"), None),
    ]


def export_cells(estimate: dict[str, Any]) -> list[Any]:
    """The CSV's serving columns (`EXPORT_COLUMNS`), blank where the build has no layout; the
    latencies only as the engine gave them, at the question's rate and at capacity."""
    serving = estimate.get("serving")
    if not serving:
        return [""] * len(EXPORT_COLUMNS)
    keys = (
        "tp",
        "replicas",
        "batch_per_replica",
        "max_batch_per_replica",
        "target_rps",
        "target_ttft_ms",
        "target_tpot_ms",
        "ttft_ms",
        "tpot_ms",
        "binding",
        "why",
    )
    return ["" if serving.get(key) is None else serving[key] for key in keys]


EXPORT_COLUMNS = (
    "tp",
    "replicas",
    "batch_per_replica",
    "max_batch_per_replica",
    "target_rps",
    "ttft_p99_at_target_ms",
    "tpot_p99_at_target_ms",
    "ttft_p99_at_capacity_ms",
    "tpot_p99_at_capacity_ms",
    "serving_limit",
    "serving_why",
)
