"""A model given by its Hugging Face `config.json`: `"model": {"hf_config": {...}}`. The file is
read by the engine's own mapping (planner.engine.hf_config), so any model on the Hub can be
asked about without typing its shape; an error names the key under `model.hf_config`."""

from __future__ import annotations

from dataclasses import replace
from typing import Annotated, Any

from pydantic import Field, PrivateAttr, model_validator

from planner.engine.contract.base import MAX_PARAMS, Flag, Question, Text, number, problem
from planner.engine.errors import RequestError
from planner.engine.hf_config import hf_shape
from planner.engine.specs import ModelSpec

HF_CONFIG_KEY = "hf_config"


def is_hf_config(value: Any) -> bool:
    """Whether a model reference is a config.json (the object carries `hf_config`)."""
    return isinstance(value, dict) and HF_CONFIG_KEY in value


class HfConfigModel(Question):
    """A model by its Hugging Face config.json, as published beside its weights."""

    hf_config: dict[str, Any] = Field(
        description="The model's config.json as published on the Hugging Face Hub (num_hidden_"
        "layers, hidden_size, num_attention_heads, num_key_value_heads, intermediate_size or "
        "moe_intermediate_size, vocab_size, the expert counts, tie_word_embeddings, head_dim)"
    )
    params: Annotated[float, number(ge=1, le=MAX_PARAMS)] | None = Field(
        None, description="Parameters in all; default: counted from the config"
    )
    gated_mlp: Flag | None = Field(
        None,
        description="Gated (SwiGLU) MLP; default: by model_type, else true when hidden_act is silu",
    )
    name: Text | None = Field(
        None, description="What the answer calls the model; default: the config's _name_or_path"
    )
    _spec: ModelSpec = PrivateAttr()

    @model_validator(mode="after")
    def _config_maps(self) -> HfConfigModel:
        try:
            shape = hf_shape(self.hf_config, gated=self.gated_mlp)
        except RequestError as exc:
            raise problem(exc.template, at=f"{HF_CONFIG_KEY}.{exc.field}", **exc.params) from None
        self._spec = replace(
            shape.spec,
            params=float(self.params) if self.params is not None else shape.spec.params,
            name=self.name or shape.spec.name,
        )
        return self

    def spec(self) -> ModelSpec:
        return self._spec
