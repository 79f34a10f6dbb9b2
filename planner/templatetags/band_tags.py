"""The uncertainty band beside a figure (the answer's `uncertainty` section), in the page's
language with its numbers formatted for the locale."""

from __future__ import annotations

from typing import Any

from django import template
from django.utils.formats import number_format
from django.utils.html import format_html
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

register = template.Library()

JOB_LABELS = {"training": _("training"), "inference": _("inference"), "*": _("every job's")}
METRIC_LABELS = {
    "throughput": _("throughput"),
    "memory": _("memory"),
    "decode": _("decode time per token"),
    "prefill": _("prefill time"),
}


def _percent(value: float) -> str:
    return f"{number_format(value, decimal_pos=1, use_l10n=True)} %"


def band_cell(band: dict[str, Any] | None) -> str:
    """The band as "± 3.1 % / ± 9.9 %" (median / 90th percentile) for a comparison cell."""
    if not band:
        return "—"
    return f"± {_percent(band['p50_pct'])} / ± {_percent(band['p90_pct'])}"


def band_text(band: dict[str, Any]) -> str:
    """One line: "± 3.1 % (p90 ± 9.9 %) from 11 measured runs of training throughput, hf;
    source: h200-measured"."""
    group = gettext("{job} {metric}").format(
        job=JOB_LABELS.get(band["job"], band["job"]),
        metric=METRIC_LABELS.get(band["metric"], band["metric"]),
    )
    if band["framework"]:
        group = gettext("{group}, {framework}").format(group=group, framework=band["framework"])
    else:
        group = gettext("{group}, every framework").format(group=group)
    text = gettext(
        "± {p50} (p90 ± {p90}) from {rows} measured runs of {group}; source: {sources}"
    ).format(
        p50=_percent(band["p50_pct"]),
        p90=_percent(band["p90_pct"]),
        rows=number_format(band["rows"], use_l10n=True, force_grouping=True),
        group=group,
        sources="; ".join(band["sources"]),
    )
    if not band["held_out"]:
        text += " " + gettext("(too few held-out runs: calibration runs counted too)")
    return text


@register.simple_tag
def band(uncertainty: dict[str, Any] | None, metric: str) -> str:
    """The band of `metric` as a small line under a figure; says so where none is known."""
    found = (uncertainty or {}).get(metric)
    if not found:
        return format_html(
            '<small class="band">{}</small>', gettext("No measured runs judge this figure yet.")
        )
    return format_html('<small class="band">{}</small>', band_text(found))


@register.simple_tag
def band_short(uncertainty: dict[str, Any] | None, metric: str) -> str:
    """The band as "± 3.1 %" for a table cell, the whole sentence in its title."""
    found = (uncertainty or {}).get(metric)
    if not found:
        return ""
    return format_html(
        '<small class="band muted" title="{}">± {}</small>',
        band_text(found),
        _percent(found["p50_pct"]),
    )
