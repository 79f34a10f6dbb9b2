"""Schemas of the estimate contract for the OpenAPI document. Validation itself is the engine's
(planner.engine.request), shared with `manage.py estimate`, so both answer the same errors."""

from drf_spectacular.utils import OpenApiExample
from rest_framework import serializers

PRECISION_CHOICES = ["fp32", "tf32", "bf16", "fp16", "fp8", "int8", "int4"]


class EngineRequestSerializer(serializers.Serializer):
    """Describes a request the engine validates. There an optional field given as null means
    its default, as if it were left out (planner.engine.request: _number, _choice), so the
    document says each optional field may be null."""

    def get_fields(self):
        fields = super().get_fields()
        for field in fields.values():
            if not field.required and not field.read_only:
                field.allow_null = True
        return fields


class ParallelismSerializer(EngineRequestSerializer):
    tp = serializers.IntegerField(min_value=1, required=False, help_text="Tensor parallel degree")
    pp = serializers.IntegerField(min_value=1, required=False, help_text="Pipeline stages")
    dp = serializers.IntegerField(min_value=1, required=False, help_text="Data parallel degree")
    cp = serializers.IntegerField(min_value=1, required=False, help_text="Context parallel degree")
    vp = serializers.IntegerField(
        min_value=1, required=False, help_text="Virtual stages per device"
    )


class InferenceInputSerializer(EngineRequestSerializer):
    batch = serializers.IntegerField(min_value=1, required=False, default=1)
    prompt_len = serializers.IntegerField(min_value=1, required=False, default=512)
    output_len = serializers.IntegerField(min_value=1, required=False, default=128)
    kv_precision = serializers.ChoiceField(
        ["fp32", "bf16", "fp16", "fp8", "int8", "int4"], required=False
    )


class EstimateRequestSerializer(EngineRequestSerializer):
    task = serializers.ChoiceField(["train", "finetune", "inference"])
    model = serializers.JSONField(
        help_text="Catalog slug, or an inline shape {params, layers, hidden, heads, kv_heads, ffn, vocab, experts, active_experts}"
    )
    accelerator = serializers.JSONField(
        help_text="Catalog slug, or inline {memory_gib, memory_bw_gb_s, tflops: {bf16: ...}, tdp_w, scale_up_gb_s}"
    )
    count = serializers.IntegerField(min_value=1, help_text="Accelerators in all")
    per_node = serializers.IntegerField(
        min_value=1, required=False, help_text="Accelerators per server (default min(count, 8))"
    )
    fabric = serializers.JSONField(
        required=False,
        help_text="Catalog slug or inline {per_gpu_gb_s, latency_us}; default 200 Gbit/s per device",
    )
    precision = serializers.ChoiceField(PRECISION_CHOICES, required=False, default="bf16")
    seq_len = serializers.IntegerField(min_value=1, required=False, default=2048)
    global_batch = serializers.IntegerField(
        min_value=1, required=False, help_text="Sequences per step (train 1024, finetune 128)"
    )
    micro_batch = serializers.IntegerField(
        min_value=1, required=False, help_text="Searched when absent"
    )
    tokens = serializers.FloatField(
        min_value=1,
        required=False,
        help_text="Tokens to process (train: 20 per parameter; finetune: 1e8)",
    )
    method = serializers.ChoiceField(["full", "lora", "qlora"], required=False, default="full")
    lora_rank = serializers.IntegerField(min_value=1, required=False, default=16)
    optimizer = serializers.ChoiceField(
        ["adamw", "sgd", "adamw8bit"], required=False, default="adamw"
    )
    master_weights = serializers.ChoiceField(["fp32", "none"], required=False, default="fp32")
    zero_stage = serializers.IntegerField(
        min_value=0, max_value=3, required=False, help_text="Searched when absent"
    )
    recompute = serializers.ChoiceField(
        ["none", "selective", "full"], required=False, help_text="Searched when absent"
    )
    attention = serializers.ChoiceField(["flash", "materialized"], required=False, default="flash")
    parallelism = ParallelismSerializer(required=False, help_text="Searched when absent")
    inference = InferenceInputSerializer(required=False)
    efficiency = serializers.DictField(
        child=serializers.FloatField(min_value=0.001, max_value=1),
        required=False,
        help_text="Overrides of eta_mem, eta_interconnect, eta_sched, eta_thermal, eta_fault",
    )
    reliability = serializers.DictField(
        child=serializers.FloatField(min_value=0),
        required=False,
        help_text="failures_per_gpu_hour, restart_s, checkpoint_gb_s",
    )


class MemorySerializer(serializers.Serializer):
    per_device_gib = serializers.FloatField()
    weights_gib = serializers.FloatField()
    gradients_gib = serializers.FloatField()
    optimizer_gib = serializers.FloatField()
    activations_gib = serializers.FloatField()
    kv_cache_gib = serializers.FloatField()
    overhead_gib = serializers.FloatField()
    capacity_gib = serializers.FloatField()
    fits = serializers.BooleanField()


class ParallelismOutSerializer(ParallelismSerializer):
    micro_batch = serializers.IntegerField()
    zero_stage = serializers.IntegerField()
    recompute = serializers.CharField()


class ThroughputSerializer(serializers.Serializer):
    tokens_per_s = serializers.FloatField()
    tokens_per_s_per_device = serializers.FloatField()
    model_tflops_per_device = serializers.FloatField()
    mfu = serializers.FloatField()


