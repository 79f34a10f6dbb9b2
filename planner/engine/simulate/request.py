"""A simulation question (JSON) turned into an engine spec, or a `RequestError` naming the
field. The workload itself is an estimate question under "estimate", so a simulation runs on
exactly the throughput, memory and step times the estimate reports."""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from planner.engine.estimate import estimate
from planner.engine.request import RequestError, _choice, _mapping, _number, _unknown_keys
from planner.engine.simulate.engine_fit import (
    engine_tp,
    kv_budget_tokens_from_engine,
    step_model_from_engine,
)
from planner.engine.simulate.serving import (
    LengthDist,
    ServingSpec,
    Slo,
    replicas_for_slo,
    simulate_serving,
)
from planner.engine.simulate.training import CampaignSpec, simulate_campaign
from planner.engine.specs import BYTES, EstimateRequest

KINDS = ("training", "serving")  # a "sweep" fans these out (sweep_from_dict)
MAX_TRIALS = 100_000
MAX_REQUESTS = 2_000_000
# A checkpoint holds bf16 weights plus fp32 master weights and two Adam moments: 14 bytes per
# parameter (LoRA: only the adapters).
CHECKPOINT_BYTES_PER_PARAM = BYTES["bf16"] + 12


def inputs_hash(data: Mapping) -> str:
    """Same question, same hash: keys sorted, no whitespace."""
    return hashlib.sha256(
        json.dumps(data, sort_keys=True, separators=(",", ":")).encode()
    ).hexdigest()


@dataclass(frozen=True)
class SimulationQuestion:
    kind: str
    spec: Any  # CampaignSpec or ServingSpec
    search: dict | None  # serving: {"target_rate", "max_replicas", "attainment"}
    estimate_request: EstimateRequest

    def run(self, progress: Callable[[float], None] | None = None) -> dict:
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


def _length(data, path: str, default: int) -> LengthDist:
    if data is None:
        return LengthDist.fixed(default)
    if isinstance(data, int | float) and not isinstance(data, bool):
        return LengthDist.fixed(int(_number({"v": data}, "v", path, integer=True, minimum=1)))
    d = _mapping(data, path)
    _unknown_keys(d, {"kind", "value", "mean", "lo", "hi", "sigma"}, path)
    kind = _choice(d, "kind", f"{path}.kind", ("fixed", "uniform", "lognormal"), "fixed")
    if kind == "fixed":
        return LengthDist.fixed(
            _number(d, "value", f"{path}.value", integer=True, minimum=1, required=True)
        )
    if kind == "uniform":
        lo = _number(d, "lo", f"{path}.lo", integer=True, minimum=1, required=True)
        hi = _number(d, "hi", f"{path}.hi", integer=True, minimum=lo, required=True)
        return LengthDist.uniform(lo, hi)
    return LengthDist.lognormal(
        float(_number(d, "mean", f"{path}.mean", minimum=1, required=True)),
        float(_number(d, "sigma", f"{path}.sigma", minimum=0.01, maximum=5, default=1.0)),
        hi=_number(d, "hi", f"{path}.hi", integer=True, minimum=1),
    )


