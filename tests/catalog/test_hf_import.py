"""`loadcatalog --hf-config FILE`: a curator adds or updates a catalog model from its
config.json (files under tests/fixtures/hf_config/, README there cites the model cards)."""

import csv
import json
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from catalog.models import ModelArchitecture

pytestmark = pytest.mark.django_db

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "hf_config"
QWEN3_CARD = "https://huggingface.co/Qwen/Qwen3-30B-A3B/blob/main/config.json"


def rows(data_dir: Path) -> dict[str, dict[str, str]]:
    with (data_dir / "models" / "models.csv").open(newline="", encoding="utf-8") as handle:
        return {row["slug"]: row for row in csv.DictReader(handle)}


def add(data_dir: Path, fixture: str, **options):
    call_command(
        "loadcatalog",
        data_dir=data_dir,
        hf_config=FIXTURES / f"{fixture}.json",
        **{"source": [options.pop("source", "https://example.org/config.json")], **options},
    )


def test_a_config_updates_its_catalog_entry_to_the_same_figures(data_dir, capsys):
    before = rows(data_dir)
    add(
        data_dir,
        "meta-llama-3-8b",
        slug="meta-llama-3-8b",
        name="Meta Llama 3 8B",
        family="Llama 3",
        source="https://huggingface.co/meta-llama/Meta-Llama-3-8B/blob/main/config.json",
    )
    after = rows(data_dir)
    figures = ("params", "active_params", "layers", "hidden", "heads", "kv_heads", "ffn", "vocab")
    assert [after["meta-llama-3-8b"][k] for k in figures] == [
        before["meta-llama-3-8b"][k] for k in figures
    ]
    assert {k: v for k, v in after.items() if k != "meta-llama-3-8b"} == {
        k: v for k, v in before.items() if k != "meta-llama-3-8b"
    }
    assert "meta-llama-3-8b: replaced" in capsys.readouterr().out
    item = ModelArchitecture.objects.get(slug="meta-llama-3-8b")
    assert item.params == 8_030_261_248 and item.source_url_list == [
        "https://huggingface.co/meta-llama/Meta-Llama-3-8B/blob/main/config.json"
    ]


def test_a_new_model_is_added_with_its_source(data_dir, tmp_path):
    config = json.loads((FIXTURES / "mixtral-8x7b.json").read_text())
    path = tmp_path / "config.json"
    path.write_text(json.dumps({**config, "num_local_experts": 4}))
    call_command(
        "loadcatalog",
        data_dir=data_dir,
        hf_config=path,
        slug="mixtral-4x7b-test",
        name="Mixtral 4x7B (test)",
        family="Mixtral",
        source=["https://example.org/config.json"],
        notes="Half the experts.",
    )
    item = ModelArchitecture.objects.get(slug="mixtral-4x7b-test")
    assert (item.experts, item.active_experts, item.context) == (4, 2, 32768)
    assert (
        item.notes == "Half the experts." and item.source_urls == "https://example.org/config.json"
    )
    assert "mixtral-4x7b-test" in rows(data_dir)


def test_a_config_missing_a_key_names_it_and_changes_nothing(data_dir, tmp_path):
    config = json.loads((FIXTURES / "llama-2-7b.json").read_text())
    del config["vocab_size"]
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config))
    before = (data_dir / "models" / "models.csv").read_bytes()
    with pytest.raises(CommandError, match="vocab_size: is required"):
        call_command(
            "loadcatalog",
            data_dir=data_dir,
            hf_config=path,
            slug="x-7b",
            name="X",
            family="Llama 2",
            source=["https://example.org/c.json"],
        )
    assert (data_dir / "models" / "models.csv").read_bytes() == before


def test_a_row_the_catalog_refuses_leaves_the_data_as_it_was(data_dir):
    before = (data_dir / "models" / "models.csv").read_bytes()
    with pytest.raises(CommandError, match="model not added"):
        add(data_dir, "llama-2-7b", slug="Not A Slug!", name="X", family="Llama 2")
    assert (data_dir / "models" / "models.csv").read_bytes() == before


@pytest.mark.parametrize(
    ("fixture", "family", "field"),
    [
        ("gpt2", "Llama", "family"),  # a plain MLP under a family read as gated
        ("llama-2-7b", "GPT-J", "family"),
        ("qwen3-30b-a3b", "Qwen3", "head_dim"),  # the catalog has no per-head width
    ],
)
def test_what_the_catalog_cannot_hold_is_refused(data_dir, fixture, family, field):
    with pytest.raises(CommandError, match=field):
        add(data_dir, fixture, slug="some-model", name="Some", family=family, source=QWEN3_CARD)


def test_the_curators_fields_are_required(data_dir):
    with pytest.raises(CommandError, match="--slug, --name, --family"):
        call_command("loadcatalog", data_dir=data_dir, hf_config=FIXTURES / "gpt2.json")
