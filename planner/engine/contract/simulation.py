"""The simulation questions (`manage.py simulate`, `POST /api/v1/simulations/`): a training
campaign's Monte Carlo, a serving simulation under load, and a sweep of either over several
candidate workloads. The workload itself is an estimate question under "estimate", so a
simulation runs on exactly the throughput, memory and step times the estimate reports."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Discriminator, Field, RootModel, Tag, model_validator

from planner.engine.contract.base import (
    Count,
    NonNegative,
    PositiveFigure,
    Question,
    RequestError,
    Text,
    number,
    one_of,
    parse,
    problem,
    whole,
)
from planner.engine.contract.estimate import EstimateQuestion
from planner.engine.errors import gettext_noop as _
from planner.engine.simulate.question import (
    MAX_REQUESTS,
    MAX_SWEEP_CANDIDATES,
    MAX_TRIALS,
    CampaignParameters,
    ServingParameters,
    SimulationQuestion,
    SweepQuestion,
    serving_question,
    training_question,
)
from planner.engine.simulate.serving_spec import LengthDist
from planner.engine.specs import EstimateRequest

KINDS = ("training", "serving")
EstimateRequestOf = Callable[[Any], EstimateRequest]
Seed = Annotated[int, whole(ge=0, le=2**32 - 1)]


class TrainingSimulation(Question):
    """A training campaign's Monte Carlo: failures, restarts, checkpoints and throttling over
    the whole run, giving the completion-time distribution and goodput."""

    kind: Literal["training"]
    estimate: EstimateQuestion = Field(
        description="The workload: an estimate question (task train or finetune)"
    )
    seed: Seed = 0
    trials: Annotated[int, whole(ge=10, le=MAX_TRIALS)] = Field(
        10_000, description="Campaigns simulated"
    )
    checkpoint_gb_s: PositiveFigure | None = Field(
        None, description="Checkpoint write bandwidth, GB/s; default the estimate's reliability"
    )
    checkpoint_interval_s: Annotated[float, number(ge=1)] | None = Field(
        None, description="Seconds between checkpoints; default the best (Young/Daly checked)"
    )
    failures_per_gpu_hour: Annotated[float, number(ge=0, le=1)] | None = Field(
        None, description="Default the estimate's reliability"
    )
    detect_s: NonNegative = Field(60.0, description="Time to notice a failure, s")
    restart_s: NonNegative | None = Field(None, description="Default the estimate's reliability")
    throttle_episodes_per_hour: Annotated[float, number(ge=0, le=100)] = 0.0
    throttle_slowdown: Annotated[float, number(ge=0, le=0.99)] = Field(
        0.0, description="Share of speed lost while throttled"
    )
    throttle_mean_s: NonNegative = Field(0.0, description="Mean length of a throttling episode")
    straggler_slowdown: Annotated[float, number(ge=0, le=0.99)] = Field(
        0.0, description="Share of speed the slowest device costs every step"
    )

    def to_question(self, request: EstimateRequest) -> SimulationQuestion:
        if request.task == "inference":
            raise RequestError(
                "estimate.task", _("a training campaign needs a train or finetune workload")
            )
        return training_question(
            request,
            CampaignParameters(
                **self.same_named(
                    "seed trials checkpoint_gb_s checkpoint_interval_s failures_per_gpu_hour "
                    "restart_s"
                ),
                detect_s=float(self.detect_s),
                throttle_episodes_per_hour=float(self.throttle_episodes_per_hour),
                throttle_slowdown=float(self.throttle_slowdown),
                throttle_mean_s=float(self.throttle_mean_s),
                straggler_slowdown=float(self.straggler_slowdown),
            ),
        )


class Length(Question):
    """Token counts: "fixed" (value), "uniform" (lo..hi) or "lognormal" (mean, sigma, hi)."""

    kind: Annotated[
        Literal["fixed", "uniform", "lognormal"],
        BeforeValidator(one_of(("fixed", "uniform", "lognormal"))),
    ] = "fixed"
    value: Count | None = None
    mean: Annotated[float, number(ge=1)] | None = None
    lo: Count | None = None
    hi: Count | None = None
    sigma: Annotated[float, number(ge=0.01, le=5)] = 1.0

    @model_validator(mode="after")
    def _what_the_kind_needs(self) -> Length:
        needs = {"fixed": ("value",), "uniform": ("lo", "hi"), "lognormal": ("mean",)}
        for key in needs[self.kind]:
            if getattr(self, key) is None:
                raise problem(_("is required"), at=key)
        if self.kind == "uniform" and (self.hi or 0) < (self.lo or 0):
            raise problem(
                _("must be at least {bound}, not {value}"), at="hi", bound=self.lo, value=self.hi
            )
        return self

    def dist(self) -> LengthDist:
        if self.kind == "fixed":
            return LengthDist.fixed(int(self.value or 1))
        if self.kind == "uniform":
            return LengthDist.uniform(int(self.lo or 1), int(self.hi or 1))
        return LengthDist.lognormal(float(self.mean or 1), float(self.sigma), hi=self.hi)


def _length_kind(value: Any) -> str:
    return (
        "#number" if isinstance(value, int | float) and not isinstance(value, bool) else "#object"
    )


LengthOrTokens = Annotated[
    Annotated[Count, Tag("#number")] | Annotated[Length, Tag("#object")],
    Discriminator(_length_kind),
]


class ReplicaSearch(Question):
    """Find the fewest replicas that serve the target rate within the SLOs."""

    target_rate: PositiveFigure | None = Field(
        None, description="Requests per second to sustain; default rate_per_s"
    )
    max_replicas: Annotated[int, whole(ge=1, le=4096)] = 64
    attainment: Annotated[float, number(ge=0.5, le=1)] = Field(
        0.99, description="Share of requests that must meet the SLOs"
    )


class ServingSimulation(Question):
    """Serving under load: arrivals, prompt and output lengths, continuous batching under a
    paged KV-cache budget, giving throughput, TTFT/TPOT percentiles and SLO attainment."""

    kind: Literal["serving"]
    estimate: EstimateQuestion = Field(
        description="The workload: an estimate question (task inference)"
    )
    seed: Seed = 0
    rate_per_s: Annotated[float, number(ge=0.001, le=1e6)] = Field(
        description="Arrivals per second"
    )
    arrival: Annotated[
        Literal["poisson", "bursty"], BeforeValidator(one_of(("poisson", "bursty")))
    ] = "poisson"
    prompt: LengthOrTokens | None = Field(None, description="Default the estimate's prompt_len")
    output: LengthOrTokens | None = Field(None, description="Default the estimate's output_len")
    replicas: Annotated[int, whole(ge=1, le=10_000)] | None = Field(
        None, description="Default: the estimate's devices over its tensor-parallel group"
    )
    requests: Annotated[int, whole(ge=10, le=MAX_REQUESTS)] | None = Field(
        None, description="Requests simulated (default 20,000); or give duration_s"
    )
    duration_s: Annotated[float, number(ge=1, le=86_400)] | None = Field(
        None, description="Seconds of arrivals"
    )
    ttft_slo_ms: PositiveFigure | None = None
    tpot_slo_ms: PositiveFigure | None = None
    max_batch: Annotated[int, whole(ge=1, le=4096)] = Field(
        256, description="Sequences a replica runs at once"
    )
    search: ReplicaSearch | None = None

    @model_validator(mode="after")
    def _consistent(self) -> ServingSimulation:
        if self.requests is not None and self.duration_s is not None:
            raise problem(_("give requests or duration_s, not both"), at="requests")
        if self.search is not None and self.ttft_slo_ms is None and self.tpot_slo_ms is None:
            raise problem(_("needs ttft_slo_ms or tpot_slo_ms to aim for"), at="search")
        return self

    def to_question(self, request: EstimateRequest) -> SimulationQuestion:
        if request.task != "inference":
            raise RequestError(
                "estimate.task", _("a serving simulation needs an inference workload")
            )

        def length(value: int | Length | None, default: int) -> LengthDist:
            if value is None:
                return LengthDist.fixed(default)
            return LengthDist.fixed(value) if isinstance(value, int) else value.dist()

        search = None
        if self.search is not None:
            search = {
                "target_rate": float(self.search.target_rate or self.rate_per_s),
                "max_replicas": self.search.max_replicas,
                "attainment": float(self.search.attainment),
            }
        return serving_question(
            request,
            ServingParameters(
                seed=self.seed,
                rate_per_s=float(self.rate_per_s),
                arrival=self.arrival,
                prompt=length(self.prompt, request.inference.prompt_len),
                output=length(self.output, request.inference.output_len),
                replicas=self.replicas,
                requests=self.requests
                if self.requests is not None or self.duration_s is not None
                else 20_000,
                duration_s=None if self.duration_s is None else float(self.duration_s),
                ttft_slo_ms=self.ttft_slo_ms,
                tpot_slo_ms=self.tpot_slo_ms,
                max_batch=self.max_batch,
                search=search,
            ),
        )


def _estimate(data: Mapping[str, Any], estimate_request_of: EstimateRequestOf) -> EstimateRequest:
    if data.get("estimate") is None:
        raise RequestError("estimate", _("is required: the workload as an estimate question"))
    try:
        return estimate_request_of(data["estimate"])
    except RequestError as exc:
        raise exc.under("estimate") from None


def simulation_from_dict(
    data: Any, *, estimate_request_of: EstimateRequestOf
) -> SimulationQuestion:
    """A training or serving question, validated, its workload estimated and its step model
    fitted; `RequestError` names the field at fault."""
    if not isinstance(data, Mapping):
        raise RequestError("request", _("must be an object"))
    kind = data.get("kind")
    if kind is None:
        raise RequestError("kind", _("is required: training or serving"))
    if kind not in KINDS:
        raise RequestError(
            "kind",
            _("must be one of {options}, not {value}"),
            options=", ".join(KINDS),
            value=repr(kind),
        )
    request = _estimate(data, estimate_request_of)
    if kind == "training":
        return parse(TrainingSimulation, data).to_question(request)
    return parse(ServingSimulation, data).to_question(request)


class SweepSimulation(Question):
    """The same simulation over several candidate workloads (a plan's top builds, say)."""

    kind: Literal["sweep"]
    simulation: dict[str, Any] = Field(
        description="A training or serving question without its estimate"
    )
    candidates: list[dict[str, Any]] = Field(
        description=f"2 to {MAX_SWEEP_CANDIDATES} estimate questions, one per candidate"
    )
    labels: list[Text] | None = Field(None, description="One label per candidate")


def sweep_from_dict(data: Any, *, estimate_request_of: EstimateRequestOf) -> SweepQuestion:
    """{"kind": "sweep", "simulation": {...}, "candidates": [...], "labels": [...]?}; each part
    is checked as the question it becomes."""
    if not isinstance(data, Mapping):
        raise RequestError("request", _("must be an object"))
    unknown = sorted(set(data) - {"kind", "simulation", "candidates", "labels"})
    if unknown:
        raise RequestError(unknown[0], _("is not a known field"))
    base = data.get("simulation")
    if not isinstance(base, Mapping):
        raise RequestError("simulation", _("must be an object"))
    if "estimate" in base:
        raise RequestError("simulation.estimate", _("goes in candidates, one per workload"))
    candidates = data.get("candidates")
    if not isinstance(candidates, list) or not 2 <= len(candidates) <= MAX_SWEEP_CANDIDATES:
        raise RequestError(
            "candidates",
            _("must be a list of 2 to {most} estimate questions"),
            most=MAX_SWEEP_CANDIDATES,
        )
    labels = data.get("labels") or [f"candidate {i + 1}" for i in range(len(candidates))]
    if (
        not isinstance(labels, list)
        or len(labels) != len(candidates)
        or not all(isinstance(x, str) for x in labels)
    ):
        raise RequestError("labels", _("must be one string per candidate"))
    parts = []
    for i, candidate in enumerate(candidates):
        part = {**base, "estimate": candidate}
        try:
            simulation_from_dict(part, estimate_request_of=estimate_request_of)
        except RequestError as exc:
            field = (
                exc.field.replace("estimate", f"candidates[{i}]", 1)
                if exc.field.startswith("estimate")
                else f"simulation.{exc.field}"
            )
            raise exc.at(field) from None
        parts.append(part)
    return SweepQuestion(tuple(parts), tuple(labels))


def _kind(value: Any) -> str:
    kind = value.get("kind") if isinstance(value, Mapping) else None
    return kind if kind in ("training", "serving", "sweep") else "training"


class SimulationRequest(
    RootModel[
        Annotated[
            Annotated[TrainingSimulation, Tag("training")]
            | Annotated[ServingSimulation, Tag("serving")]
            | Annotated[SweepSimulation, Tag("sweep")],
            Discriminator(_kind),
        ]
    ]
):
    """What `POST /api/v1/simulations/` takes: a training, serving or sweep question."""
