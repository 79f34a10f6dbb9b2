"""What the engine answers, declared for the OpenAPI document and held to the real answers by
tests (tests/engine/test_contract_answers.py): every section with its units.

Sentences (warnings, explanations, reasons, the bottleneck) come in the request's language;
`messages` carries each of them as a code with parameters, for programs."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, RootModel

from planner.engine.contract.base import Answer


class Message(Answer):
    """One sentence of the answer as a program reads it: where it stands in the answer, a stable
    code, and the figures it quotes."""

    field: str = Field(description='Where the sentence stands: "warnings", "explanations.eta_mem"')
    code: str = Field(description="Stable identifier of the sentence, e.g. fit.does_not_fit")
    params: dict[str, Any] = Field(description="The figures and names the sentence quotes")


class Memory(Answer):
    """Memory per device, GiB (2^30 bytes, as nvidia-smi and vendor capacities)."""

    per_device_gib: float = Field(description="Peak memory the busiest device needs")
    weights_gib: float
    gradients_gib: float
    optimizer_gib: float
    activations_gib: float
    kv_cache_gib: float
    overhead_gib: float = Field(description="CUDA context, NCCL buffers, fragmentation")
    capacity_gib: float = Field(description="The device's memory")
    fits: bool


class Layout(Answer):
    """The parallel layout chosen (or given)."""

    tp: int = Field(description="Tensor-parallel degree")
    pp: int = Field(description="Pipeline stages")
    dp: int = Field(description="Data-parallel degree (inference: replicas)")
    cp: int = Field(description="Context-parallel degree")
    vp: int = Field(description="Virtual pipeline stages per device")
    ep: int = Field(
        1, description="Expert-parallel degree: ranks the routed experts are spread over (MoE)"
    )
    micro_batch: int = Field(description="Sequences per micro-batch (inference: the batch)")
    zero_stage: int
    recompute: Literal["none", "selective", "full"]


class GlobalBatch(Answer):
    """Training: the global batch the step runs with, given by the question or chosen with the
    layout, and the range for the model's size ("M" tokens count 2^20, as the papers do)."""

    global_batch: int = Field(description="Sequences per optimizer step")
    tokens_per_step: int = Field(description="global_batch x seq_len")
    chosen: bool = Field(description="True when the question gave none and the search chose it")
    searched: list[int] = Field(description="The batches (sequences) tried; empty when given")
    min_tokens: int = Field(description="Low end of the range for the model's size, tokens")
    max_tokens: int = Field(description="High end of the range for the model's size, tokens")
    sources: list[str] = Field(description="The published runs the range comes from")


class Throughput(Answer):
    tokens_per_s: float = Field(description="Tokens per second, all devices")
    tokens_per_s_per_device: float
    model_tflops_per_device: float = Field(description="Model FLOPs only (6N + attention)")
    mfu: float = Field(description="Model FLOPs utilisation of the dense peak, 0-1")


class Time(Answer):
    seconds: float = Field(description="Wall time for the tokens (inference: one batch)")
    days: float


class InferenceFigures(Answer):
    prefill_tokens_per_s: float
    decode_tokens_per_s: float
    ttft_ms: float = Field(description="Time to first token")
    tpot_ms: float = Field(description="Time per output token")
    max_batch_per_replica: int | None = Field(
        None,
        description="Serving: the most requests one replica runs at once at the question's "
        "prompt and output lengths (paged KV cache, 16-token blocks)",
    )
    kv_budget_gib: float | None = Field(
        None,
        description="Serving: memory per device left for the KV cache after the weights, "
        "activations, runtime and allocator reserve, GiB",
    )
    kv_per_sequence_gib: float | None = Field(
        None, description="Serving: the KV cache one request holds per device, GiB"
    )


class Efficiency(Answer):
    """The seeds' loss factors: effective compute = peak x the product of these."""

    eta_mem: float
    eta_interconnect: float
    eta_sched: float
    eta_thermal: float
    eta_fault: float


class Search(Answer):
    evaluated: int = Field(description="Layouts sized and timed")
    feasible: int = Field(description="Layouts that fit in memory")
    searched: bool = Field(description="False when the question fixed the layout")


class CalibrationUsed(Answer):
    profile: str
    measured: list[str] = Field(description="Figures measured rather than taken from datasheets")
    step_efficiency: float


class Band(Answer):
    """How far the engine's figure has been from measured runs like the question: the
    median (p50) and 90th-percentile (p90) relative error of the closest group of validation
    rows (planner/validation/bands.json, made by `manage.py bands`)."""

    job: Literal["training", "inference", "*"] = Field(
        description='The job of the rows; "*" when rows of every job answer'
    )
    metric: Literal["throughput", "memory", "decode", "prefill"]
    framework: str | None = Field(
        description="The framework of the rows; null when rows of every framework answer"
    )
    rows: int = Field(description="Rows the band comes from")
    held_out: bool = Field(
        description="True: rows the engine's constants were never set on; false: the group "
        "has too few such rows and its calibration rows count too"
    )
    p50_pct: float = Field(description="Half the rows were off by at most this, %")
    p90_pct: float = Field(description="Nine rows in ten were off by at most this, %")
    sources: list[str] = Field(description="The publications or measurement sets of the rows")
    engine_version: str = Field(description="The engine version the rows were replayed with")


