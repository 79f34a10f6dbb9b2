"""Specs built by hand, so engine tests need neither Django nor a database."""

from types import MappingProxyType

import pytest

from planner.engine.specs import (
    AcceleratorSpec,
    EstimateRequest,
    FabricSpec,
    InferenceSpec,
    ModelSpec,
)

# Shapes from the models' config.json files (also in catalog/data/models/models.csv).
LLAMA2_7B = ModelSpec(
    params=6_738_415_616, layers=32, hidden=4096, heads=32, kv_heads=32, ffn=11008, vocab=32000
)
LLAMA3_8B = ModelSpec(
    params=8_030_261_248, layers=32, hidden=4096, heads=32, kv_heads=8, ffn=14336, vocab=128256
)
LLAMA3_70B = ModelSpec(
    params=70_553_706_496, layers=80, hidden=8192, heads=64, kv_heads=8, ffn=28672, vocab=128256
)
LLAMA31_405B = ModelSpec(
    params=405_853_388_800,
    layers=126,
    hidden=16384,
    heads=128,
    kv_heads=8,
    ffn=53248,
    vocab=128256,
)
GPT3_175B = ModelSpec(
    params=175e9,
    layers=96,
    hidden=12288,
    heads=96,
    kv_heads=96,
    ffn=4 * 12288,
    vocab=51200,
    gated_mlp=False,
)
TINY = ModelSpec(
    params=125e6,
    layers=12,
    hidden=768,
    heads=12,
    kv_heads=12,
    ffn=3072,
    vocab=50257,
    gated_mlp=False,
)
MIXTRAL = ModelSpec(
    params=46_702_792_704,
    layers=32,
    hidden=4096,
    heads=32,
    kv_heads=8,
    ffn=14336,
    vocab=32000,
    experts=8,
    active_experts=2,
)

# NVIDIA H100 SXM5 and A100 SXM4 80GB datasheets (dense figures).
H100 = AcceleratorSpec(
    memory_gib=80,
    memory_bw_gb_s=3350,
    tflops=MappingProxyType(
        {"fp32": 67, "tf32": 494.7, "bf16": 989.4, "fp16": 989.4, "fp8": 1978.9, "int8": 1978.9}
    ),
    tdp_w=700,
    scale_up_gb_s=450,
    scale_up_domain=8,
    pcie_gb_s=63,
    name="h100",
)
A100 = AcceleratorSpec(
    memory_gib=80,
    memory_bw_gb_s=2039,
    tflops=MappingProxyType({"fp32": 19.5, "tf32": 156, "bf16": 312, "fp16": 312, "int8": 624}),
    tdp_w=400,
    scale_up_gb_s=300,
    scale_up_domain=8,
    pcie_gb_s=31.5,
    name="a100",
)
RTX3090 = AcceleratorSpec(
    memory_gib=24,
    memory_bw_gb_s=936,
    tflops=MappingProxyType({"fp32": 35.6, "bf16": 71, "fp16": 71}),
    tdp_w=350,
    scale_up_gb_s=None,
    pcie_gb_s=31.5,
    consumer_cooling=True,
    name="rtx3090",
)
NDR = FabricSpec(per_gpu_gb_s=50, latency_us=2)


def train(model=LLAMA3_8B, accelerator=H100, count=8, **kw) -> EstimateRequest:
    kw.setdefault("tokens", 1e10)
    return EstimateRequest(
        task="train",
        model=model,
        accelerator=accelerator,
        count=count,
        per_node=min(count, 8),
        fabric=NDR,
        **kw,
    )


def serve(
    model=LLAMA3_8B, accelerator=H100, count=1, batch=1, prompt=512, output=128, kv="bf16", **kw
) -> EstimateRequest:
    return EstimateRequest(
        task="inference",
        model=model,
        accelerator=accelerator,
        count=count,
        per_node=min(count, 8),
        fabric=NDR,
        inference=InferenceSpec(batch=batch, prompt_len=prompt, output_len=output, kv_precision=kv),
        **kw,
    )


@pytest.fixture
def h100():
    return H100
