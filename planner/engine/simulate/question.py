"""A simulation question once validated: the workload's estimate request and the parameters of
the run, turned into the engine's campaign or serving spec and run. The contract
(`planner.engine.contract.simulation`) declares and validates the JSON; this builds and runs."""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from planner.engine.errors import RequestError
from planner.engine.errors import gettext_noop as _
from planner.engine.estimate import estimate
from planner.engine.replica import (
    engine_tp,
    kv_budget_tokens_from_engine,
    step_model_from_engine,
)
from planner.engine.shapes import lora_params
from planner.engine.simulate.serving import replicas_for_slo, simulate_serving
from planner.engine.simulate.serving_spec import LengthDist, ServingSpec, Slo
from planner.engine.simulate.training import CampaignSpec, simulate_campaign
from planner.engine.specs import BYTES, EstimateRequest

MAX_TRIALS = 100_000
MAX_REQUESTS = 2_000_000
MAX_SWEEP_CANDIDATES = 16
# A checkpoint holds bf16 weights plus fp32 master weights and two Adam moments: 14 bytes per
# parameter (LoRA: only the adapters).
CHECKPOINT_BYTES_PER_PARAM = BYTES["bf16"] + 12


def inputs_hash(data: Mapping[str, Any]) -> str:
    """Same question, same hash: keys sorted, no whitespace."""
    return hashlib.sha256(
        json.dumps(data, sort_keys=True, separators=(",", ":")).encode()
    ).hexdigest()


@dataclass(frozen=True)
class SimulationQuestion:
    kind: str
    spec: Any  # CampaignSpec or ServingSpec
    search: dict[str, Any] | None  # serving: {"target_rate", "max_replicas", "attainment"}
    estimate_request: EstimateRequest

    def run(self, progress: Callable[[float], None] | None = None) -> dict[str, Any]:
        if self.kind == "training":
            return {"kind": "training", **simulate_campaign(self.spec, progress=progress).as_dict()}
        report = progress or (lambda _f: None)
        if not self.search:
            return {"kind": "serving", **simulate_serving(self.spec, progress=report).as_dict()}
        run = simulate_serving(self.spec, progress=lambda f: report(0.5 * f))
        found = replicas_for_slo(
            self.spec,
            target_rate=self.search["target_rate"],
            slo=Slo(self.spec.ttft_slo_ms, self.spec.tpot_slo_ms),
            max_replicas=self.search["max_replicas"],
            attainment=self.search["attainment"],
            progress=lambda f: report(0.5 + 0.5 * f),
        )
        tp = self.spec.step.tp
        search = {
            "target_rate": self.search["target_rate"],
            "replicas": found.replicas,
            "devices": None if found.replicas is None else found.replicas * tp,
            "devices_per_replica": tp,
            "attainment": found.attainment,
            "tried": [{"replicas": r, "attainment": a} for r, a in found.tried],
        }
        return {"kind": "serving", **run.as_dict(), "replica_search": search}


@dataclass(frozen=True)
class CampaignParameters:
    """A campaign's settings; None takes the workload's reliability figures."""

    seed: int
    trials: int
    checkpoint_gb_s: float | None
    checkpoint_interval_s: float | None
    failures_per_gpu_hour: float | None
    detect_s: float
    restart_s: float | None
    throttle_episodes_per_hour: float
    throttle_slowdown: float
    throttle_mean_s: float
    straggler_slowdown: float


