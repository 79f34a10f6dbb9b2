"""Schemas of the estimate contract for the OpenAPI document. Validation itself is the engine's
(planner.engine.request), shared with `manage.py estimate`, so both answer the same errors."""

from drf_spectacular.utils import OpenApiExample
from rest_framework import serializers

PRECISION_CHOICES = ["fp32", "tf32", "bf16", "fp16", "fp8", "int8", "int4"]


class ParallelismSerializer(serializers.Serializer):
    tp = serializers.IntegerField(min_value=1, required=False, help_text="Tensor parallel degree")
    pp = serializers.IntegerField(min_value=1, required=False, help_text="Pipeline stages")
    dp = serializers.IntegerField(min_value=1, required=False, help_text="Data parallel degree")
    cp = serializers.IntegerField(min_value=1, required=False, help_text="Context parallel degree")
    vp = serializers.IntegerField(
        min_value=1, required=False, help_text="Virtual stages per device"
    )


class InferenceInputSerializer(serializers.Serializer):
    batch = serializers.IntegerField(min_value=1, required=False, default=1)
    prompt_len = serializers.IntegerField(min_value=1, required=False, default=512)
    output_len = serializers.IntegerField(min_value=1, required=False, default=128)
    kv_precision = serializers.ChoiceField(
        ["fp32", "bf16", "fp16", "fp8", "int8", "int4"], required=False
    )


class EstimateRequestSerializer(serializers.Serializer):
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


class FieldErrorsSerializer(serializers.Serializer):
    """`{"<field path>": ["message"]}`, e.g. `{"parallelism.tp": ["must divide the model's 32 attention heads"]}`."""

    field = serializers.ListField(child=serializers.CharField(), required=False)


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
