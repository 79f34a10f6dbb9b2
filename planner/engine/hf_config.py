"""A Hugging Face `config.json` as the engine's model shape, read the way the `transformers`
configuration classes read it, without importing them and without the network.

The keys are those of the Llama, Mistral/Mixtral, Qwen2/Qwen3 (and their MoE), Gemma, Phi-3 and
GPT-2 configuration classes; GPT-2's own names (`n_layer`, `n_embd`, `n_head`, `n_inner`) are
read as the standard ones. A multimodal config's language model under `text_config` is used when
the top level has no layers. Errors name the key as the file spells it (`hidden_size`); the
contract puts them under `model.hf_config`.

The parameter count, when the caller gives none, is counted from the shape the way
`model.num_parameters()` counts it: embeddings (a second matrix for an untied output head),
attention, MLP and router weights, norms, and the biases the family carries."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from planner.engine.errors import RequestError
from planner.engine.errors import gettext_noop as _
from planner.engine.specs import ModelSpec

# The standard key, then the other names configuration classes give it.
ALIASES: Mapping[str, tuple[str, ...]] = {
    "num_hidden_layers": ("num_hidden_layers", "n_layer"),
    "hidden_size": ("hidden_size", "n_embd"),
    "num_attention_heads": ("num_attention_heads", "n_head"),
    "intermediate_size": ("intermediate_size", "n_inner", "ffn_dim"),
}
# Routed experts per MoE layer: Mixtral, DeepSeek, Qwen-MoE spell it differently.
EXPERT_KEYS = ("num_local_experts", "n_routed_experts", "num_experts")
# Families whose MLP is gated (gate, up and down matrices: SwiGLU, or GeGLU for Gemma whatever
# its activation is called), and those with GPT's two-matrix MLP, by `model_type`.
GATED_TYPES = frozenset(
    {
        "llama",
        "mistral",
        "mixtral",
        "qwen2",
        "qwen2_moe",
        "qwen3",
        "qwen3_moe",
        "gemma",
        "gemma2",
        "gemma3_text",
        "phi3",
        "olmo",
        "olmo2",
        "granite",
        "cohere",
        "internlm2",
        "yi",
    }
)
PLAIN_TYPES = frozenset(
    {"gpt2", "gpt_neox", "gptj", "gpt_bigcode", "opt", "bloom", "falcon", "phi", "starcoder2"}
)
# Other families: SiLU (swish) in an MLP is SwiGLU's gate in every family published since
# LLaMA (Shazeer 2020, "GLU Variants Improve Transformer"); GELU or ReLU alone is GPT's MLP.
GATED_ACTIVATIONS = frozenset({"silu", "swish", "swiglu"})
# Qwen2 and its MoE put biases on the Q, K and V projections only (Qwen2 technical report, 2.1).
QKV_BIAS_TYPES = frozenset({"qwen2", "qwen2_moe"})
# Qwen3 normalises queries and keys per head (Qwen3 technical report, 2): two RMSNorms of head_dim.
QK_NORM_TYPES = frozenset({"qwen3", "qwen3_moe"})
# GPT2Config, GPTBigCodeConfig, GPTJConfig: `n_inner` absent or null is four times the width.
FOUR_X_TYPES = frozenset({"gpt2", "gpt_bigcode", "gptj"})
# No count or width of a config (layers, widths, heads, experts, vocabulary, context) is
# larger: ten times the longest context published (10,485,760 tokens), far more than any
# width or count, so the answers' sums stay finite.
LARGEST_WHOLE = 100_000_000
# transformers' PretrainedConfig ties input and output embeddings unless the file says not.
TIED_BY_DEFAULT = True


@dataclass(frozen=True)
class HfShape:
    """What a config.json says, mapped: the engine's shape and what only the count needs."""

    spec: ModelSpec
    context: int | None  # max_position_embeddings, tokens
    tied_embeddings: bool