class Uncertainty(Answer):
    """A band beside each figure: training answers judge throughput (and the time it
    gives) and memory; inference answers decode (TPOT), prefill (TTFT) and memory. Null where
    no validation row measures the figure."""

    job: Literal["training", "inference"]
    throughput: Band | None = None
    memory: Band | None = None
    decode: Band | None = None
    prefill: Band | None = None


class EstimateFigures(Answer):
    """The sections every estimate answers with, a candidate's too: memory, layout, throughput,
    time, the inference figures and the efficiency factors."""

    memory: Memory
    parallelism: Layout
    throughput: Throughput
    time: Time
    inference: InferenceFigures
    efficiency: Efficiency


class EstimateAnswer(EstimateFigures):
    """Memory, layout, throughput, time and the efficiency factors of one job on one build."""

    explanations: dict[str, str] = Field(
        description="Why each eta factor is what it is, the software stack the figures are for "
        "(stack), and (training) why the global batch"
    )
    bottleneck: str = Field(description="What binds, in the request's language")
    warnings: list[str]
    breakdown: dict[str, float] = Field(
        description="Training: the step's seconds by part; inference: prefill, decode step, replicas"
    )
    search: Search
    calibration: CalibrationUsed | None = None
    batch: GlobalBatch | None = Field(None, description="Training: the global batch and its range")
    model_version: str = Field(description="The engine version that answered")
    messages: list[Message] = Field(default_factory=list)
    uncertainty: Uncertainty | None = Field(
        None,
        description="Each figure's error band from the measured runs closest to the question "
        "(job, framework and figure); the API and pages always give it",
    )


class FitLimits(Answer):
    """Servers per rack each limit allows; weight is null when the server's weight is unknown."""

    power: int
    cooling: int
    units: int
    weight: int | None


class FitAnswer(Answer):
    """Servers per rack, the limit that binds, racks needed, energy and thermal derating."""

    servers_per_rack: int
    racks_needed: int | None = Field(description="Null when no server fits in the rack")
    binding: Literal["power", "cooling", "units", "weight", "cooling type"]
    limits: FitLimits
    it_power_kw: float
    facility_power_kw: float = Field(description="IT power x PUE")
    yearly_energy_kwh: float = Field(description="Facility power x 8,760 h")
    yearly_energy_cost: float | None = Field(description="Null without price_per_kwh")
    eta_thermal: float = Field(description="Share of sustained clocks kept")
    warnings: list[str]
    messages: list[Message] = Field(default_factory=list)


class GroupFill(Answer):
    group: str
    racks: int
    servers_per_rack: int
    binding: str


class CandidateFit(FitAnswer):
    """The build in the site: its rack groups filled, the best first."""

    hostable: bool
    site: bool = Field(description="False when the question named no site")
    groups: list[GroupFill]
    binding: str | None  # type: ignore[assignment]


class CostLine(Answer):
    """One line of a build's cost and the price it uses, or "missing" where there is none."""

    item: Literal[
        "accelerator",
        "server",
        "system",
        "nic",
        "switch_port",
        "cable",
        "transceiver",
        "rack",
        "rent",
    ] = Field(description="What the line is for; rent: accelerator-hours of the job")
    name: str = Field(description="Catalog slug or item name")
    quantity: int
    origin: Literal["team", "reference", "question", "missing"] = Field(
        description="A team's own price, the reference list, a rate given in the question, or none"
    )
    unit: float | None = Field(description="Per unit (rent: per accelerator-hour), plan currency")
    amount: float | None = Field(description="quantity x unit")
    source: str | None = Field(None, description="URL or quote reference of the price")
    price_id: int | None = Field(None, description="The price row: /api/v1/prices/{id}/")
    price_date: str | None = Field(None, description="The date the source gives, ISO")
    currency: str | None = Field(None, description="The price's own currency")
    own_unit: float | None = Field(None, description="The unit price in its own currency")
    stale: bool | None = Field(None, description="More than a year old")
    expired: bool | None = Field(None, description="Past its valid-until day")
    provider: str | None = Field(None, description="Rent: who rents it out")


