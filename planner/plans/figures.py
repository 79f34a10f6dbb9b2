"""What the plan pages show: table rows, the Pareto front, chart data, the question in words,
the comparison lines and the export columns. Pure formatting of a plan's stored ranking."""

from __future__ import annotations

import math
from typing import Any
from urllib.parse import urlencode

from django.contrib.humanize.templatetags.humanize import intcomma
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from catalog.currency import SYMBOLS, amount_text, convert
from catalog.models import ModelArchitecture
from catalog.selectors import display_names
from planner.engine.scoring import DIMENSIONS
from planner.engine.specs import InferenceSpec
from planner.engine.stack import default_framework
from planner.messages.answers import localise_candidate, localise_rejected
from planner.models import Plan, Workload
from planner.plans.selectors import plan_task
from planner.plans.serving import EXPORT_COLUMNS as SERVING_COLUMNS
from planner.plans.serving import serving_figures
from planner.validation.bands import answer_framework, uncertainty

TOP_SCORES = 5  # builds in the scores chart

DIMENSION_LABELS = {
    "memory_capacity": gettext_lazy("Memory capacity"),
    "memory_bandwidth": gettext_lazy("Memory bandwidth"),
    "interconnect": gettext_lazy("Interconnect"),
    "cooling": gettext_lazy("Cooling"),
    "software": gettext_lazy("Drivers and software"),
}

TASK_LABELS = {
    "train": gettext_lazy("Pre-train"),
    "finetune": gettext_lazy("Fine-tune"),
    "inference": gettext_lazy("Serve"),
}


BINDING_LABELS = {
    "power": gettext_lazy("power"),
    "cooling": gettext_lazy("cooling"),
    "units": gettext_lazy("rack units"),
    "weight": gettext_lazy("weight"),
    "cooling type": gettext_lazy("cooling type"),
}


def money(amount: float | None, currency: str, display: str | None = None) -> str:
    """An amount in `display` currency (the visitor's), converted from the plan's `currency` at
    the configured rate and then marked with ≈; in the plan's own when they are the same."""
    if amount is None:
        return "—"
    target = display or currency
    value = convert(amount, currency, target) or 0.0
    approx = "≈ " if target != currency else ""
    return f"{approx}{SYMBOLS.get(target, '')}{amount_text(value)} {target}"


def build_names(plan: Plan) -> dict[str, dict[str, str]]:
    """Catalog names of the accelerators and servers in the plan, by slug."""
    ranking = plan.ranking or {}
    every = [*ranking.get("candidates", []), *ranking.get("rejected", [])]
    accelerators = {c["accelerator"] for c in every}
    servers = {c["server"] for c in every}
    names = display_names(slugs=[*accelerators, *servers])
    return {
        "accelerator": {slug: names[slug] for slug in accelerators if slug in names},
        "server": {slug: names[slug] for slug in servers if slug in names},
    }


def output_len_of(plan: Plan) -> int:
    inference = (plan.question.get("workload") or {}).get("inference") or {}
    return int(inference.get("output_len") or InferenceSpec.output_len)


def capacity_rps(candidate: dict[str, Any], output_len: int) -> float | None:
    """Requests per second the build sustains: decode tokens/s over the output length (the
    engine's figure where the question gave a target rate)."""
    estimate = candidate["estimate"]
    if estimate.get("capacity_rps") is not None:
        return estimate["capacity_rps"]
    decode = (estimate.get("inference") or {}).get("decode_tokens_per_s")
    return None if not decode else decode / max(output_len, 1)


def plan_stack(plan: Plan) -> dict[str, Any]:
    """What `candidate_row` needs to give each figure its band: the plan's task and the
    framework its workload names (None: the engine's default for each build's size)."""
    return {"task": plan_task(plan), "framework": plan.question["workload"].get("framework")}


def _band(candidate: dict[str, Any], stack: dict[str, Any] | None) -> dict[str, Any] | None:
    if stack is None:
        return None
    task = stack["task"]
    framework = (
        stack["framework"]
        or answer_framework(candidate["estimate"])
        or default_framework(task=task, count=candidate["count"])[0]
    )
    return uncertainty(task, framework)


