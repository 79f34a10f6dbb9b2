"""The builds a plan considers: each server with each accelerator it takes, in each count in
range; one estimate per accelerator, count and precision; fitted into the site and costed."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any

from planner.engine.cost import HOURS_PER_YEAR, CostBuild, Usage
from planner.engine.cost import cost as cost_of
from planner.engine.estimate import estimate
from planner.engine.facility import (
    RackSpec,
    ServerFacilitySpec,
    busy_power_kw,
    fit,
    idle_power_kw,
    populated,
)
from planner.engine.many import estimate_many
from planner.engine.memory import (
    OPTIMIZER_STATE_BYTES,
    master_weight_bytes,
    training_weight_bytes,
    usable_memory_gib,
)
from planner.engine.messages import Message, message
from planner.engine.recommend.capacity import serving_plan
from planner.engine.recommend.plan import AcceleratorOption, Candidate, PlanQuestion, ServerOption
from planner.engine.specs import BYTES, GIB, AcceleratorSpec, EstimateRequest, FabricSpec


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


def server_counts(question: PlanQuestion, server: ServerOption) -> list[tuple[int, int]]:
    """(servers, accelerators per server) pairs in the count range: one server partly filled
    (1, 2, 4... cards) where it is sold so, or one or several full ones, doubling."""
    slots = server.slots
    pairs = []
    per = 1
    while per < slots and not server.whole_only:
        pairs.append((1, per))
        per *= 2
    nodes = 1
    while nodes * slots <= question.max_count:
        pairs.append((nodes, slots))
        nodes *= 2
    return [(n, k) for n, k in pairs if question.min_count <= n * k <= question.max_count]


def build_fabric(
    fabric: FabricSpec, server: ServerOption, *, nodes: int, per_node: int, given: bool = True
) -> tuple[FabricSpec, Message | None]:
    """The scale-out network as one accelerator of this build sees it. A fabric the workload
    names is the most each card gets, less where the server has fewer NIC ports than cards
    (2 x 400 Gbit/s on a box of 8 cards is 100 Gbit/s each); with none named, the server's own
    ports are the network (8 x 400 Gbit/s on an HGX H100 box: 400 Gbit/s each). None of it
    matters inside one server."""
    if nodes == 1 or server.nic_ports <= 0:
        return fabric, None
    per_card_gb_s = server.nic_ports * server.nic_gbps / 8 / per_node
    if given and per_card_gb_s >= fabric.per_gpu_gb_s:
        return fabric, None
    ports = {
        "ports": server.nic_ports,
        "port_gbps": server.nic_gbps,
        "accelerators": per_node,
        "per_card_gbps": per_card_gb_s * 8,
    }
    if given:
        note = message("fabric.fewer_ports", **ports, fabric_gbps=fabric.per_gpu_gb_s * 8)
    else:
        note = message("fabric.from_server", **ports)
    return dataclasses.replace(fabric, per_gpu_gb_s=per_card_gb_s), note


def _precision_and_fabric(
    question: PlanQuestion,
    server: ServerOption,
    option: AcceleratorOption,
    *,
    nodes: int,
    per_node: int,
) -> tuple[str, bool, FabricSpec, Message | None]:
    """The precision the build runs (and whether natively) and its network as one card sees
    it, with the note that says so where the server narrows it."""
    precision, native = precision_for(question.workload, option.spec)
    fabric, note = build_fabric(
        question.workload.fabric,
        server,
        nodes=nodes,
        per_node=per_node,
        given=question.fabric_given,
    )
    return precision, native, fabric, note


def build_request(
    question: PlanQuestion,
    option: AcceleratorOption,
    count: int,
    per_node: int,
    precision: str,
    fabric: FabricSpec,
) -> EstimateRequest:
    """The plan's workload on one build: what planner.engine.many lets differ between builds."""
    return dataclasses.replace(
        question.workload,
        accelerator=option.spec,
        count=count,
        per_node=per_node,
        precision=precision,
        fabric=fabric,
        calibration=option.calibration,
    )


# The estimate builds share when they differ only in their server: card, devices per server,
# devices, precision and the network one card sees.
AnswerKey = tuple[str, int, int, str, float]


def _answer_key(
    option: AcceleratorOption, *, per_node: int, count: int, precision: str, fabric: FabricSpec
) -> AnswerKey:
    return (option.slug, per_node, count, precision, fabric.per_gpu_gb_s)


