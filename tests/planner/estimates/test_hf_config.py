"""A model by its config.json answers as its catalog entry does. The files are written from the
published configurations (tests/fixtures/hf_config/README.md cites each model card)."""

import json
from pathlib import Path

import pytest

from planner.estimates.services import estimate_run

pytestmark = pytest.mark.django_db

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "hf_config"
CATALOG_ENTRY = {
    "llama-2-7b": "meta-llama-2-7b",  # dense, multi-head attention
    "meta-llama-3-8b": "meta-llama-3-8b",  # grouped-query attention
    "mixtral-8x7b": "mixtral-8x7b",  # mixture of experts
}
JOBS = [
    {"task": "train", "accelerator": "nvidia-h100-sxm5-80gb", "count": 64, "fabric": "ib-ndr-400"},
    {"task": "finetune", "accelerator": "nvidia-a100-sxm4-80gb", "count": 8, "method": "qlora"},
    {"task": "inference", "accelerator": "nvidia-h100-sxm5-80gb", "count": 8},
]


@pytest.mark.parametrize(("fixture", "slug"), sorted(CATALOG_ENTRY.items()))
@pytest.mark.parametrize("job", JOBS, ids=lambda job: job["task"])
def test_a_pasted_config_answers_as_the_catalog_entry(loaded_catalog, fixture, slug, job):
    config = json.loads((FIXTURES / f"{fixture}.json").read_text())
    by_config = estimate_run(data={**job, "model": {"hf_config": config, "name": slug}})
    assert by_config == estimate_run(data={**job, "model": slug})