class Cost(Answer):
    """Amounts in the plan's currency; each line names its price."""

    basis: Literal["tco", "rent"] | None = Field(
        description="What `amount` is: the TCO where purchase prices exist, else the rent of "
        "the job; null: no price. The cost objective ranks every TCO before any rent"
    )
    amount: float | None = Field(description="The build's cost as the ranking reads it")
    capex: float | None = Field(description="Null when a card, server or system has no price")
    tco: float | None = Field(description="Capex + years x (support + energy)")
    years: float
    support_per_year: float | None
    depreciation_per_year: float | None = Field(
        description="Capex over each price's depreciation years (default 5)"
    )
    energy_kwh_per_year: float = Field(description="At the facility meter, busy and idle")
    energy_per_year: float | None = Field(description="Null without an electricity price")
    busy_share: float = Field(description="Share of the horizon the fleet is busy, 0-1")
    usage: str = Field(description="How the busy share was found")
    rent_per_gpu_hour: float | None
    rent_job: float | None = Field(
        description="Renting the same devices for the job (serving: for the horizon)"
    )
    rent_per_year: float | None = Field(description="The busy hours of a year, rented")
    rent_line: CostLine | None
    breakeven_months: float | None = Field(description="When buying overtakes renting")
    lines: list[CostLine]
    missing: list[str] = Field(description="Items without a price")
    tokens_per_joule: float | None = Field(None, description="Tokens per joule of IT power")
    notes: list[str]


class ServingLayout(Answer):
    """Serving at a target rate: the layout that serves the most requests/s within the TTFT
    and TPOT bounds (met by 99 % of requests), and that rate."""

    tp: int = Field(description="Accelerators per replica (tensor parallelism)")
    batch_per_replica: int = Field(description="Requests a replica runs at once, at most")
    max_batch_per_replica: int = Field(description="What the KV cache holds")
    replicas: int
    capacity_rps: float = Field(description="Requests per second within the bounds")
    ttft_ms: float | None = Field(description="99th-percentile time to first token there")
    tpot_ms: float | None = Field(description="99th-percentile time per output token there")
    binding: Literal["ttft", "tpot", "batch", "saturation"] = Field(
        description="What stops a higher rate"
    )
    why: str = Field(description="The layout and its rate in one sentence")
    target_rps: float | None = Field(None, description="The question's rate")
    target_ttft_ms: float | None = Field(
        None,
        description="99th-percentile time to first token at the question's rate, spread "
        "evenly over the replicas (none when the build cannot serve it)",
    )
    target_tpot_ms: float | None = Field(
        None, description="99th-percentile time per output token at the question's rate"
    )


class CandidateEstimate(EstimateFigures):
    """The estimate of a candidate, without its explanations and layout search."""

    bottleneck: str
    warnings: list[str]
    breakdown: dict[str, float]
    calibration: CalibrationUsed | None = None
    batch: GlobalBatch | None = Field(None, description="Training: the global batch and its range")
    model_version: str
    capacity_rps: float | None = Field(None, description="Serving: requests per second")
    serving: ServingLayout | None = Field(
        None, description="Serving at a target rate: the layout searched and its rate"
    )
    messages: list[Message] = Field(default_factory=list)


class Scores(Answer):
    """The five dimensions, 0-100 each."""

    memory_capacity: float
    memory_bandwidth: float
    interconnect: float
    cooling: float
    software: float


class Reasons(Answer):
    memory_capacity: str
    memory_bandwidth: str
    interconnect: str
    cooling: str
    software: str


class Candidate(Answer):
    """One build: an accelerator in a server, this many of them."""

    accelerator: str
    server: str
    count: int
    nodes: int = Field(description="Servers")
    estimate: CandidateEstimate
    fit: CandidateFit
    cost: Cost
    scores: Scores
    reasons: Reasons
    overall: float = Field(description="The five scores weighted")
    failures: list[str]
    messages: list[Message] = Field(default_factory=list)


class Rejected(Answer):
    """A build that breaks a hard constraint, and which."""

    accelerator: str
    server: str
    count: int
    nodes: int
    failures: list[str]
    reason: str
    messages: list[Message] = Field(default_factory=list)


class RejectedBuilds(RootModel[list[Rejected]]):
    """The builds that break a hard constraint, and which."""


class Exchange(Answer):
    """The rate prices in another currency were converted at."""

    cny_per_usd: float
    date: str


class PlanAnswer(Answer):
    """Every build that suits the workload, ranked, and those that break a hard constraint."""

    candidates: list[Candidate]
    rejected: list[Rejected]
    evaluated: int
    weights: dict[str, float] = Field(description="The five weights used, summing to 1")
    currency: Literal["USD", "CNY"]
    exchange: Exchange | None = None
    objective: str = Field("cost", description="What ranked the viable builds")
    why_first: str | None = Field(None, description="Why the first build is first")
    model_version: str
    why_none: str | None = None


class RankedCandidate(Candidate):
    """A candidate in a ranking re-ordered by weights."""

    rank: int = Field(description="1 = best under the weights used")
    id: int = Field(description="The same build whatever the weights")


class WeightsUsed(Answer):
    """The five weights on the 0-100 scale."""

    memory_capacity: float
    memory_bandwidth: float
    interconnect: float
    cooling: float
    software: float


class CandidatePage(Answer):
    """One page of a plan's viable builds, ordered under the weights given."""

    count: int = Field(description="Viable builds in all")
    page: int
    page_size: int
    next: str | None
    previous: str | None
    weights: WeightsUsed
    objective: str = Field(description="What ranked the builds")
    why_first: str | None = Field(description="Why the first build is first")
    results: list[RankedCandidate]