def simulation_from_dict(
    data: Any, *, estimate_request_of: Callable[[Any], EstimateRequest]
) -> SimulationQuestion:
    data = _mapping(data, "request")
    kind = _choice(data, "kind", "kind", KINDS)
    if kind is None:
        raise RequestError("kind", "is required: training or serving")
    if "estimate" not in data:
        raise RequestError("estimate", "is required: the workload as an estimate question")
    try:
        request = estimate_request_of(data["estimate"])
    except RequestError as exc:
        raise RequestError(f"estimate.{exc.field}", exc.message) from None
    seed = _number(data, "seed", "seed", integer=True, minimum=0, maximum=2**32 - 1, default=0)

    if kind == "training":
        _unknown_keys(
            data,
            {
                "kind",
                "estimate",
                "seed",
                "trials",
                "checkpoint_gb_s",
                "checkpoint_interval_s",
                "failures_per_gpu_hour",
                "detect_s",
                "restart_s",
                "throttle_episodes_per_hour",
                "throttle_slowdown",
                "throttle_mean_s",
                "straggler_slowdown",
            },
            "",
        )
        if request.task == "inference":
            raise RequestError(
                "estimate.task", "a training campaign needs a train or finetune workload"
            )
        answer = estimate(request)
        tokens_per_s = answer.throughput["tokens_per_s"]
        if tokens_per_s <= 0 or not math.isfinite(tokens_per_s):
            raise RequestError("estimate", "the workload has no throughput to simulate")
        params = request.model.params
        if request.method != "full":
            params = 7 * request.lora_rank * 2 * request.model.hidden * request.model.layers
        checkpoint_gb_s = float(
            _number(
                data,
                "checkpoint_gb_s",
                "checkpoint_gb_s",
                minimum=0.001,
                default=request.reliability.checkpoint_gb_s,
            )
        )
        spec = CampaignSpec(
            devices=request.count,
            work_s=request.tokens / tokens_per_s,
            checkpoint_write_s=params * CHECKPOINT_BYTES_PER_PARAM / (checkpoint_gb_s * 1e9),
            failures_per_gpu_hour=float(
                _number(
                    data,
                    "failures_per_gpu_hour",
                    "failures_per_gpu_hour",
                    minimum=0,
                    maximum=1,
                    default=request.reliability.failures_per_gpu_hour,
                )
            ),
            detect_s=float(_number(data, "detect_s", "detect_s", minimum=0, default=60.0)),
            restart_s=float(
                _number(
                    data, "restart_s", "restart_s", minimum=0, default=request.reliability.restart_s
                )
            ),
            checkpoint_interval_s=_number(
                data, "checkpoint_interval_s", "checkpoint_interval_s", minimum=1
            ),
            throttle_episodes_per_hour=float(
                _number(
                    data,
                    "throttle_episodes_per_hour",
                    "throttle_episodes_per_hour",
                    minimum=0,
                    maximum=100,
                    default=0.0,
                )
            ),
            throttle_slowdown=float(
                _number(
                    data,
                    "throttle_slowdown",
                    "throttle_slowdown",
                    minimum=0,
                    maximum=0.99,
                    default=0.0,
                )
            ),
            throttle_mean_s=float(
                _number(data, "throttle_mean_s", "throttle_mean_s", minimum=0, default=0.0)
            ),
            straggler_slowdown=float(
                _number(
                    data,
                    "straggler_slowdown",
                    "straggler_slowdown",
                    minimum=0,
                    maximum=0.99,
                    default=0.0,
                )
            ),
            trials=_number(
                data,
                "trials",
                "trials",
                integer=True,
                minimum=10,
                maximum=MAX_TRIALS,
                default=10_000,
            ),
            seed=seed,
        )
        return SimulationQuestion("training", spec, None, request)

    _unknown_keys(
        data,
        {
            "kind",
            "estimate",
            "seed",
            "rate_per_s",
            "arrival",
            "prompt",
            "output",
            "replicas",
            "requests",
            "duration_s",
            "ttft_slo_ms",
            "tpot_slo_ms",
            "max_batch",
            "search",
        },
        "",
    )
    if request.task != "inference":
        raise RequestError("estimate.task", "a serving simulation needs an inference workload")
    tp = engine_tp(request)
    default_replicas = max(request.count // tp, 1)
    requests = _number(data, "requests", "requests", integer=True, minimum=10, maximum=MAX_REQUESTS)
    duration = _number(data, "duration_s", "duration_s", minimum=1, maximum=86_400)
    if requests is None and duration is None:
        requests = 20_000
    if requests is not None and duration is not None:
        raise RequestError("requests", "give requests or duration_s, not both")
    spec = ServingSpec(
        rate_per_s=float(
            _number(data, "rate_per_s", "rate_per_s", minimum=0.001, maximum=1e6, required=True)
        ),
        step=step_model_from_engine(request, tp=tp),
        kv_budget_tokens=kv_budget_tokens_from_engine(request, tp=tp),
        prompt=_length(data.get("prompt"), "prompt", request.inference.prompt_len),
        output=_length(data.get("output"), "output", request.inference.output_len),
        arrival=_choice(data, "arrival", "arrival", ("poisson", "bursty"), "poisson"),
        replicas=_number(
            data,
            "replicas",
            "replicas",
            integer=True,
            minimum=1,
            maximum=10_000,
            default=default_replicas,
        ),
        max_batch=_number(
            data, "max_batch", "max_batch", integer=True, minimum=1, maximum=4096, default=256
        ),
        n_requests=requests,
        duration_s=None if duration is None else float(duration),
        ttft_slo_ms=_number(data, "ttft_slo_ms", "ttft_slo_ms", minimum=0.001),
        tpot_slo_ms=_number(data, "tpot_slo_ms", "tpot_slo_ms", minimum=0.001),
        seed=seed,
    )
    if spec.kv_budget_tokens <= 0:
        raise RequestError(
            "estimate", "the model's weights leave no memory for a KV cache on this accelerator"
        )
    search = None
    if data.get("search") is not None:
        s = _mapping(data["search"], "search")
        _unknown_keys(s, {"target_rate", "max_replicas", "attainment"}, "search")
        if spec.ttft_slo_ms is None and spec.tpot_slo_ms is None:
            raise RequestError("search", "needs ttft_slo_ms or tpot_slo_ms to aim for")
        search = {
            "target_rate": float(
                _number(
                    s, "target_rate", "search.target_rate", minimum=0.001, default=spec.rate_per_s
                )
            ),
            "max_replicas": _number(
                s,
                "max_replicas",
                "search.max_replicas",
                integer=True,
                minimum=1,
                maximum=4096,
                default=64,
            ),
            "attainment": float(
                _number(s, "attainment", "search.attainment", minimum=0.5, maximum=1, default=0.99)
            ),
        }
    return SimulationQuestion("serving", spec, search, request)


MAX_SWEEP_CANDIDATES = 16


@dataclass(frozen=True)
class SweepQuestion:
    """The same simulation over several candidate workloads (a plan's top builds, say)."""

    parts: tuple[dict, ...]  # one training or serving question per candidate
    labels: tuple[str, ...]


def sweep_from_dict(
    data: Any, *, estimate_request_of: Callable[[Any], EstimateRequest]
) -> SweepQuestion:
    """{"kind": "sweep", "simulation": {<a training or serving question without "estimate">},
    "candidates": [<estimate question>, ...], "labels": [...]?}"""
    data = _mapping(data, "request")
    _unknown_keys(data, {"kind", "simulation", "candidates", "labels"}, "")
    base = dict(_mapping(data.get("simulation"), "simulation"))
    if "estimate" in base:
        raise RequestError("simulation.estimate", "goes in candidates, one per workload")
    candidates = data.get("candidates")
    if not isinstance(candidates, list) or not 2 <= len(candidates) <= MAX_SWEEP_CANDIDATES:
        raise RequestError(
            "candidates", f"must be a list of 2 to {MAX_SWEEP_CANDIDATES} estimate questions"
        )
    labels = data.get("labels") or [f"candidate {i + 1}" for i in range(len(candidates))]
    if (
        not isinstance(labels, list)
        or len(labels) != len(candidates)
        or not all(isinstance(x, str) for x in labels)
    ):
        raise RequestError("labels", "must be one string per candidate")
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
            raise RequestError(field, exc.message) from None
        parts.append(part)
    return SweepQuestion(tuple(parts), tuple(labels))


# Figures a sweep's comparison table shows, by kind of part.
SWEEP_SUMMARY = {
    "training": ("completion_days", "goodput", "failures_mean"),
    "serving": ("throughput_rps", "ttft_ms", "tpot_ms", "slo"),
}


def sweep_summary(labels, parts: list[dict | None]) -> list[dict]:
    rows = []
    for label, result in zip(labels, parts, strict=True):
        row = {"label": label}
        if result:
            row.update({key: result.get(key) for key in SWEEP_SUMMARY.get(result.get("kind"), ())})
        rows.append(row)
    return rows
