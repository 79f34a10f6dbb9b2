"""The estimate question's parts: its choices (each a closed list the engine knows) and its
sections (`parallelism`, `inference`, `reliability`, `efficiency`), declared once."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Field

from planner.engine.contract.base import (
    Count,
    Flag,
    GivenFigures,
    NonNegative,
    PositiveFigure,
    Question,
    number,
    one_of,
    problem,
    whole,
)
from planner.engine.efficiency import FP8_RECIPES
from planner.engine.errors import gettext_noop as _
from planner.engine.specs import (
    ATTENTION,
    KV_PRECISIONS,
    LORA_TARGETS,
    METHODS,
    OPTIMIZERS,
    PRECISIONS,
    RECOMPUTE,
    TASKS,
    ReliabilitySpec,
)
from planner.engine.stack import (
    FRAMEWORKS,
    PARAM_DTYPES,
)

RELIABILITY_DEFAULTS = ReliabilitySpec()


def _choice(options: tuple[str, ...]) -> Any:
    return BeforeValidator(one_of(options))


Task = Annotated[Literal["train", "finetune", "inference"], _choice(TASKS)]
Precision = Annotated[
    Literal["fp32", "tf32", "bf16", "fp16", "fp8", "int8", "int4"], _choice(PRECISIONS)
]
KvPrecision = Annotated[
    Literal["fp32", "bf16", "fp16", "fp8", "int8", "int4"], _choice(KV_PRECISIONS)
]
Fp8Recipe = Annotated[Literal["delayed", "current", "mxfp8"], _choice(FP8_RECIPES)]
Method = Annotated[Literal["full", "lora", "qlora"], _choice(METHODS)]
Optimizer = Annotated[Literal["adamw", "sgd", "adamw8bit"], _choice(OPTIMIZERS)]
Recompute = Annotated[Literal["none", "selective", "full"], _choice(RECOMPUTE)]
Attention = Annotated[Literal["flash", "materialized"], _choice(ATTENTION)]
MasterWeights = Annotated[Literal["fp32", "none"], _choice(("fp32", "none"))]
Framework = Annotated[
    Literal[
        "megatron",
        "deepspeed",
        "fsdp",
        "torchtitan",
        "hf",
        "vllm",
        "sglang",
        "trt-llm",
        "llama.cpp",
    ],
    _choice(FRAMEWORKS),
]
ParamDtype = Annotated[Literal["fp32", "bf16", "fp16"], _choice(PARAM_DTYPES)]
LoraTargetName = Literal["q", "k", "v", "o", "gate", "up", "down"]
LoraTarget = Annotated[LoraTargetName, _choice(LORA_TARGETS)]


def _distinct_targets(value: Any) -> Any:
    if isinstance(value, list) and len(set(map(repr, value))) != len(value):
        raise problem(_("names a target twice"))
    if isinstance(value, list) and not value:
        raise problem(_("must name at least one target"))
    return value


def _all_targets() -> list[LoraTargetName]:
    return ["q", "k", "v", "o", "gate", "up", "down"]


class Lora(Question):
    """LoRA's adapters (method lora or qlora): their rank and the linear maps they adapt."""

    rank: Annotated[int, whole(ge=1, le=4096)] = Field(16, description="Adapter rank")
    targets: Annotated[list[LoraTarget], BeforeValidator(_distinct_targets)] = Field(
        default_factory=_all_targets,
        description="Linear maps adapted, as PEFT's target_modules in Llama: q, k, v, o, gate, "
        "up, down; default all seven",
    )


class Parallelism(Question):
    """A fixed layout; absent, the engine searches every layout the cluster admits."""

    tp: Count = Field(1, description="Tensor-parallel degree")
    pp: Count = Field(1, description="Pipeline stages")
    dp: Count | None = Field(None, description="Data-parallel degree; default: the rest")
    cp: Count = Field(1, description="Context-parallel degree (the sequence split)")
    vp: Count = Field(1, description="Virtual pipeline stages per device (interleaving)")
    ep: Count | None = Field(
        None,
        description="Expert-parallel degree (MoE): data-parallel ranks the routed experts are "
        "spread over; default min(experts, dp)",
    )
    sequence_parallel: Flag = Field(True, description="Megatron's sequence parallelism")
    recompute_fraction: Annotated[float, number(ge=0, le=1)] = Field(
        1.0, description="Share of layers recomputed under full recompute"
    )


class Inference(Question):
    """A fixed batch decoded together (serving under load is the simulation's question)."""

    batch: Annotated[int, whole(ge=1, le=1_000_000)] = Field(
        1, description="Sequences decoded together"
    )
    prompt_len: Count = Field(512, description="Prompt tokens per sequence")
    output_len: Count = Field(128, description="Generated tokens per sequence")
    kv_precision: KvPrecision | None = Field(
        None,
        description="KV-cache precision; default: the weights' precision when a float, else bf16",
    )


class Reliability(Question):
    """Interruptions of a long run and what each costs."""

    failures_per_gpu_hour: NonNegative = Field(
        RELIABILITY_DEFAULTS.failures_per_gpu_hour,
        description="Failures per GPU-hour (Llama 3 on 16,384 H100: about 2e-5)",
    )
    restart_s: NonNegative = Field(
        RELIABILITY_DEFAULTS.restart_s, description="Time to restart after a failure, s"
    )
    checkpoint_gb_s: PositiveFigure | None = Field(
        RELIABILITY_DEFAULTS.checkpoint_gb_s,
        description=(
            "Aggregate write bandwidth to checkpoint storage, GB/s; default about 1 GB/s per "
            "server (Llama 3: 2 TB/s for 2,048 servers)"
        ),
    )

    def spec(self) -> ReliabilitySpec:
        return ReliabilitySpec(
            failures_per_gpu_hour=float(self.failures_per_gpu_hour),
            restart_s=float(self.restart_s),
            checkpoint_gb_s=(None if self.checkpoint_gb_s is None else float(self.checkpoint_gb_s)),
        )


EtaOverride = Annotated[float, number(ge=0.001, le=1)]


class Efficiency(GivenFigures):
    """Overrides of the seeds' loss factors; each replaces the computed one."""

    eta_mem: EtaOverride | None = None
    eta_interconnect: EtaOverride | None = None
    eta_sched: EtaOverride | None = None
    eta_thermal: EtaOverride | None = None
    eta_fault: EtaOverride | None = None
