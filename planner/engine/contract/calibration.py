"""The probe report (`manage.py calibrate`, `POST /api/v1/calibrations/`): what flopfit-probe
measured on one card. Only the fields the calibration reads are declared; the rest of the
report is kept as it came."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BeforeValidator, ConfigDict, Field, model_validator

from planner.engine.contract.base import Count, Question, Text, number, problem, whole
from planner.engine.errors import gettext_noop as _

SCHEMA = "flopfit-probe/1"
MAX_TRAINING_STEPS = 16
# No measured figure of one card comes near this (a B200 runs ~4.5e3 dense FP8 TFLOP/s, a 405B
# model has 4e11 parameters); the bound keeps a corrupted report from being stored.
MAX_MEASURED = 1e13
# NVIDIA's largest die has 160 multiprocessors (B200: 148 enabled); AMD's MI300X 304 CUs.
MAX_MULTIPROCESSORS = 4096
MAX_DEVICES_PER_HOST = 1024
MAX_MEMORY_GIB = 65_536
MAX_COPY_GB_S = 1e6


def _positive(value: Any) -> Any:
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        raise problem(_("must be a positive number"))
    if value > MAX_MEASURED:
        raise problem(
            _("must be at most {bound}, not {value}"), bound=f"{MAX_MEASURED:g}", value=f"{value:g}"
        )
    return value


Positive = Annotated[
    float, BeforeValidator(_positive), Field(json_schema_extra={"exclusiveMinimum": 0})
]
PositiveWhole = Annotated[
    int, BeforeValidator(_positive), Field(json_schema_extra={"exclusiveMinimum": 0})
]


class Report(Question):
    """Parts of a report keep keys the calibration does not read."""

    model_config = ConfigDict(extra="allow", frozen=True)


class ProbeDevice(Report):
    """The device as the probe read it; nvidia-smi's dotted keys ("power.limit", W;
    "clocks.max.sm", MHz) are read as they are and help pick the catalog card."""

    name: Text = Field(description='As the driver reports it, e.g. "NVIDIA H200"')
    memory_gib: Annotated[float, number(ge=0, le=MAX_MEMORY_GIB)] | None = Field(
        None, description="Device memory, GiB"
    )
    driver_version: Text | None = None
    multiprocessors: Annotated[int, whole(ge=1, le=MAX_MULTIPROCESSORS)] | None = Field(
        None, description="Streaming multiprocessors (compute units)"
    )
    count: Annotated[int, whole(ge=1, le=MAX_DEVICES_PER_HOST)] | None = Field(
        None, description="Devices the host has"
    )


class ProbeMemory(Report):
    d2d_gb_s: Annotated[float, number(gt=0, le=MAX_COPY_GB_S)] | None = Field(
        None, description="Device-to-device copy, GB/s"
    )
    h2d_gb_s: Annotated[float, number(gt=0, le=MAX_COPY_GB_S)] | None = Field(
        None, description="Host-to-device copy, GB/s"
    )


class ProbeMatmul(Report):
    tflops: Positive | None = Field(
        None, description="Measured dense rate, TFLOP/s (TOPS for int8)"
    )


class ProbeTrainingStep(Report):
    """One measured training step of a Llama-shaped model."""

    name: Text
    layers: PositiveWhole
    hidden: PositiveWhole
    heads: PositiveWhole
    kv_heads: PositiveWhole
    ffn: PositiveWhole
    vocab: PositiveWhole
    seq_len: PositiveWhole
    micro_batch: PositiveWhole
    params: Positive
    tokens_per_s: Positive = Field(description="Measured training throughput, tokens/s")
    precision: Text = "bf16"
    dp: Count = Field(1, description="Data-parallel ranks the step ran on")

    @model_validator(mode="after")
    def _heads_divide(self) -> ProbeTrainingStep:
        if self.hidden % self.heads or self.heads % self.kv_heads:
            raise problem(_("must divide hidden and be a multiple of kv_heads"), at="heads")
        return self


def _schema(value: Any) -> Any:
    if value != SCHEMA:
        raise problem(_("must be {schema}, not {value}"), schema=repr(SCHEMA), value=repr(value))
    return value


def _steps(value: Any) -> Any:
    if not isinstance(value, list) or len(value) > MAX_TRAINING_STEPS:
        raise problem(_("must be a list of at most {most} steps"), most=MAX_TRAINING_STEPS)
    return value


class ProbeReport(Report):
    """The JSON object flopfit-probe writes."""

    schema_: Annotated[str, BeforeValidator(_schema)] = Field(
        alias="schema", description=f'"{SCHEMA}"'
    )
    device: ProbeDevice
    matmul: dict[str, ProbeMatmul] = Field(
        description="By precision: fp32, tf32, bf16, fp16, fp8, int8"
    )
    memory: ProbeMemory = Field(description="d2d_gb_s (device copy, GB/s), h2d_gb_s")
    training: Annotated[list[ProbeTrainingStep], BeforeValidator(_steps)] = Field(
        default_factory=list,
        description="Measured steps; the first is the reference for the end-to-end factor",
    )