def candidate_row(
    candidate: dict[str, Any],
    *,
    names: dict,
    output_len: int,
    stack: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A build's figures for the pages; given the plan's `stack` (`plan_stack`), each figure's
    uncertainty band for the build's software stack too."""
    candidate = localise_candidate(candidate)
    fit, cost, estimate = candidate["fit"], candidate["cost"], candidate["estimate"]
    return {
        "id": candidate["id"],
        "rank": candidate["rank"],
        "accelerator": candidate["accelerator"],
        "accelerator_name": names["accelerator"].get(
            candidate["accelerator"], candidate["accelerator"]
        ),
        "server": candidate["server"],
        "server_name": names["server"].get(candidate["server"], candidate["server"]),
        "count": candidate["count"],
        "nodes": candidate["nodes"],
        "scores": [
            {
                "key": key,
                "label": DIMENSION_LABELS[key],
                "score": candidate["scores"][key],
                "reason": candidate["reasons"][key],
            }
            for key in DIMENSIONS
        ],
        "overall": candidate["overall"],
        "days": estimate["time"]["days"],
        "capacity_rps": capacity_rps(candidate, output_len),
        "serving": serving_figures(estimate),
        "cost_basis": cost.get("basis"),
        "cost_amount": cost.get("amount"),
        "rent_job": cost.get("rent_job"),
        "capex": cost.get("capex"),
        "tco": cost.get("tco"),
        "energy_per_year": cost.get("energy_per_year"),
        "rent_per_year": cost.get("rent_per_year"),
        "breakeven_months": cost.get("breakeven_months"),
        "cost_notes": [*(cost.get("notes") or []), *([cost["usage"]] if cost.get("usage") else [])],
        "site": fit.get("site"),
        "racks_needed": fit.get("racks_needed"),
        "binding": BINDING_LABELS.get(fit.get("binding"), fit.get("binding")),
        "estimate": estimate,
        "uncertainty": _band(candidate, stack),
        "fit": fit,
    }


def rejected_rows(
    plan: Plan, names: dict, simulated: list[dict[str, Any]] | None = None
) -> list[dict[str, Any]]:
    """The stored ranking's rejected builds, then those its serving check rejected."""
    return [
        {
            "accelerator_name": names["accelerator"].get(c["accelerator"], c["accelerator"]),
            "server_name": names["server"].get(c["server"], c["server"]),
            "count": c["count"],
            "nodes": c["nodes"],
            "reason": localise_rejected(c)["reason"],
        }
        for c in [*(plan.ranking or {}).get("rejected", []), *(simulated or [])]
    ]


def pareto_front(points: list[dict[str, Any]], *, maximise_x: bool) -> set[int]:
    """Ids of the points no other point beats on both axes (cost `y` lower is better; `x` is
    days, lower better, or serving capacity, higher better). One sweep over the points sorted
    by x: a point is on the front when it is cheaper than every point with a better x."""
    ordered = sorted(points, key=lambda p: (-p["x"] if maximise_x else p["x"], p["y"]))
    front, best_y, best_x = set(), math.inf, None
    for p in ordered:
        if p["y"] < best_y or (p["y"] == best_y and p["x"] == best_x):
            front.add(p["id"])
        if p["y"] < best_y:
            best_y, best_x = p["y"], p["x"]
    return front


def _build_label(candidate: dict[str, Any], names: dict) -> str:
    """ "#1 NVIDIA H100 SXM5 x 64": rank, accelerator and count, for chart legends."""
    name = names["accelerator"].get(candidate["accelerator"], candidate["accelerator"])
    return f"#{candidate['rank']} {name} \u00d7 {candidate['count']}"


def chart_data(
    plan: Plan, candidates: list[dict], *, names: dict, output_len: int
) -> dict[str, Any]:
    """Points for the Pareto chart (time or capacity against cost; TCO where any build has
    one, else capex) and the five scores of the top builds."""
    serving = plan_task(plan) == "inference"
    metric = "tco" if any(c["cost"].get("tco") is not None for c in candidates) else "capex"
    points, missing = [], 0
    for c in candidates:
        x = capacity_rps(c, output_len) if serving else c["estimate"]["time"]["days"]
        y = c["cost"].get(metric)
        if x is None or y is None:
            missing += 1
            continue
        points.append({"id": c["id"], "x": x, "y": y, "label": _build_label(c, names)})
    front = pareto_front(points, maximise_x=serving)
    for p in points:
        p["front"] = p["id"] in front
    return {
        "serving": serving,
        "metric": metric,
        "points": points,
        "missing": missing,
        "scores": [
            {
                "label": _build_label(c, names),
                "data": [c["scores"][k] for k in DIMENSIONS],
            }
            for c in candidates[:TOP_SCORES]
        ],
    }


def chart_labels(plan: Plan, metric: str, serving: bool) -> dict[str, Any]:
    """The charts' titles and axes, translated here so the script holds no text of its own."""
    cost = _("TCO") if metric == "tco" else _("Capex")
    return {
        "x": _("Serving capacity (requests/s)") if serving else _("Time to train (days)"),
        "y": f"{cost} ({plan.currency})",
        "front": _("Pareto front"),
        "others": _("Other builds"),
        "score": _("Score (0-100)"),
        "dimensions": [str(DIMENSION_LABELS[k]) for k in DIMENSIONS],
    }


def _number_text(value: float) -> str:
    return f"{value:g}"


def weights_query(weights: dict[str, float], objective: str | None = None) -> str:
    """The order of a ranking as a query string: its objective and five weights."""
    query = {k: _number_text(weights[k]) for k in DIMENSIONS}
    if objective:
        query = {"objective": objective, **query}
    return urlencode(query)


def question_rows(plan: Plan) -> list[tuple[Any, str]]:
    """The question as people read it: labels with their units, values as asked."""
    question = plan.question
    workload = question.get("workload") or {}
    task = workload.get("task", "train")
    inference = workload.get("inference") or {}
    model = workload.get("model")
    if isinstance(model, str):
        found = ModelArchitecture.objects.filter(slug=model).first()
        model = found.name if found else model
    else:
        model = _("inline shape")
    budget = question.get("budget") or {}
    count = question.get("count") or {}
    rows: list[tuple[Any, Any]] = [
        (_("Task"), TASK_LABELS.get(task, task)),
        (_("Model"), model),
    ]
    if plan.workload_id:
        rows.append((_("Workload"), plan.workload.name))
    if task == "inference":
        rows += [
            (_("Precision or quantisation"), workload.get("precision", "bf16").upper()),
            (_("Requests per second"), question.get("target_rps")),
            (_("Prompt length (tokens)"), inference.get("prompt_len", InferenceSpec.prompt_len)),
            (_("Output length (tokens)"), inference.get("output_len", InferenceSpec.output_len)),
            (_("Time to first token target, TTFT p99 (ms)"), question.get("ttft_ms")),
            (_("Time per output token target, TPOT p99 (ms)"), question.get("tpot_ms")),
        ]
    else:
        rows += [
            (_("Training tokens"), workload.get("tokens")),
            (_("Sequence length (tokens)"), workload.get("seq_len")),
            (_("Precision"), workload.get("precision", "bf16").upper()),
            (_("Deadline (days)"), question.get("deadline_days")),
        ]
        if task == "finetune":
            rows.append((_("Method"), workload.get("method", "full")))
    site = plan.site.name if plan.site else None
    if site is None:
        site = _("inline racks") if question.get("site") else _("No site constraints")
    rows += [
        (_("Site"), site),
        (_("Capex budget"), money(budget.get("capex"), plan.currency)),
        (_("Total cost of ownership budget"), money(budget.get("tco"), plan.currency)),
        (_("Years of ownership"), question.get("years", 4)),
        (
            _("Accelerators (count)"),
            f"{count.get('min', 1)}\u2013{count.get('max', max(count.get('min', 1), 1024))}",
        ),
        (_("Vendors allowed"), ", ".join(question.get("vendors") or []) or _("any")),
        (_("Software stacks allowed"), ", ".join(question.get("stacks") or []) or _("any")),
        (_("Only these accelerators"), ", ".join(question.get("accelerators") or []) or _("any")),
        (
            _("Cloud price per GPU-hour"),
            "—"
            if question.get("rent_per_gpu_hour") is None
            else f"{question['rent_per_gpu_hour']:g} {plan.currency}",
        ),
    ]
    return [(label, _shown(value)) for label, value in rows]


def _shown(value: Any) -> Any:
    """1e11 as 100,000,000,000 and 30.0 as 30; text as it is; an em dash for nothing."""
    if value is None:
        return "—"
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return intcomma(int(value))
    if isinstance(value, int) and not isinstance(value, bool):
        return intcomma(value)
    return value


def workload_summary(workload: Workload, models: dict[str, str]) -> dict[str, Any]:
    spec = workload.spec
    question = spec.get("workload", {})
    inference = question.get("inference") or {}
    figures = []
    if workload.task == "inference":
        if spec.get("target_rps") is not None:
            figures.append(_("%(rps)s requests/s") % {"rps": _number_text(spec["target_rps"])})
        figures.append(
            _("prompt %(prompt)s, output %(output)s tokens")
            % {
                "prompt": inference.get("prompt_len", InferenceSpec.prompt_len),
                "output": inference.get("output_len", InferenceSpec.output_len),
            }
        )
        for key, label in (("ttft_ms", _("TTFT")), ("tpot_ms", _("TPOT"))):
            if spec.get(key) is not None:
                figures.append(f"{label} ≤ {_number_text(spec[key])} ms")
    else:
        if question.get("tokens") is not None:
            figures.append(_("%(tokens)s tokens") % {"tokens": _number_text(question["tokens"])})
        if question.get("method"):
            figures.append(question["method"].upper())
        if spec.get("deadline_days") is not None:
            figures.append(_("in %(days)s days") % {"days": _number_text(spec["deadline_days"])})
    model = question.get("model")
    return {
        "workload": workload,
        "kind": TASK_LABELS.get(workload.task, workload.task),
        "model": models.get(model, model) if isinstance(model, str) else _("inline shape"),
        "figures": ", ".join(figures),
    }


CSV_COLUMNS = (
    "rank",
    "id",
    "accelerator",
    "server",
    "count",
    "nodes",
    "overall",
    *DIMENSIONS,
    "days",
    "capacity_rps",
    *SERVING_COLUMNS,
    "tokens_per_s",
    "cost_basis",
    "cost",
    "rent_job",
    "capex",
    "energy_per_year",
    "tco",
    "rent_per_year",
    "breakeven_months",
    "currency",
    "racks_needed",
    "binding",
    *(f"{d}_reason" for d in DIMENSIONS),
)