def training_question(request: EstimateRequest, p: CampaignParameters) -> SimulationQuestion:
    """The campaign of one training workload: its work in seconds from the estimate's
    throughput, its checkpoint write time from the trainable state and storage bandwidth."""
    try:
        tokens_per_s = estimate(request).throughput["tokens_per_s"]
    except ValueError as exc:  # no layout divides the batch over these devices
        raise RequestError(
            "estimate.global_batch",
            _("no parallel layout divides the global batch; change global_batch or count"),
        ) from exc
    if tokens_per_s <= 0 or not math.isfinite(tokens_per_s):
        raise RequestError("estimate", _("the workload has no throughput to simulate"))
    params = request.model.params
    if request.method != "full":
        params = lora_params(request)
    rel = request.reliability
    checkpoint_gb_s = (
        p.checkpoint_gb_s if p.checkpoint_gb_s is not None else request.checkpoint_gb_s
    )
    spec = CampaignSpec(
        devices=request.count,
        work_s=request.tokens / tokens_per_s,
        checkpoint_write_s=params * CHECKPOINT_BYTES_PER_PARAM / (checkpoint_gb_s * 1e9),
        failures_per_gpu_hour=float(
            p.failures_per_gpu_hour
            if p.failures_per_gpu_hour is not None
            else rel.failures_per_gpu_hour
        ),
        detect_s=p.detect_s,
        restart_s=float(p.restart_s if p.restart_s is not None else rel.restart_s),
        checkpoint_interval_s=p.checkpoint_interval_s,
        throttle_episodes_per_hour=p.throttle_episodes_per_hour,
        throttle_slowdown=p.throttle_slowdown,
        throttle_mean_s=p.throttle_mean_s,
        straggler_slowdown=p.straggler_slowdown,
        trials=p.trials,
        seed=p.seed,
    )
    return SimulationQuestion("training", spec, None, request)


@dataclass(frozen=True)
class ServingParameters:
    """A serving run's settings; `replicas` None: the estimate's devices over its group."""

    seed: int
    rate_per_s: float
    arrival: Literal["poisson", "bursty"]
    prompt: LengthDist
    output: LengthDist
    replicas: int | None
    requests: int | None
    duration_s: float | None
    ttft_slo_ms: float | None
    tpot_slo_ms: float | None
    max_batch: int
    search: dict[str, Any] | None


def serving_question(request: EstimateRequest, p: ServingParameters) -> SimulationQuestion:
    """A serving run on the estimate's own step times and KV-cache budget."""
    tp = engine_tp(request)
    spec = ServingSpec(
        rate_per_s=p.rate_per_s,
        step=step_model_from_engine(request, tp=tp),
        kv_budget_tokens=kv_budget_tokens_from_engine(request, tp=tp),
        prompt=p.prompt,
        output=p.output,
        arrival=p.arrival,
        replicas=p.replicas if p.replicas is not None else max(request.count // tp, 1),
        max_batch=p.max_batch,
        n_requests=p.requests,
        duration_s=p.duration_s,
        ttft_slo_ms=p.ttft_slo_ms,
        tpot_slo_ms=p.tpot_slo_ms,
        seed=p.seed,
    )
    if spec.kv_budget_tokens <= 0:
        raise RequestError(
            "estimate", _("the model's weights leave no memory for a KV cache on this accelerator")
        )
    return SimulationQuestion("serving", spec, p.search, request)


@dataclass(frozen=True)
class SweepQuestion:
    """The same simulation over several candidate workloads (a plan's top builds, say)."""

    parts: tuple[dict[str, Any], ...]  # one training or serving question per candidate
    labels: tuple[str, ...]


# Figures a sweep's comparison table shows, by kind of part.
SWEEP_SUMMARY = {
    "training": ("completion_days", "goodput", "failures_mean"),
    "serving": ("throughput_rps", "ttft_ms", "tpot_ms", "slo"),
}


def sweep_summary(
    labels: Sequence[str], parts: Sequence[Mapping[str, Any] | None]
) -> list[dict[str, Any]]:
    rows = []
    for label, result in zip(labels, parts, strict=True):
        row: dict[str, Any] = {"label": label}
        if result:
            kind = str(result.get("kind"))
            row.update({key: result.get(key) for key in SWEEP_SUMMARY.get(kind, ())})
        rows.append(row)
    return rows
