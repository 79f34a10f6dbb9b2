"""The catalog items a question may name by slug or give inline: a decoder-only model's shape,
an accelerator's datasheet figures and a scale-out fabric. Inline ones become engine specs here;
slugs are resolved by the caller."""

from __future__ import annotations

from types import MappingProxyType
from typing import Annotated, Any

from pydantic import BeforeValidator, Discriminator, Field, Tag, model_validator

from planner.engine.contract.base import (
    MAX_HEADS,
    MAX_LAYERS,
    MAX_PARAMS,
    MAX_WIDTH,
    Count,
    Flag,
    NonNegative,
    PositiveFigure,
    Question,
    SlugGiven,
    Text,
    number,
    problem,
    whole,
)
from planner.engine.contract.hf_model import HfConfigModel, is_hf_config
from planner.engine.errors import gettext_noop as _
from planner.engine.specs import PRECISIONS, AcceleratorSpec, FabricSpec, ModelSpec


def slug_or_inline(value: Any) -> str:
    """The tag of a catalog item given by slug (text) or inline (an object)."""
    return "#slug" if isinstance(value, str) else "#inline"


def model_given_as(value: Any) -> str:
    """A model's tag: by slug, by its Hugging Face config.json, or its shape inline."""
    return "#hf" if is_hf_config(value) else slug_or_inline(value)


Layers = Annotated[int, whole(ge=1, le=MAX_LAYERS)]
Width = Annotated[int, whole(ge=1, le=MAX_WIDTH)]
Heads = Annotated[int, whole(ge=1, le=MAX_HEADS)]


class InlineModel(Question):
    """A decoder-only transformer's shape, as in its config.json."""

    params: Annotated[float, number(ge=1, le=MAX_PARAMS)] = Field(
        description="Parameters in all (experts included)"
    )
    layers: Layers = Field(description="Transformer layers")
    hidden: Width = Field(description="Hidden size")
    heads: Heads = Field(description="Attention heads")
    kv_heads: Heads | None = Field(
        None, description="Key/value heads (grouped-query attention); default: heads"
    )
    ffn: Width = Field(description="Intermediate size of one expert's MLP")
    vocab: Width = Field(description="Vocabulary size")
    experts: Heads = Field(1, description="Routed experts per layer (1: dense)")
    active_experts: Heads = Field(1, description="Experts each token is routed to")
    gated_mlp: Flag = Field(True, description="SwiGLU-style three-matrix MLP (false: GELU, two)")
    name: Text = "inline model"
    head_dim: Width | None = Field(
        None, description="Width of one attention head; default: hidden / heads"
    )
    shared_ffn: Annotated[int, whole(ge=0, le=MAX_WIDTH)] = Field(
        0, description="Intermediate size of a layer's always-active shared experts together"
    )

    @model_validator(mode="after")
    def _shape_adds_up(self) -> InlineModel:
        kv = self.kv_heads or self.heads
        if self.heads % kv:
            raise problem(
                _("must divide the {heads} attention heads"), at="kv_heads", heads=self.heads
            )
        if self.head_dim is None and self.hidden % self.heads:
            raise problem(_("must divide the hidden size {hidden}"), at="heads", hidden=self.hidden)
        if self.active_experts > self.experts:
            raise problem(
                _("cannot exceed the {experts} experts"), at="active_experts", experts=self.experts
            )
        return self

    def spec(self) -> ModelSpec:
        return ModelSpec(
            params=float(self.params),
            kv_heads=self.kv_heads or self.heads,
            **self.same_named(
                "layers hidden heads ffn vocab experts active_experts gated_mlp name shared_ffn"
            ),
            attention_head_dim=0
            if self.head_dim == self.hidden / self.heads
            else self.head_dim or 0,
        )


def _precisions_known(value: Any) -> Any:
    if isinstance(value, dict):
        for precision in value:
            if precision not in PRECISIONS:
                raise problem(
                    _("is not a precision ({precisions})"),
                    at=str(precision),
                    precisions=", ".join(PRECISIONS),
                )
        if not value:
            raise problem(_("is required: dense TFLOP/s by precision"))
    return value


class InlineAccelerator(Question):
    """An accelerator's datasheet figures. FLOP rates are dense, never the sparsity figure."""

    memory_gib: PositiveFigure = Field(description="Device memory, GiB")
    memory_bw_gb_s: PositiveFigure = Field(description="Memory bandwidth, GB/s")
    tflops: Annotated[dict[str, PositiveFigure], BeforeValidator(_precisions_known)] = Field(
        description="Dense TFLOP/s by precision (fp32, tf32, bf16, fp16, fp8, int8, int4)"
    )
    tdp_w: NonNegative = Field(0, description="Board power, W")
    scale_up_gb_s: PositiveFigure | None = Field(
        None, description="Scale-up link (NVLink...) per device and direction, GB/s; none: PCIe"
    )
    scale_up_domain: Count = Field(8, description="Devices one scale-up link joins")
    pcie_gb_s: PositiveFigure = Field(31.5, description="PCIe per direction, GB/s")
    name: Text = "inline accelerator"

    def spec(self) -> AcceleratorSpec:
        return AcceleratorSpec(
            memory_gib=float(self.memory_gib),
            memory_bw_gb_s=float(self.memory_bw_gb_s),
            tflops=MappingProxyType(dict(self.tflops)),
            tdp_w=float(self.tdp_w),
            scale_up_gb_s=self.scale_up_gb_s,
            scale_up_domain=self.scale_up_domain,
            pcie_gb_s=float(self.pcie_gb_s),
            name=self.name,
        )


class InlineFabric(Question):
    """The scale-out network as one accelerator sees it."""

    per_gpu_gb_s: PositiveFigure = Field(description="Bandwidth per accelerator, GB/s")
    latency_us: NonNegative = Field(5.0, description="Latency per hop, µs")
    name: Text = "inline fabric"

    def spec(self) -> FabricSpec:
        return FabricSpec(
            per_gpu_gb_s=float(self.per_gpu_gb_s), latency_us=float(self.latency_us), name=self.name
        )


ModelRef = Annotated[
    Annotated[Text, Tag("#slug")]
    | Annotated[InlineModel, Tag("#inline")]
    | Annotated[HfConfigModel, Tag("#hf")],
    Discriminator(model_given_as),
    SlugGiven,
]
AcceleratorRef = Annotated[
    Annotated[Text, Tag("#slug")] | Annotated[InlineAccelerator, Tag("#inline")],
    Discriminator(slug_or_inline),
    SlugGiven,
]
FabricRef = Annotated[
    Annotated[Text, Tag("#slug")] | Annotated[InlineFabric, Tag("#inline")],
    Discriminator(slug_or_inline),
    SlugGiven,
]