class TimeSerializer(serializers.Serializer):
    seconds = serializers.FloatField()
    days = serializers.FloatField()


class InferenceOutSerializer(serializers.Serializer):
    prefill_tokens_per_s = serializers.FloatField()
    decode_tokens_per_s = serializers.FloatField()
    ttft_ms = serializers.FloatField()
    tpot_ms = serializers.FloatField()


class EfficiencySerializer(serializers.Serializer):
    eta_mem = serializers.FloatField()
    eta_interconnect = serializers.FloatField()
    eta_sched = serializers.FloatField()
    eta_thermal = serializers.FloatField()
    eta_fault = serializers.FloatField()


class EstimateResponseSerializer(serializers.Serializer):
    memory = MemorySerializer()
    parallelism = ParallelismOutSerializer()
    throughput = ThroughputSerializer()
    time = TimeSerializer()
    inference = InferenceOutSerializer()
    efficiency = EfficiencySerializer()
    explanations = serializers.DictField(child=serializers.CharField())
    bottleneck = serializers.ChoiceField(
        [
            "compute",
            "memory bandwidth",
            "scale-up link",
            "fabric",
            "pipeline bubble",
            "memory capacity",
        ]
    )
    warnings = serializers.ListField(child=serializers.CharField())
    breakdown = serializers.DictField()
    search = serializers.DictField()
    model_version = serializers.CharField()


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
]


# Facility fit (POST /api/v1/fit/) -------------------------------------------------------------


class FitRackSerializer(EngineRequestSerializer):
    power_kw = serializers.FloatField(
        help_text="Usable IT power per rack, kW; with 2N feeds what ONE feed carries"
    )
    cooling_kw = serializers.FloatField(help_text="Heat the rack's cooling removes, kW")
    units = serializers.IntegerField(min_value=1, help_text="Usable rack units (U)")
    max_kg = serializers.FloatField(help_text="Weight limit of the rack's load, kg")
    inlet_c = serializers.FloatField(
        required=False, default=25, help_text="Inlet air temperature, °C"
    )
    cooling = serializers.ChoiceField(
        ["air", "rdhx", "liquid"],
        required=False,
        default="air",
        help_text="Room air, rear-door heat exchanger, or direct liquid",
    )
    liquid_loops = serializers.BooleanField(
        required=False,
        help_text="Liquid loops for direct-liquid servers (default: cooling is liquid)",
    )
    feeds = serializers.ChoiceField(
        ["single", "2n"], required=False, default="single", help_text="Power feeds"
    )


class FitServerSerializer(EngineRequestSerializer):
    """An inline server; a catalog slug may be given instead."""

    power_kw = serializers.FloatField(help_text="Maximum system draw, kW")
    units = serializers.IntegerField(min_value=1, help_text="Rack units (U)")
    kg = serializers.FloatField(required=False, help_text="Weight, kg; unchecked when absent")
    cooling = serializers.ChoiceField(["air", "liquid"], required=False, default="air")
    airflow = serializers.ChoiceField(
        ["front_to_back", "desktop"], required=False, default="front_to_back"
    )
    accelerators = serializers.IntegerField(min_value=0, required=False, default=0)
    open_air_cards = serializers.BooleanField(
        required=False, default=False, help_text="Consumer cards with open-air or blower coolers"
    )
    max_inlet_c = serializers.FloatField(
        required=False, default=35, help_text="Rated inlet temperature, °C (ASHRAE A2: 35)"
    )


class FitRequestSerializer(EngineRequestSerializer):
    rack = FitRackSerializer()
    server = serializers.JSONField(
        help_text="Catalog server slug, or inline {power_kw, units, kg, cooling, airflow, accelerators, open_air_cards, max_inlet_c}"
    )
    accelerator = serializers.CharField(
        required=False,
        help_text="Catalog slug of the cards in a catalog server; sets its power when the server publishes none",
    )
    servers = serializers.IntegerField(min_value=1, required=False, default=1)
    pue = serializers.FloatField(
        min_value=1, required=False, default=1.0, help_text="Facility power / IT power"
    )
    price_per_kwh = serializers.FloatField(
        min_value=0, required=False, help_text="Energy price per kWh, for the yearly cost"
    )


class FitLimitsSerializer(serializers.Serializer):
    power = serializers.IntegerField()
    cooling = serializers.IntegerField()
    units = serializers.IntegerField()
    weight = serializers.IntegerField(allow_null=True, help_text="Null when the weight is unknown")


class FitResponseSerializer(serializers.Serializer):
    servers_per_rack = serializers.IntegerField()
    racks_needed = serializers.IntegerField(
        allow_null=True, help_text="Null when no server fits in the rack"
    )
    binding = serializers.ChoiceField(["power", "cooling", "units", "weight", "cooling type"])
    limits = FitLimitsSerializer(help_text="Servers per rack allowed by each limit")
    it_power_kw = serializers.FloatField()
    facility_power_kw = serializers.FloatField(help_text="IT power x PUE")
    yearly_energy_kwh = serializers.FloatField(help_text="Facility power x 8760 h, at full load")
    yearly_energy_cost = serializers.FloatField(
        allow_null=True, help_text="Null when no price_per_kwh was given"
    )
    eta_thermal = serializers.FloatField(help_text="Share of sustained clocks kept")
    warnings = serializers.ListField(child=serializers.CharField())


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
