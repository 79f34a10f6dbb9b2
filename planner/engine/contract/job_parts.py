"""The estimate question's parts: its choices (each a closed list the engine knows) and its
sections (`parallelism`, `inference`, `reliability`, `efficiency`), declared once."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Field

from planner.engine.contract.base import (
    Flag,
    GivenFigures,
    Question,
    number,
    one_of,
    whole,
)
from planner.engine.specs import (
    ATTENTION,
    KV_PRECISIONS,
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


class Parallelism(Question):
    """A fixed layout; absent, the engine searches every layout the cluster admits."""

    tp: Annotated[int, whole(ge=1)] = Field(1, description="Tensor-parallel degree")
    pp: Annotated[int, whole(ge=1)] = Field(1, description="Pipeline stages")
    dp: Annotated[int, whole(ge=1)] | None = Field(
        None, description="Data-parallel degree; default: the rest"
    )
    cp: Annotated[int, whole(ge=1)] = Field(
        1, description="Context-parallel degree (the sequence split)"
    )
    vp: Annotated[int, whole(ge=1)] = Field(
        1, description="Virtual pipeline stages per device (interleaving)"
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
    prompt_len: Annotated[int, whole(ge=1)] = Field(512, description="Prompt tokens per sequence")
    output_len: Annotated[int, whole(ge=1)] = Field(
        128, description="Generated tokens per sequence"
    )
    kv_precision: KvPrecision | None = Field(
        None,
        description="KV-cache precision; default: the weights' precision when a float, else bf16",
    )


class Reliability(Question):
    """Interruptions of a long run and what each costs."""

    failures_per_gpu_hour: Annotated[float, number(ge=0)] = Field(
        RELIABILITY_DEFAULTS.failures_per_gpu_hour,
        description="Failures per GPU-hour (Llama 3 on 16,384 H100: about 2e-5)",
    )
    restart_s: Annotated[float, number(ge=0)] = Field(
        RELIABILITY_DEFAULTS.restart_s, description="Time to restart after a failure, s"
    )
    checkpoint_gb_s: Annotated[float, number(ge=0.001)] | None = Field(
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
