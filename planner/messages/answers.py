"""Whole answers in the reader's language: every sentence the engine gave as a message is
written out where the answer has always carried a string (`warnings` stays a list of strings,
`explanations` a dict of strings, `bottleneck` a string), and a `messages` list keeps each one
as a code with its figures, for programs."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

from planner.messages.catalogue import TEMPLATES
from planner.messages.render import as_json, fill, is_message, render


class _Collector:
    """Renders sentences in place and remembers each as a message for programs."""

    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []

    def one(self, value: Any, field: str) -> str:
        data = as_json(value)
        if data is not None:
            self.messages.append({"field": field, **data})
        return render(value)

    def many(self, values: Iterable[Any], field: str) -> list[str]:
        return [self.one(v, field) for v in values]

    def each(self, values: dict[str, Any], field: str) -> dict[str, str]:
        return {k: self.one(v, f"{field}.{k}") for k, v in values.items()}


def localise_estimate(answer: dict[str, Any]) -> dict[str, Any]:
    """An estimate answer (the engine's `as_dict()`) with its sentences written out."""
    out, say = dict(answer), _Collector()
    if "explanations" in out:
        out["explanations"] = say.each(out["explanations"], "explanations")
    out["bottleneck"] = say.one(out["bottleneck"], "bottleneck")
    out["warnings"] = say.many(out["warnings"], "warnings")
    if out.get("calibration"):
        calibration = dict(out["calibration"])
        calibration["measured"] = say.many(calibration["measured"], "calibration.measured")
        out["calibration"] = calibration
    out["messages"] = say.messages
    return out


def localise_fit(answer: dict[str, Any]) -> dict[str, Any]:
    """A facility-fit answer with its warnings written out."""
    out, say = dict(answer), _Collector()
    out["warnings"] = say.many(out["warnings"], "warnings")
    out["messages"] = say.messages
    return out


def localise_candidate(candidate: dict[str, Any]) -> dict[str, Any]:
    """One build of a ranking: its reasons, failures, fit warnings, cost notes and estimate
    sentences written out, and a `messages` list for the whole build."""
    out, say = dict(candidate), _Collector()
    out["reasons"] = say.each(out.get("reasons") or {}, "reasons")
    out["failures"] = say.many(out.get("failures") or [], "failures")
    if out.get("fit"):
        out["fit"] = {**out["fit"], "warnings": say.many(out["fit"]["warnings"], "fit.warnings")}
    if out.get("cost"):
        cost = dict(out["cost"])
        cost["notes"] = say.many(cost["notes"], "cost.notes")
        if "usage" in cost:
            cost["usage"] = say.one(cost["usage"], "cost.usage")
        out["cost"] = cost
    if out.get("estimate"):
        estimate = dict(out["estimate"])
        estimate["bottleneck"] = say.one(estimate["bottleneck"], "estimate.bottleneck")
        estimate["warnings"] = say.many(estimate["warnings"], "estimate.warnings")
        if estimate.get("serving"):
            serving = estimate["serving"]
            estimate["serving"] = {
                **serving,
                "why": say.one(serving["why"], "estimate.serving.why"),
            }
        out["estimate"] = estimate
    out["messages"] = say.messages
    return out


def localise_rejected(rejected: dict[str, Any]) -> dict[str, Any]:
    """A rejected build: its failures written out, and `reason` joining them."""
    out, say = dict(rejected), _Collector()
    out["failures"] = say.many(rejected.get("failures") or [], "failures")
    out["reason"] = rejected.get("reason") or "; ".join(out["failures"])
    out["messages"] = say.messages
    return out


def failure_counts(rejected: list[dict[str, Any]]) -> list[tuple[str, int]]:
    """Each kind of failure and how many rejected builds it stops, most first."""
    counts: Counter[str] = Counter()
    for build in rejected:
        failures = build.get("failures")
        if failures is None:  # a ranking stored before failures were kept apart
            failures = str(build.get("reason", "")).split("; ")
        for failure in failures:
            counts[_failure_kind(failure)] += 1
    return sorted(counts.items(), key=lambda kv: -kv[1])


def why_none(rejected: list[dict[str, Any]], evaluated: int) -> str:
    """Why no build is viable: each kind of failure and how many builds it stops, most first."""
    if not evaluated:
        return fill(TEMPLATES["why_none.nothing"], {})
    reasons = [
        fill(
            TEMPLATES["why_none.reason.one" if n == 1 else "why_none.reason"],
            {"reason": reason, "builds": n},
        )
        for reason, n in failure_counts(rejected)
    ]
    return fill(TEMPLATES["why_none.every_build"], {"reasons": reasons})


def plan_why_none(ranking: dict[str, Any] | None) -> str | None:
    """Why a stored ranking has no viable build, in the reader's language; None when it has."""
    if not ranking or ranking.get("candidates"):
        return None
    return why_none(ranking.get("rejected", []), ranking.get("evaluated", 0))


def _failure_kind(failure: Any) -> str:
    """A failure as "why none" counts it: its short form where its figures vary by build."""
    if is_message(failure):
        code = as_json(failure)["code"]  # type: ignore[index]
        if f"{code}.short" in TEMPLATES:
            return fill(TEMPLATES[f"{code}.short"], {})
        return render(failure)
    return str(failure).split(" (")[0]  # a ranking stored before failures became messages


def localise_plan(answer: dict[str, Any]) -> dict[str, Any]:
    """A recommend answer (candidates, rejected, why none) in the reader's language."""
    out = dict(answer)
    out["candidates"] = [localise_candidate(c) for c in answer["candidates"]]
    out["rejected"] = [localise_rejected(r) for r in answer["rejected"]]
    if answer.get("why_first"):
        out["why_first"] = render(answer["why_first"])
    if not answer["candidates"]:
        out["why_none"] = why_none(answer["rejected"], answer["evaluated"])
    return out