def _state_refusal(question: PlanQuestion, option: AcceleratorOption, count: int) -> Message | None:
    """Why no layout of `count` cards can hold the job, before any is sized: its states sharded
    as far as they go still outgrow one card."""
    floor = sharded_state_gib(question.workload, count)
    capacity_gib = usable_memory_gib(option.spec)
    if floor > capacity_gib:
        return message("failure.sharded_state", floor_gib=floor, capacity_gib=capacity_gib)
    return None


def _build_answer(
    question: PlanQuestion,
    option: AcceleratorOption,
    *,
    nodes: int,
    per_node: int,
    precision: str,
    fabric: FabricSpec,
    answers: dict[AnswerKey, dict[str, Any] | Message],
) -> dict[str, Any] | Message:
    """The estimate of one build as the contract's JSON, or why there is none. Builds that
    differ only in their server share one estimate (`answers` keeps them)."""
    count = nodes * per_node
    key = _answer_key(option, per_node=per_node, count=count, precision=precision, fabric=fabric)
    if key in answers:
        return answers[key]
    refusal = _state_refusal(question, option, count)
    if refusal is not None:
        answers[key] = refusal
        return refusal
    req = build_request(question, option, count, per_node, precision, fabric)
    try:
        answer = estimate(req, advise=False).as_dict()
    except ValueError:  # no layout divides the batch over this count
        answers[key] = message("failure.no_layout")
        return answers[key]
    if question.workload.task == "inference" and question.target_rps is not None:
        answer = with_serving(question, req, answer)
    answers[key] = answer
    return answer


def with_serving(
    question: PlanQuestion, req: EstimateRequest, answer: dict[str, Any]
) -> dict[str, Any]:
    """A serving build's answer with the layout that serves the most requests/s within the
    question's TTFT/TPOT bounds (tensor parallelism, batch per replica, replicas) and that
    rate as `capacity_rps`."""
    plan = serving_plan(
        req, ttft_ms=question.ttft_ms, tpot_ms=question.tpot_ms, target_rps=question.target_rps
    )
    if plan is None:
        return {**answer, "capacity_rps": 0.0, "serving": None}
    return {**answer, "capacity_rps": plan.capacity_rps, "serving": plan.as_dict()}


def usage(question: PlanQuestion, answer: dict[str, Any]) -> Usage:
    """How busy the build is over the plan's horizon: as the question says, else a training
    job's own hours (the fleet idle the rest of the time), else serving's load share."""
    if question.utilisation is not None:
        job_hours = None
        if question.workload.task != "inference":
            job_hours = answer["time"]["seconds"] / 3600
        return Usage(
            question.utilisation,
            job_hours,
            message("usage.given", percent=100 * question.utilisation),
        )
    if question.workload.task != "inference":
        hours = answer["time"]["seconds"] / 3600
        share = min(1.0, hours / (question.years * HOURS_PER_YEAR))
        return Usage(
            share,
            hours,
            message("usage.job", days=hours / 24, years=question.years, percent=100 * share),
        )
    capacity = answer.get("capacity_rps")
    if question.target_rps is not None and capacity:
        share = min(1.0, question.target_rps / capacity)
        return Usage(
            share,
            None,
            message(
                "usage.load", rps=question.target_rps, capacity_rps=capacity, percent=100 * share
            ),
        )
    return Usage(1.0, None, message("usage.always"))


def _costed(
    question: PlanQuestion,
    server: ServerOption,
    option: AcceleratorOption,
    *,
    nodes: int,
    per_node: int,
    facility: ServerFacilitySpec,
    answer: dict[str, Any],
) -> Candidate:
    """A build with an estimate, fitted into the site and costed; scores come later."""
    site = site_fit(question, facility, nodes)
    build = CostBuild(
        accelerator=option.slug,
        server=server.slug,
        nodes=nodes,
        per_node=per_node,
        whole_system=server.whole_only or per_node == server.slots,
        # An unnamed fabric has no price to find, but its parts still count as missing.
        fabric=(question.workload.fabric.name or "fabric") if nodes > 1 else None,
        fabric_radix=question.fabric_radix,
        nic_ports=server.nic_ports,
        racks=site["racks_needed"],
        busy_kw=busy_power_kw(
            facility,
            base_w=server.base_power_w,
            card_w=option.spec.tdp_w,
            serving=question.workload.task == "inference",
        ),
        idle_kw=idle_power_kw(facility, base_w=server.base_power_w, card_w=option.spec.tdp_w),
        pue=question.pue,
        price_per_kwh=question.price_per_kwh,
        years=question.years,
        usage=usage(question, answer),
    )
    money = cost_of(build, question.prices).as_dict()
    tokens_per_s = answer["throughput"]["tokens_per_s"]
    money["tokens_per_joule"] = round(tokens_per_s / (nodes * build.busy_kw * 1000), 4)
    # A ranking keeps hundreds of builds: their prose explanations stay with the estimate
    # page, and the memory-time part of the breakdown is all scoring reads.
    kept = {k: v for k, v in answer.items() if k not in ("explanations", "search")}
    count = nodes * per_node
    return Candidate(option.slug, server.slug, count, nodes, kept, site, money, {}, {})