def _whole(
    config: Mapping[str, Any], key: str, *, aliases: tuple[str, ...] = (), minimum: int = 1
) -> int | None:
    """A whole number under `key` (or one of its aliases), at least `minimum` and at most
    LARGEST_WHOLE; None when absent or null."""
    for name in (key, *aliases):
        value = config.get(name)
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int | float) or value != int(value):
            raise RequestError(name, _("must be a whole number, not {value}"), value=repr(value))
        if value < minimum:
            raise RequestError(
                name, _("must be at least {bound}, not {value}"), bound=minimum, value=value
            )
        if value > LARGEST_WHOLE:
            raise RequestError(
                name, _("must be at most {bound}, not {value}"), bound=LARGEST_WHOLE, value=value
            )
        return int(value)
    return None


def _required(config: Mapping[str, Any], key: str) -> int:
    value = _whole(config, key, aliases=ALIASES.get(key, (key,))[1:])
    if value is None:
        raise RequestError(key, _("is required"))
    return value


def _flag(config: Mapping[str, Any], key: str, default: bool) -> bool:
    value = config.get(key)
    if value is None:
        return default
    if not isinstance(value, bool):
        raise RequestError(key, _("must be true or false, not {value}"), value=repr(value))
    return value


def language_model(config: Mapping[str, Any]) -> tuple[Mapping[str, Any], str]:
    """The part of the file that describes the language model, and its path prefix."""
    text = config.get("text_config")
    if not any(k in config for k in ALIASES["num_hidden_layers"]) and isinstance(text, Mapping):
        return text, "text_config."
    return config, ""


def gated_mlp(config: Mapping[str, Any]) -> bool:
    """Whether the MLP is gated (three matrices) or GPT's two: by the family when it is one we
    know, else by the activation (`hidden_act`, GPT-2's `activation_function`)."""
    model_type = str(config.get("model_type") or "")
    if model_type in GATED_TYPES:
        return True
    if model_type in PLAIN_TYPES:
        return False
    activation = config.get("hidden_act") or config.get("activation_function") or "silu"
    return str(activation).lower() in GATED_ACTIVATIONS


def _moe(config: Mapping[str, Any], dense_ffn: int | None) -> tuple[int, int, int, int]:
    """Routed experts, experts per token, one expert's intermediate size and the shared experts'
    intermediate size together."""
    # Dense configs of MoE-capable classes write 0 experts.
    experts = next((n for k in EXPERT_KEYS if (n := _whole(config, k, minimum=0))), 1)
    if experts <= 1:
        if dense_ffn is None:
            raise RequestError("intermediate_size", _("is required"))
        return 1, 1, dense_ffn, 0
    active = _whole(config, "num_experts_per_tok")
    if active is None:
        raise RequestError("num_experts_per_tok", _("is required for a mixture of experts"))
    if active > experts:
        raise RequestError(
            "num_experts_per_tok", _("cannot exceed the {experts} experts"), experts=experts
        )
    expert_ffn = _whole(config, "moe_intermediate_size") or dense_ffn
    if expert_ffn is None:
        raise RequestError("moe_intermediate_size", _("is required"))
    shared = _whole(config, "shared_expert_intermediate_size")
    if shared is None:
        shared = (_whole(config, "n_shared_experts", minimum=0) or 0) * expert_ffn
    return experts, active, expert_ffn, shared


def hf_shape(config: Mapping[str, Any], *, gated: bool | None = None) -> HfShape:
    """The engine's shape of the language model a config.json describes, its parameters
    counted; `RequestError` names the key at fault (under `text_config.` when it is there)."""
    body, prefix = language_model(config)
    try:
        return _shape(body, gated)
    except RequestError as exc:
        raise exc.at(prefix + exc.field) from None


