"""The builds a plan considers: each server with each accelerator it takes, in each count in
range; one estimate per accelerator, count and precision; fitted into the site and costed."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any

from planner.engine.cost import cost as cost_of
from planner.engine.estimate import estimate
from planner.engine.facility import RackSpec, ServerFacilitySpec, fit
from planner.engine.memory import OPTIMIZER_STATE_BYTES, master_weight_bytes, training_weight_bytes
from planner.engine.messages import Message, message
from planner.engine.recommend.plan import AcceleratorOption, Candidate, PlanQuestion, ServerOption
from planner.engine.specs import BYTES, GIB, AcceleratorSpec, EstimateRequest


@dataclass(frozen=True)
class BuildContext:
    """What scoring needs to know of a build beyond its estimate, fit and cost."""

    option: AcceleratorOption
    facility: ServerFacilitySpec
    native: bool  # the workload's precision runs natively on the card


def site_fit(question: PlanQuestion, server: ServerFacilitySpec, nodes: int) -> dict[str, Any]:
    """Fill the rack groups that take the most of these servers first."""
    if not question.racks:
        result = fit(
            RackSpec(power_kw=1e9, cooling_kw=1e9, units=10**6, max_kg=1e12),
            server,
            nodes,
            pue=question.pue,
            price_per_kwh=question.price_per_kwh,
        )
        return {
            **result.as_dict(),
            "binding": None,
            "racks_needed": None,
            "hostable": True,
            "site": False,
            "groups": [],
        }
    fits = sorted(
        (
            (g, fit(g.rack, server, nodes, pue=question.pue, price_per_kwh=question.price_per_kwh))
            for g in question.racks
        ),
        key=lambda pair: -pair[1].servers_per_rack,
    )
    left, racks, groups = nodes, 0, []
    for group, result in fits:
        if left <= 0 or result.servers_per_rack == 0:
            continue
        used = min(group.count, math.ceil(left / result.servers_per_rack))
        left -= used * result.servers_per_rack
        racks += used
        groups.append(
            {
                "group": group.name,
                "racks": used,
                "servers_per_rack": result.servers_per_rack,
                "binding": result.binding,
            }
        )
    best = fits[0][1]
    return {
        **best.as_dict(),
        "racks_needed": racks if left <= 0 else None,
        "hostable": left <= 0,
        "site": True,
        "groups": groups,
        "binding": groups[0]["binding"] if groups else best.binding,
    }


def precision_for(workload: EstimateRequest, acc: AcceleratorSpec) -> tuple[str, bool]:
    """The workload's precision where the card has it; else the nearest it runs natively."""
    if acc.peak_tflops(workload.precision) or (
        workload.precision == "int4" and (acc.peak_tflops("bf16") or acc.peak_tflops("fp16"))
    ):
        return workload.precision, True
    for fallback in ("bf16", "fp16", "fp32"):
        if acc.peak_tflops(fallback):
            return fallback, False
    return workload.precision, False


def sharded_state_gib(workload: EstimateRequest, count: int) -> float:
    """A floor on memory per device for full training: weights, gradients and optimizer
    states spread over every device (ZeRO-3), before any activation. Builds above it cannot
    fit whatever the layout, so the search is skipped for them."""
    if workload.task == "inference" or workload.method != "full":
        return 0.0
    weight = training_weight_bytes(workload.precision)
    master = master_weight_bytes(workload.master_weights, weight)
    per_param = weight + BYTES["fp32"] + OPTIMIZER_STATE_BYTES[workload.optimizer] + master
    return workload.model.params * per_param / count / GIB


def candidate_layouts(question: PlanQuestion, slots: int) -> list[tuple[int, int]]:
    """(servers, accelerators per server) pairs in the count range: one server partly or
    fully filled (1, 2, 4... cards), or several full ones, doubling."""
    pairs = []
    per = 1
    while per < slots:
        pairs.append((1, per))
        per *= 2
    nodes = 1
    while nodes * slots <= question.max_count:
        pairs.append((nodes, slots))
        nodes *= 2
    return [(n, k) for n, k in pairs if question.min_count <= n * k <= question.max_count]


def _build_answer(
    question: PlanQuestion,
    option: AcceleratorOption,
    *,
    nodes: int,
    per_node: int,
    precision: str,
    answers: dict[tuple[str, int, int, str], dict[str, Any] | Message],
) -> dict[str, Any] | Message:
    """The estimate of one build as the contract's JSON, or why there is none. Builds that
    differ only in their server share one estimate (`answers` keeps them)."""
    count = nodes * per_node
    key = (option.slug, per_node, count, precision)
    if key in answers:
        return answers[key]
    floor = sharded_state_gib(question.workload, count)
    if floor > option.spec.memory_gib:
        answers[key] = message(
            "failure.sharded_state", floor_gib=floor, capacity_gib=option.spec.memory_gib
        )
        return answers[key]
    req = dataclasses.replace(
        question.workload,
        accelerator=option.spec,
        count=count,
        per_node=per_node,
        precision=precision,
        calibration=option.calibration,
    )
    try:
        answers[key] = estimate(req, advise=False).as_dict()
    except ValueError:  # no layout divides the batch over this count
        answers[key] = message("failure.no_layout")
    return answers[key]


def _costed(
    question: PlanQuestion,
    server: ServerOption,
    option: AcceleratorOption,
    *,
    nodes: int,
    per_node: int,
    answer: dict[str, Any],
) -> Candidate:
    """A build with an estimate, fitted into the site and costed; scores come later."""
    facility = server.facility[option.slug]
    site = site_fit(question, facility, nodes)
    money = cost_of(
        nodes=nodes,
        accelerators_per_node=per_node,
        accelerator_price=option.price,
        server_price=server.price,
        server_power_kw=facility.power_kw,
        pue=question.pue,
        price_per_kwh=question.price_per_kwh,
        years=question.years,
        rent_per_gpu_hour=question.rent_per_gpu_hour,
    )
    # A ranking keeps hundreds of builds: their prose explanations stay with the estimate
    # page, and the memory-time part of the breakdown is all scoring reads.
    kept = {k: v for k, v in answer.items() if k not in ("explanations", "search")}
    count = nodes * per_node
    return Candidate(option.slug, server.slug, count, nodes, kept, site, money.as_dict(), {}, {})


def builds(question: PlanQuestion) -> tuple[list[tuple[Candidate, BuildContext]], list[Candidate]]:
    """Every build of the question's servers and the accelerators they take: those with an
    estimate (and what scoring needs to know of them), and those without one."""
    accelerators = {a.slug: a for a in question.accelerators}
    answers: dict[tuple[str, int, int, str], dict[str, Any] | Message] = {}
    built: list[tuple[Candidate, BuildContext]] = []
    unusable: list[Candidate] = []
    for server in question.servers:
        for slug in sorted(server.fits & accelerators.keys()):
            option = accelerators[slug]
            precision, native = precision_for(question.workload, option.spec)
            for nodes, per_node in candidate_layouts(question, server.slots):
                answer = _build_answer(
                    question,
                    option,
                    nodes=nodes,
                    per_node=per_node,
                    precision=precision,
                    answers=answers,
                )
                if isinstance(answer, Message):
                    count = nodes * per_node
                    unusable.append(
                        Candidate(
                            slug, server.slug, count, nodes, {}, {}, {}, {}, {}, failures=[answer]
                        )
                    )
                    continue
                candidate = _costed(
                    question, server, option, nodes=nodes, per_node=per_node, answer=answer
                )
                context = BuildContext(option, server.facility[slug], native)
                built.append((candidate, context))
    return built, unusable
