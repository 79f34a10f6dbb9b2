"""The curated catalog itself: coverage, sources and figures that make physical sense."""

import pytest

from catalog.loader import read_catalog

CATALOG = read_catalog()
ACCELERATORS = {row.values["slug"]: row.values for row in CATALOG["accelerators"]}
SERVERS = {row.values["slug"]: (row.values, row.references) for row in CATALOG["servers"]}
FABRICS = {row.values["slug"]: row.values for row in CATALOG["fabrics"]}
MODELS = {row.values["slug"]: row.values for row in CATALOG["models"]}

# Every card the seed articles name, and today's market.
REQUIRED_ACCELERATORS = {
    "nvidia-rtx-3090",
    "nvidia-rtx-4090",
    "nvidia-rtx-4060-laptop",
    "nvidia-a100-sxm4-40gb",
    "nvidia-a100-sxm4-80gb",
    "nvidia-a100-pcie-40gb",
    "nvidia-a100-pcie-80gb",
    "nvidia-h100-sxm5-80gb",
    "nvidia-h100-pcie-80gb",
    "huawei-ascend-910b",
    "huawei-ascend-310p",
    "nvidia-v100-sxm2-32gb",
    "nvidia-a10",
    "nvidia-a30",
    "nvidia-a40",
    "nvidia-l4",
    "nvidia-l40s",
    "nvidia-h100-nvl-94gb",
    "nvidia-h200-sxm-141gb",
    "nvidia-h20",
    "nvidia-h800-sxm5-80gb",
    "nvidia-a800-sxm4-80gb",
    "nvidia-gh200-144gb",
    "nvidia-b200-sxm-180gb",
    "nvidia-rtx-5090",
    "nvidia-rtx-a6000",
    "nvidia-rtx-6000-ada",
    "amd-mi250x",
    "amd-mi300x",
    "amd-mi325x",
    "intel-gaudi2",
    "intel-gaudi3",
    "intel-max-1550",
}
REQUIRED_MODELS = {
    "meta-llama-2-7b",
    "meta-llama-2-70b",
    "meta-llama-3-8b",
    "meta-llama-3-70b",
    "meta-llama-65b",
    "mistral-7b-v0.1",
    "mixtral-8x7b",
    "deepseek-v3",
    "gpt-3-175b",
    "opt-175b",
    "bloom-176b",
}


def test_catalog_covers_the_market_the_seeds_describe():
    assert len(ACCELERATORS) >= 35
    assert ACCELERATORS.keys() >= REQUIRED_ACCELERATORS
    assert any(
        v["segment"] == "workstation" and "RTX PRO" in v["name"].upper()
        for v in ACCELERATORS.values()
    )
    assert any(v["vendor"] == "Intel" and v["kind"] == "gpu" for v in ACCELERATORS.values())
    assert len(SERVERS) >= 10
    assert len(FABRICS) >= 8
    assert len(MODELS) >= 15
    assert MODELS.keys() >= REQUIRED_MODELS
    assert any(slug.startswith("qwen2.5") for slug in MODELS)


def test_servers_cover_the_build_types_planners_compare():
    topologies = {values["topology"] for values, _ in SERVERS.values()}
    assert {"nvswitch", "mesh", "pcie_switch", "pcie_cpu"} <= topologies
    assert any(values["airflow"] == "desktop" for values, _ in SERVERS.values())
    assert any("oam" in values["form_factors"] for values, _ in SERVERS.values())
    fixed = {refs.get("fixed_accelerator") for _, refs in SERVERS.values()}
    assert "huawei-ascend-910b" in fixed


@pytest.mark.parametrize("kind", ["accelerators", "servers", "fabrics", "models"])
def test_every_row_has_a_web_source(kind):
    for row in CATALOG[kind]:
        urls = row.values["source_urls"].split()
        assert urls, f"{row.path.name}:{row.line} has no source"
        assert all(u.startswith(("https://", "http://")) for u in urls), row.values["slug"]


@pytest.mark.parametrize("slug", sorted(ACCELERATORS))
def test_accelerator_figures_are_physically_sane(slug):
    card = ACCELERATORS[slug]
    assert card["memory_gib"] > 0 and card["memory_bw_gb_s"] > 0 and card["board_power_w"] > 0
    rates = {p: card[f"{p}_tflops"] for p in ("fp32", "bf16", "fp16", "fp8", "int8")}
    assert all(r is None or r > 0 for r in rates.values())
    # Narrower formats never run slower on the same matrix units.
    if rates["fp8"] and rates["bf16"]:
        assert rates["fp8"] >= rates["bf16"]
    if rates["bf16"] and rates["fp32"]:
        assert rates["bf16"] >= rates["fp32"]
    if card["bf16_sparse_tflops"] is not None:
        assert card["bf16_sparse_tflops"] >= card["bf16_tflops"]
    # No accelerator on sale streams its memory faster than ~10 TB/s or holds over 300 GiB.
    assert card["memory_bw_gb_s"] < 10_000 and card["memory_gib"] <= 300
    if card["headline_sparsity"]:
        # The headline may be FP8 or INT8 rather than BF16; the note must say what was halved.
        assert "spars" in card["notes"].lower(), f"{slug}: sparse headline not explained"


def test_sparse_headlines_are_stored_dense():
    # NVIDIA H100 SXM datasheet: "BF16 Tensor Core 1,979 teraFLOPS*" with "*With sparsity".
    h100 = ACCELERATORS["nvidia-h100-sxm5-80gb"]
    assert h100["headline_sparsity"] is True
    assert h100["bf16_tflops"] == pytest.approx(989, rel=0.01)
    # A100 datasheet: BF16 Tensor Core 312 TFLOPS dense, 624 with sparsity.
    assert ACCELERATORS["nvidia-a100-sxm4-80gb"]["bf16_tflops"] == pytest.approx(312)


@pytest.mark.parametrize("slug", sorted(MODELS))
def test_model_shapes_are_consistent(slug):
    m = MODELS[slug]
    assert m["heads"] % m["kv_heads"] == 0
    assert 1 <= m["active_experts"] <= m["experts"]
    assert m["active_params"] <= m["params"]
    # 12·L·h² is the dense transformer body; whole models sit within a factor of ~3 of it
    # (embeddings, SwiGLU widths); MoE totals scale with the expert count.
    body = 12 * m["layers"] * m["hidden"] ** 2
    assert 0.3 * body < m["params"] < 3.5 * body * m["experts"]


def test_slugs_follow_vendor_model_variant():
    for slug in [*ACCELERATORS, *SERVERS]:
        assert slug == slug.lower() and " " not in slug
    assert all(slug.split("-")[0] in {"nvidia", "amd", "intel", "huawei"} for slug in ACCELERATORS)
