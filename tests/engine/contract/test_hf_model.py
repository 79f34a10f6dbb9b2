"""`"model": {"hf_config": ...}` in the estimate question: the same answers as the same model
typed by hand, and errors under `model.hf_config`. The config files are those of
tests/fixtures/hf_config/ (README there cites the model cards)."""

import dataclasses
import json
from pathlib import Path

import pytest

from planner.engine import estimate
from planner.engine.contract import RequestError, estimate_request_from_dict
from tests.engine.conftest import H100, NDR

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "hf_config"
# The models as a person types them from each config.json (params: the card's exact count).
BY_HAND = {
    "llama-2-7b": {
        "params": 6_738_415_616,
        "layers": 32,
        "hidden": 4096,
        "heads": 32,
        "kv_heads": 32,
        "ffn": 11008,
        "vocab": 32000,
    },
    "meta-llama-3-8b": {
        "params": 8_030_261_248,
        "layers": 32,
        "hidden": 4096,
        "heads": 32,
        "kv_heads": 8,
        "ffn": 14336,
        "vocab": 128256,
    },
    "mixtral-8x7b": {
        "params": 46_702_792_704,
        "layers": 32,
        "hidden": 4096,
        "heads": 32,
        "kv_heads": 8,
        "ffn": 14336,
        "vocab": 32000,
        "experts": 8,
        "active_experts": 2,
    },
    "qwen3-30b-a3b": {
        "params": 30_532_122_624,
        "layers": 48,
        "hidden": 2048,
        "heads": 32,
        "kv_heads": 4,
        "head_dim": 128,
        "ffn": 768,
        "vocab": 151936,
        "experts": 128,
        "active_experts": 8,
    },
}
JOBS = [
    {"task": "train", "count": 64, "tokens": 1e11},
    {"task": "finetune", "count": 8, "method": "lora"},
    {"task": "inference", "count": 8, "inference": {"batch": 32}},
]


def hf_config(name: str) -> dict:
    return json.loads((FIXTURES / f"{name}.json").read_text())


def request(model, **job):
    return estimate_request_from_dict(
        {"model": model, "accelerator": "h100", "fabric": "ndr", **job},
        resolve_model=lambda slug: pytest.fail("no slug here"),
        resolve_accelerator=lambda slug: H100,
        resolve_fabric=lambda slug: NDR,
    )


@pytest.mark.parametrize("name", sorted(BY_HAND))
@pytest.mark.parametrize("job", JOBS, ids=lambda job: job["task"])
def test_a_config_answers_as_the_model_typed_by_hand(name, job):
    from_config = request({"hf_config": hf_config(name), "name": name}, **job)
    by_hand = request({**BY_HAND[name], "name": name}, **job)
    assert from_config.model == by_hand.model
    assert estimate(from_config).as_dict() == estimate(by_hand).as_dict()


def test_a_config_without_params_counts_them_and_a_given_count_wins():
    counted = request({"hf_config": hf_config("meta-llama-3-8b")}, task="train", count=8)
    assert counted.model.params == 8_030_261_248
    given = request(
        {"hf_config": hf_config("meta-llama-3-8b"), "params": 8e9}, task="train", count=8
    )
    assert dataclasses.replace(given.model, params=counted.model.params) == counted.model


def test_the_mlp_type_can_be_given_when_the_family_is_unknown():
    data = {**hf_config("llama-2-7b"), "model_type": "new", "hidden_act": "gelu"}
    plain = request({"hf_config": data}, task="train", count=8).model
    gated = request({"hf_config": data, "gated_mlp": True}, task="train", count=8).model
    assert plain.gated_mlp is False and gated.gated_mlp is True
    assert gated.params - plain.params == 32 * 4096 * 11008


@pytest.mark.parametrize(
    ("model", "field"),
    [
        ({"hf_config": {"num_hidden_layers": 32}}, "model.hf_config.hidden_size"),
        (
            {"hf_config": {"text_config": {"hidden_size": 8}}},
            "model.hf_config.text_config.num_hidden_layers",
        ),
        ({"hf_config": "config.json"}, "model.hf_config"),
        ({"hf_config": {}, "layers": 2}, "model.layers"),
        ({"hf_config": {}, "params": 0}, "model.params"),
        ({"hf_config": {}, "params": 1e16}, "model.params"),
    ],
)
def test_a_bad_config_names_the_field(model, field):
    with pytest.raises(RequestError) as excinfo:
        request(model, task="train", count=8)
    assert excinfo.value.field == field


def test_a_count_past_any_real_model_names_its_key():
    data = json.loads((FIXTURES / "llama-2-7b.json").read_text())
    with pytest.raises(RequestError) as excinfo:
        request({"hf_config": {**data, "num_hidden_layers": 10**9}}, task="train", count=8)
    assert excinfo.value.field == "model.hf_config.num_hidden_layers"
    assert "at most" in excinfo.value.template
