"""Every build that suits a workload, estimated, fitted into the site, costed and scored on the
five dimensions; ranked, with the ones that break a hard constraint listed apart."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass, field

from planner.engine import scoring
from planner.engine.cost import cost as cost_of
from planner.engine.estimate import estimate
from planner.engine.facility import RackSpec, ServerFacilitySpec, fit
from planner.engine.memory import OPTIMIZER_STATE_BYTES
from planner.engine.specs import BYTES, GIB, AcceleratorSpec, CalibrationSpec, EstimateRequest

TRAINING_PRECISIONS = ("bf16", "fp16", "fp8", "fp32", "tf32")


@dataclass(frozen=True)
class AcceleratorOption:
    slug: str
    spec: AcceleratorSpec
    vendor: str = ""
    software_stack: str = "cuda"
    training_maturity: str = "mature"
    inference_maturity: str = "mature"
    ecc: bool = True
    mig_instances: int = 0
    scale_up_link: str = ""
    consumer_cooling: bool = False
    price: float | None = None  # in the plan's currency
    calibration: CalibrationSpec | None = None  # measured on this card: used instead of defaults


@dataclass(frozen=True)
class ServerOption:
    slug: str
    slots: int
    fits: frozenset[str]  # accelerator slugs this server takes
    facility: Mapping[str, ServerFacilitySpec]  # per accelerator slug (power may depend on it)
    price: float | None = None


@dataclass(frozen=True)
class RackGroupOption:
    name: str
    rack: RackSpec
    count: int


@dataclass(frozen=True)
class PlanQuestion:
    workload: EstimateRequest  # accelerator and count are placeholders, replaced per candidate
    accelerators: tuple[AcceleratorOption, ...]
    servers: tuple[ServerOption, ...]
    racks: tuple[RackGroupOption, ...] = ()  # empty: no site constraints
    pue: float = 1.3
    price_per_kwh: float | None = None
    years: float = 4.0
    capex_budget: float | None = None
    tco_budget: float | None = None
    min_count: int = 1
    max_count: int = 1024
    deadline_days: float | None = None
    target_rps: float | None = None  # serving: requests per second to sustain
    ttft_ms: float | None = None
    tpot_ms: float | None = None
    rent_per_gpu_hour: float | None = None
    weights: Mapping[str, float] | None = None


@dataclass
class Candidate:
    accelerator: str
    server: str
    count: int
    nodes: int
    estimate: dict
    fit: dict
    cost: dict
    scores: dict
    reasons: dict
    overall: float = 0.0
    failures: list[str] = field(default_factory=list)

    def as_dict(self) -> dict:
        # A new top-level dict; the nested sections are shared, not copied: rankings are read,
        # and a deep copy of hundreds of estimates costs a page view hundreds of milliseconds.
        return {name: getattr(self, name) for name in self.__dataclass_fields__}


@dataclass(frozen=True)
class Ranking:
    candidates: list[Candidate]  # viable, best first
    rejected: list[Candidate]  # broke a hard constraint; `failures` says which
    evaluated: int
    weights: dict

    def as_dict(self, limit: int | None = None) -> dict:
        return {
            "candidates": [c.as_dict() for c in self.candidates[:limit]],
            # Rejected builds keep what says which and why, not their whole estimate.
            "rejected": [
                {
                    "accelerator": c.accelerator,
                    "server": c.server,
                    "count": c.count,
                    "nodes": c.nodes,
                    "failures": c.failures,
                    "reason": "; ".join(c.failures),
                }
                for c in self.rejected
            ],
            "evaluated": self.evaluated,
            "weights": self.weights,
        }


def _site_fit(question: PlanQuestion, server: ServerFacilitySpec, nodes: int) -> dict:
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


def _precision_for(workload: EstimateRequest, acc: AcceleratorSpec) -> tuple[str, bool]:
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
    weight = BYTES["fp32"] if workload.precision in ("fp32", "tf32") else BYTES["bf16"]
    master = BYTES["fp32"] if (workload.master_weights == "fp32" and weight < 4) else 0.0
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


def _ranking_key(c: Candidate) -> tuple:
    """Best overall score first; then faster, cheaper, and by name for a stable order."""
    return (
        -c.overall,
        c.estimate["time"]["seconds"],
        c.cost["tco"] or math.inf,
        c.accelerator,
        c.server,
        c.count,
    )


def _build_answer(
    question: PlanQuestion,
    option: AcceleratorOption,
    *,
    nodes: int,
    per_node: int,
    precision: str,
    answers: dict[tuple, dict | str],
) -> dict | str:
    """The estimate of one build as the contract's JSON, or why there is none. Builds that
    differ only in their server share one estimate (`answers` keeps them)."""
    count = nodes * per_node
    key = (option.slug, per_node, count, precision)
    if key in answers:
        return answers[key]
    floor = sharded_state_gib(question.workload, count)
    if floor > option.spec.memory_gib:
        answers[key] = (
            f"does not fit in memory (at least {floor:.1f} GiB per device for weights, "
            f"gradients and optimizer states, fully sharded, over {option.spec.memory_gib:g} GiB)"
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
    except ValueError as exc:  # no layout divides the batch over this count
        answers[key] = str(exc)
    return answers[key]


def _costed(
    question: PlanQuestion,
    server: ServerOption,
    option: AcceleratorOption,
    *,
    nodes: int,
    per_node: int,
    answer: dict,
) -> Candidate:
    """A build with an estimate, fitted into the site and costed; scores come later."""
    facility = server.facility[option.slug]
    site = _site_fit(question, facility, nodes)
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


def _builds(question: PlanQuestion) -> tuple[list[tuple[Candidate, dict]], list[Candidate]]:
    """Every build of the question's servers and the accelerators they take: those with an
    estimate (and what scoring needs to know of them), and those without one."""
    accelerators = {a.slug: a for a in question.accelerators}
    answers: dict[tuple, dict | str] = {}
    built: list[tuple[Candidate, dict]] = []
    unusable: list[Candidate] = []
    for server in question.servers:
        for slug in sorted(server.fits & accelerators.keys()):
            option = accelerators[slug]
            precision, native = _precision_for(question.workload, option.spec)
            for nodes, per_node in candidate_layouts(question, server.slots):
                answer = _build_answer(
                    question,
                    option,
                    nodes=nodes,
                    per_node=per_node,
                    precision=precision,
                    answers=answers,
                )
                if isinstance(answer, str):
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
                context = {"option": option, "facility": server.facility[slug], "native": native}
                built.append((candidate, context))
    return built, unusable


def recommend(question: PlanQuestion) -> Ranking:
    task = question.workload.task
    weights = scoring.normalised_weights(task, question.weights)
    built, unusable = _builds(question)
    best_memory = min((_memory_time_per_token(task, c) for c, _ in built), default=0.0)
    ranked, rejected = [], []
    for candidate, context in built:
        _score(candidate, context, task, best_memory, weights)
        candidate.failures = _hard_failures(question, candidate)
        (rejected if candidate.failures else ranked).append(candidate)
    ranked.sort(key=_ranking_key)
    rejected.extend(unusable)
    rejected.sort(key=lambda c: (c.accelerator, c.server, c.count))
    return Ranking(ranked, rejected, len(built) + len(unusable), weights)


def rerank(ranking: Ranking, task: str, weights: Mapping[str, float] | None) -> Ranking:
    """New weights, same candidates: only the overall score and the order change."""
    chosen = scoring.normalised_weights(task, weights)
    for c in ranking.candidates:
        c.overall = scoring.overall(c.scores, chosen)
    ordered = sorted(ranking.candidates, key=_ranking_key)
    return Ranking(ordered, ranking.rejected, ranking.evaluated, chosen)


def _memory_time_per_token(task: str, c: Candidate) -> float:
    """Seconds of memory-bound work per token on one device."""
    per_device = c.estimate["throughput"]["tokens_per_s_per_device"]
    if per_device <= 0:
        return math.inf
    if task == "inference":
        return 1 / per_device  # decode is memory-bound throughout
    parts = c.estimate["breakdown"]
    return parts["memory bandwidth"] / parts["step_s"] / per_device


def _score(candidate: Candidate, ctx: dict, task: str, best_memory: float, weights: dict) -> None:
    option: AcceleratorOption = ctx["option"]
    facility: ServerFacilitySpec = ctx["facility"]
    est = candidate.estimate
    mem, eff, par = est["memory"], est["efficiency"], est["parallelism"]
    results = {
        "memory_capacity": scoring.memory_capacity(
            need_gib=mem["per_device_gib"], capacity_gib=mem["capacity_gib"]
        ),
        "memory_bandwidth": scoring.memory_bandwidth(
            task=task,
            per_token_s=_memory_time_per_token(task, candidate),
            best_per_token_s=best_memory,
            bound_share=1 - eff["eta_mem"],
            bw_gb_s=option.spec.memory_bw_gb_s,
        ),
        "interconnect": scoring.interconnect(
            eta_interconnect=eff["eta_interconnect"],
            link=option.scale_up_link,
            tp=par["tp"],
            dp=par["dp"],
            nodes=candidate.nodes,
        ),
        "cooling": scoring.cooling(
            hostable=candidate.fit["hostable"],
            binding=candidate.fit["binding"],
            eta_thermal=candidate.fit["eta_thermal"],
            consumer_cooling=option.consumer_cooling or facility.open_air_cards,
            kw_per_u=facility.power_kw / max(facility.units, 1),
        ),
        "software": scoring.software(
            task=task,
            stack=option.software_stack,
            training=option.training_maturity,
            inference=option.inference_maturity,
            ecc=option.ecc,
            partitions=option.mig_instances,
            precision_native=ctx["native"],
        ),
    }
    candidate.scores = {k: round(v[0], 1) for k, v in results.items()}
    candidate.reasons = {k: v[1] for k, v in results.items()}
    candidate.overall = scoring.overall(candidate.scores, weights)


def _hard_failures(question: PlanQuestion, c: Candidate) -> list[str]:
    out = []
    est = c.estimate
    if not est["memory"]["fits"]:
        out.append(
            f"does not fit in memory ({est['memory']['per_device_gib']:.1f} of {est['memory']['capacity_gib']:g} GiB)"
        )
    if not c.fit["hostable"]:
        out.append(f"over the site's racks ({c.fit['binding']})")
    if (
        question.capex_budget is not None
        and c.cost["capex"] is not None
        and c.cost["capex"] > question.capex_budget
    ):
        out.append(f"over the capex budget ({c.cost['capex']:,.0f} > {question.capex_budget:,.0f})")
    if (
        question.tco_budget is not None
        and c.cost["tco"] is not None
        and c.cost["tco"] > question.tco_budget
    ):
        out.append(f"over the TCO budget ({c.cost['tco']:,.0f} > {question.tco_budget:,.0f})")
    if (
        question.deadline_days is not None
        and question.workload.task != "inference"
        and est["time"]["days"] > question.deadline_days
    ):
        out.append(
            f"misses the deadline ({est['time']['days']:.1f} > {question.deadline_days:g} days)"
        )
    if question.workload.task == "inference":
        inf = est["inference"]
        if question.ttft_ms is not None and inf["ttft_ms"] > question.ttft_ms:
            out.append(f"TTFT {inf['ttft_ms']:.0f} ms over the {question.ttft_ms:g} ms target")
        if question.tpot_ms is not None and inf["tpot_ms"] > question.tpot_ms:
            out.append(f"TPOT {inf['tpot_ms']:.1f} ms over the {question.tpot_ms:g} ms target")
        if question.target_rps is not None:
            output_len = max(question.workload.inference.output_len, 1)
            capacity = inf["decode_tokens_per_s"] / output_len
            c.estimate["capacity_rps"] = round(capacity, 3)
            if capacity < question.target_rps:
                out.append(f"serves {capacity:.1f} requests/s, short of {question.target_rps:g}")
    return out