def _one_build(
    question: PlanQuestion,
    server: ServerOption,
    option: AcceleratorOption,
    *,
    nodes: int,
    per_node: int,
    answers: dict[AnswerKey, dict[str, Any] | Message],
) -> tuple[Candidate, BuildContext | None]:
    """One build: estimated, fitted and costed with its context, or rejected with why."""
    count = nodes * per_node
    if nodes > 1 and server.nic_ports <= 0:
        failure = message("failure.no_fabric_ports", server=server.slug)
        return Candidate(
            option.slug, server.slug, count, nodes, {}, {}, {}, {}, {}, failures=[failure]
        ), None
    precision, native, fabric, fabric_note = _precision_and_fabric(
        question, server, option, nodes=nodes, per_node=per_node
    )
    answer = _build_answer(
        question,
        option,
        nodes=nodes,
        per_node=per_node,
        precision=precision,
        fabric=fabric,
        answers=answers,
    )
    if isinstance(answer, Message):
        return Candidate(
            option.slug, server.slug, count, nodes, {}, {}, {}, {}, {}, failures=[answer]
        ), None
    if fabric_note is not None:
        answer = {**answer, "warnings": [*answer["warnings"], fabric_note.as_dict()]}
    facility = populated(
        server.facility[option.slug],
        max_kw=server.max_power_kw,
        base_w=server.base_power_w,
        slots=server.slots,
        count=per_node,
        card=option.slug,
        card_w=option.spec.tdp_w,
    )
    candidate = _costed(
        question, server, option, nodes=nodes, per_node=per_node, facility=facility, answer=answer
    )
    return candidate, BuildContext(option, facility, native)


def build_plan(question: PlanQuestion) -> list[tuple[ServerOption, AcceleratorOption, int, int]]:
    """Every build the question asks about: (server, accelerator, servers, accelerators per
    server), each server with each accelerator it takes, in the counts it is sold in."""
    accelerators = {a.slug: a for a in question.accelerators}
    return [
        (server, accelerators[slug], nodes, per_node)
        for server in question.servers
        for slug in sorted(server.fits & accelerators.keys())
        for nodes, per_node in server_counts(question, server)
    ]


def estimates_needed(
    question: PlanQuestion, plan: list[tuple[ServerOption, AcceleratorOption, int, int]]
) -> dict[AnswerKey, EstimateRequest]:
    """The estimates the builds need, each once (builds that differ only in their server share
    one), by _build_answer's key; none for builds refused before an estimate."""
    needed: dict[AnswerKey, EstimateRequest] = {}
    for server, option, nodes, per_node in plan:
        if nodes > 1 and server.nic_ports <= 0:
            continue
        count = nodes * per_node
        precision, _native, fabric, _note = _precision_and_fabric(
            question, server, option, nodes=nodes, per_node=per_node
        )
        key = _answer_key(
            option, per_node=per_node, count=count, precision=precision, fabric=fabric
        )
        if key in needed or _state_refusal(question, option, count) is not None:
            continue
        needed[key] = build_request(question, option, count, per_node, precision, fabric)
    return needed


def builds(question: PlanQuestion) -> tuple[list[tuple[Candidate, BuildContext]], list[Candidate]]:
    """Every build of the question's servers and the accelerators they take, in the counts they
    are sold in: those with an estimate (and what scoring needs to know of them), and those
    without one. A training plan's estimates are made in one pass (planner.engine.many)."""
    plan = build_plan(question)
    answers: dict[AnswerKey, dict[str, Any] | Message] = {}
    if question.workload.task != "inference":
        needed = estimates_needed(question, plan)
        found = estimate_many(list(needed.values()))
        for key, answer in zip(needed, found, strict=True):
            answers[key] = message("failure.no_layout") if answer is None else answer.as_dict()
    built: list[tuple[Candidate, BuildContext]] = []
    unusable: list[Candidate] = []
    for server, option, nodes, per_node in plan:
        candidate, context = _one_build(
            question, server, option, nodes=nodes, per_node=per_node, answers=answers
        )
        if context is None:
            unusable.append(candidate)
        else:
            built.append((candidate, context))
    return built, unusable