def _shape(config: Mapping[str, Any], gated: bool | None) -> HfShape:
    if config.get("kv_lora_rank") is not None:
        # DeepSeek-V2/V3 cache one compressed latent per token, not K and V per head.
        raise RequestError(
            "kv_lora_rank",
            _("multi-head latent attention is not modelled; give the model's shape inline"),
        )
    layers = _required(config, "num_hidden_layers")
    hidden = _required(config, "hidden_size")
    heads = _required(config, "num_attention_heads")
    kv_heads = _whole(config, "num_key_value_heads") or heads
    if heads % kv_heads:
        raise RequestError(
            "num_key_value_heads", _("must divide the {heads} attention heads"), heads=heads
        )
    head_dim = _whole(config, "head_dim") or 0
    if not head_dim and hidden % heads:
        raise RequestError(
            "num_attention_heads", _("must divide the hidden size {hidden}"), hidden=hidden
        )
    vocab = _required(config, "vocab_size")
    dense_ffn = _whole(config, "intermediate_size", aliases=ALIASES["intermediate_size"][1:])
    is_gated = gated_mlp(config) if gated is None else gated
    if dense_ffn is None and str(config.get("model_type")) in FOUR_X_TYPES:
        dense_ffn = 4 * hidden
    experts, active, ffn, shared = _moe(config, dense_ffn)
    spec = ModelSpec(
        params=1.0,
        layers=layers,
        hidden=hidden,
        heads=heads,
        kv_heads=kv_heads,
        ffn=ffn,
        vocab=vocab,
        experts=experts,
        active_experts=active,
        gated_mlp=is_gated,
        name=str(config.get("_name_or_path") or config.get("model_type") or "config.json"),
        attention_head_dim=head_dim if head_dim != hidden // heads else 0,
        shared_ffn=shared,
    )
    tied = _flag(config, "tie_word_embeddings", TIED_BY_DEFAULT)
    counted = ModelSpec(**{**_fields(spec), "params": float(parameter_count(config, spec, tied))})
    context = _whole(config, "max_position_embeddings", aliases=("n_positions",))
    return HfShape(spec=counted, context=context, tied_embeddings=tied)


def _fields(spec: ModelSpec) -> dict[str, Any]:
    return {name: getattr(spec, name) for name in spec.__dataclass_fields__}


def parameter_count(config: Mapping[str, Any], spec: ModelSpec, tied: bool) -> int:
    """Every weight the checkpoint holds for this shape. RMSNorm has a scale per channel; a
    config without `rms_norm_eps` uses LayerNorm (scale and shift) and GPT-style biases on
    every linear layer; Qwen2 biases Q, K and V; `attention_bias`/`mlp_bias` say so in Llama."""
    rms = "rms_norm_eps" in config
    gpt_biases = not rms and _flag(config, "bias", True)
    norm = spec.hidden if rms else 2 * spec.hidden
    attention = int(spec.attention_params_per_layer)
    if gpt_biases or _flag(config, "attention_bias", False):
        attention += spec.q_dim + 2 * spec.kv_dim + spec.hidden
    elif str(config.get("model_type")) in QKV_BIAS_TYPES:
        attention += spec.q_dim + 2 * spec.kv_dim
    if str(config.get("model_type")) in QK_NORM_TYPES:
        attention += 2 * spec.head_dim
    mlp_bias = gpt_biases or _flag(config, "mlp_bias", False)
    # One expert: its matrices, plus the biases of its hidden units and its output.
    one = spec.mlp_matrices * spec.hidden * spec.ffn
    one += ((spec.mlp_matrices - 1) * spec.ffn + spec.hidden) if mlp_bias else 0
    mlp = spec.experts * one + int(spec.shared_expert_params_per_layer)
    router = spec.hidden * spec.experts if spec.experts > 1 else 0
    per_layer = attention + mlp + router + 2 * norm
    embeddings = spec.vocab * spec.hidden * (1 if tied else 2)
    # GPT-2 learns a vector per position (n_positions); rotary families learn none.
    positions = (_whole(config, "n_positions") or 0) * spec.hidden
    return spec.layers * per_layer + embeddings + positions + norm
