"""A Hugging Face config.json as the engine's model shape. The files under
tests/fixtures/hf_config/ are written out from the published configurations; their README cites
each model card, and the counts asserted here are the cards' (or `num_parameters()`'s)."""

import json
from pathlib import Path

import pytest

from planner.engine.errors import RequestError
from planner.engine.hf_config import gated_mlp, hf_shape
from tests.engine.conftest import LLAMA2_7B, LLAMA3_8B

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "hf_config"


def config(name: str) -> dict:
    return json.loads((FIXTURES / f"{name}.json").read_text())


def error_of(data: dict) -> RequestError:
    with pytest.raises(RequestError) as excinfo:
        hf_shape(data)
    return excinfo.value


def test_llama_2_7b_maps_to_the_hand_typed_dense_shape():
    shape = hf_shape(config("llama-2-7b")).spec
    # Llama-2-7b-hf config.json: 32 layers, 4096 wide, 32 heads, all of them KV heads (MHA).
    assert (shape.layers, shape.hidden, shape.heads, shape.kv_heads) == (32, 4096, 32, 32)
    assert (shape.ffn, shape.vocab, shape.experts, shape.gated_mlp) == (11008, 32000, 1, True)
    assert shape.params == LLAMA2_7B.params  # 6,738,415,616 with untied embeddings


def test_llama_3_8b_keeps_its_eight_kv_heads():
    shape = hf_shape(config("meta-llama-3-8b")).spec
    assert shape.kv_heads == 8 and shape.kv_dim == 1024
    assert shape.params == LLAMA3_8B.params  # 8,030,261,248: the card's "8B"


def test_mixtral_counts_every_expert_and_activates_two():
    shape = hf_shape(config("mixtral-8x7b")).spec
    assert (shape.experts, shape.active_experts, shape.ffn) == (8, 2, 14336)
    # Mixtral paper (arXiv 2401.04088, section 2.1): 47B parameters, 13B active per token.
    assert shape.params == 46_702_792_704
    assert shape.active_params == pytest.approx(12.9e9, rel=0.01)


def test_qwen3_moe_reads_num_experts_moe_intermediate_size_and_head_dim():
    hf = hf_shape(config("qwen3-30b-a3b"))
    shape = hf.spec
    assert (shape.experts, shape.active_experts, shape.ffn) == (128, 8, 768)
    # head_dim 128 with 32 heads: queries 4096 wide in a 2048-wide model.
    assert shape.head_dim == 128 and shape.q_dim == 4096 and shape.kv_dim == 512
    # Model card: 30.5B in all, 3.3B activated.
    assert shape.params == pytest.approx(30.5e9, rel=0.002)
    assert shape.active_params == pytest.approx(3.3e9, rel=0.02)
    assert hf.context == 40960 and hf.tied_embeddings is False


def test_gpt2_names_a_plain_gelu_mlp_with_biases_and_tied_embeddings():
    hf = hf_shape(config("gpt2"))
    shape = hf.spec
    assert (shape.layers, shape.hidden, shape.heads, shape.ffn) == (12, 768, 12, 3072)
    assert shape.gated_mlp is False and hf.tied_embeddings is True
    # GPT2LMHeadModel.num_parameters() for openai-community/gpt2.
    assert shape.params == 124_439_808


def test_shared_experts_count_as_always_active():
    qwen2_moe = {
        "model_type": "qwen2_moe",
        "num_hidden_layers": 24,
        "hidden_size": 2048,
        "num_attention_heads": 16,
        "num_key_value_heads": 16,
        "intermediate_size": 5632,
        "moe_intermediate_size": 1408,
        "shared_expert_intermediate_size": 5632,
        "num_experts": 60,
        "num_experts_per_tok": 4,
        "vocab_size": 151936,
        "rms_norm_eps": 1e-6,
        "tie_word_embeddings": False,
    }
    shape = hf_shape(qwen2_moe).spec
    assert shape.shared_ffn == 5632 and shape.ffn == 1408
    without = hf_shape({**qwen2_moe, "shared_expert_intermediate_size": None}).spec
    shared = 24 * 3 * 2048 * 5632
    assert shape.params - without.params == shared
    assert shape.active_params - without.active_params == shared
    deepseek_style = {**qwen2_moe, "shared_expert_intermediate_size": None, "n_shared_experts": 2}
    assert hf_shape(deepseek_style).spec.shared_ffn == 2 * 1408


def test_a_multimodal_config_is_read_from_its_text_config():
    wrapped = {"model_type": "llava", "text_config": config("meta-llama-3-8b")}
    assert hf_shape(wrapped).spec.params == LLAMA3_8B.params
    del wrapped["text_config"]["hidden_size"]
    assert error_of(wrapped).field == "text_config.hidden_size"


@pytest.mark.parametrize(
    "key", ["num_hidden_layers", "hidden_size", "num_attention_heads", "vocab_size"]
)
def test_a_missing_needed_key_is_named(key):
    data = config("meta-llama-3-8b")
    del data[key]
    error = error_of(data)
    assert (error.field, error.message) == (key, "is required")


def test_a_mixture_without_experts_per_token_is_named():
    data = config("mixtral-8x7b")
    del data["num_experts_per_tok"]
    assert error_of(data).field == "num_experts_per_tok"


def test_wrong_values_are_named_with_what_is_wrong():
    assert error_of({**config("llama-2-7b"), "hidden_size": "4096"}).message == (
        "must be a whole number, not '4096'"
    )
    assert error_of({**config("llama-2-7b"), "num_key_value_heads": 5}).field == (
        "num_key_value_heads"
    )
    assert error_of({**config("llama-2-7b"), "tie_word_embeddings": "no"}).field == (
        "tie_word_embeddings"
    )


def test_latent_attention_is_refused_rather_than_mismeasured():
    assert error_of({**config("llama-2-7b"), "kv_lora_rank": 512}).field == "kv_lora_rank"


@pytest.mark.parametrize(
    ("data", "gated"),
    [
        ({"model_type": "gemma", "hidden_act": "gelu_pytorch_tanh"}, True),  # GeGLU
        ({"model_type": "gpt_neox", "hidden_act": "gelu"}, False),
        ({"model_type": "somebody-new", "hidden_act": "silu"}, True),
        ({"model_type": "somebody-new", "hidden_act": "gelu"}, False),
        ({"activation_function": "gelu_new"}, False),
    ],
)
def test_the_mlp_type_is_the_familys_else_the_activations(data, gated):
    assert gated_mlp(data) is gated


def test_tied_embeddings_are_counted_once():
    untied = hf_shape(config("meta-llama-3-8b")).spec.params
    tied = hf_shape({**config("meta-llama-3-8b"), "tie_word_embeddings": True}).spec.params
    assert untied - tied == 128256 * 4096
