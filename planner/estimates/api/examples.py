"""Examples the OpenAPI document shows for the estimate and fit endpoints."""

from drf_spectacular.utils import OpenApiExample

EXAMPLES = [
    OpenApiExample(
        "Pre-train Llama 3 70B on 1,024 H100",
        value={
            "task": "train",
            "model": "meta-llama-3-70b",
            "accelerator": "nvidia-h100-sxm5-80gb",
            "count": 1024,
            "fabric": "ib-ndr-400",
            "tokens": 2e12,
        },
        request_only=True,
    ),
    OpenApiExample(
        "QLoRA-tune a 7B model on one RTX 3090",
        value={
            "task": "finetune",
            "model": "meta-llama-2-7b",
            "accelerator": "nvidia-rtx-3090",
            "count": 1,
            "method": "qlora",
            "global_batch": 8,
            "seq_len": 512,
        },
        request_only=True,
    ),
    OpenApiExample(
        "Serve Llama 3 8B on one H100",
        value={
            "task": "inference",
            "model": "meta-llama-3-8b",
            "accelerator": "nvidia-h100-sxm5-80gb",
            "count": 1,
            "inference": {"batch": 16, "prompt_len": 512, "output_len": 128},
        },
        request_only=True,
    ),
    OpenApiExample(
        "Serve a model by its Hugging Face config.json",
        value={
            "task": "inference",
            "model": {
                "hf_config": {
                    "model_type": "mistral",
                    "hidden_size": 4096,
                    "intermediate_size": 14336,
                    "num_attention_heads": 32,
                    "num_hidden_layers": 32,
                    "num_key_value_heads": 8,
                    "vocab_size": 32000,
                    "hidden_act": "silu",
                    "rms_norm_eps": 1e-05,
                    "tie_word_embeddings": False,
                }
            },
            "accelerator": "nvidia-l40s",
            "count": 1,
        },
        request_only=True,
    ),
    OpenApiExample(
        "Compare builds in one request (an array)",
        value=[
            {"task": "train", "model": "meta-llama-3-8b", "accelerator": accelerator, "count": 64}
            for accelerator in ("nvidia-h100-sxm5-80gb", "nvidia-a100-sxm4-80gb")
        ],
        request_only=True,
    ),
]


FIT_EXAMPLES = [
    OpenApiExample(
        "32 DGX H100 in 15 kW racks with A/B feeds",
        value={
            "rack": {
                "power_kw": 15,
                "cooling_kw": 15,
                "units": 42,
                "max_kg": 1200,
                "inlet_c": 27,
                "cooling": "air",
                "feeds": "2n",
            },
            "server": "nvidia-dgx-h100",
            "servers": 32,
            "pue": 1.3,
            "price_per_kwh": 0.12,
        },
        request_only=True,
    ),
    OpenApiExample(
        "Four RTX 4090 in a 2U server",
        value={
            "rack": {"power_kw": 10, "cooling_kw": 10, "units": 42, "max_kg": 1000},
            "server": "dell-poweredge-r760xa",
            "accelerator": "nvidia-rtx-4090",
            "servers": 4,
        },
        request_only=True,
    ),
    OpenApiExample(
        "An inline liquid-cooled server",
        value={
            "rack": {
                "power_kw": 40,
                "cooling_kw": 40,
                "units": 48,
                "max_kg": 1500,
                "cooling": "liquid",
            },
            "server": {"power_kw": 14.3, "units": 10, "kg": 142.4, "cooling": "liquid"},
            "servers": 8,
        },
        request_only=True,
    ),
    OpenApiExample(
        "Answer",
        value={
            "servers_per_rack": 1,
            "racks_needed": 32,
            "binding": "power",
            "limits": {"power": 1, "cooling": 1, "units": 5, "weight": 9},
            "it_power_kw": 326.4,
            "facility_power_kw": 424.32,
            "yearly_energy_kwh": 3717043.2,
            "yearly_energy_cost": 446045.18,
            "eta_thermal": 1.0,
            "warnings": [
                "2N feeds: each feed must carry the whole load, so 15 kW per feed is the budget"
            ],
        },
        response_only=True,
    ),
]
