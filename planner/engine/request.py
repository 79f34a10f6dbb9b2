"""The estimate contract's JSON question turned into an `EstimateRequest`, or a `RequestError`
naming the field that is wrong. Catalog slugs are resolved by callables the caller passes in,
so this module stays free of any database."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import fields
from types import MappingProxyType
from typing import Any

from planner.engine.specs import (
    ATTENTION,
    ETA_KEYS,
    KV_PRECISIONS,
    METHODS,
    OPTIMIZERS,
    PRECISIONS,
    RECOMPUTE,
    TASKS,
    AcceleratorSpec,
    EstimateRequest,
    FabricSpec,
    InferenceSpec,
    ModelSpec,
    ParallelSpec,
    ReliabilitySpec,
)


class RequestError(ValueError):
    def __init__(self, field: str, message: str):
        self.field, self.message = field, message
        super().__init__(f"{field}: {message}")


Resolver = Callable[[str], Any]

TOP_LEVEL_KEYS = {
    "task",
    "model",
    "accelerator",
    "count",
    "per_node",
    "fabric",
    "precision",
    "seq_len",
    "global_batch",
    "micro_batch",
    "tokens",
    "method",
    "lora_rank",
    "optimizer",
    "master_weights",
    "zero_stage",
    "recompute",
    "attention",
    "parallelism",
    "inference",
    "efficiency",
    "reliability",
}
DEFAULT_GLOBAL_BATCH = {"train": 1024, "finetune": 128, "inference": 1}
# Chinchilla-optimal pre-training (Hoffmann et al. 2022): about 20 tokens per parameter.
TOKENS_PER_PARAM = 20
DEFAULT_FINETUNE_TOKENS = 1e8


def _number(
    data: Mapping,
    key: str,
    path: str,
    *,
    default=None,
    integer=False,
    minimum=None,
    maximum=None,
    required=False,
):
    if key not in data or data[key] is None:
        if required:
            raise RequestError(path, "is required")
        return default
    value = data[key]
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise RequestError(path, f"must be a number, not {value!r}")
    if not math.isfinite(value):
        raise RequestError(path, "must be finite")
    if integer:
        if value != int(value):
            raise RequestError(path, f"must be a whole number, not {value!r}")
        value = int(value)
    if minimum is not None and value < minimum:
        raise RequestError(path, f"must be at least {minimum}, not {value}")
    if maximum is not None and value > maximum:
        raise RequestError(path, f"must be at most {maximum}, not {value}")
    return value


def _choice(data: Mapping, key: str, path: str, options, default=None):
    value = data.get(key, default)
    if value is None:
        return default
    if value not in options:
        raise RequestError(path, f"must be one of {', '.join(options)}, not {value!r}")
    return value


def _mapping(value, path: str) -> Mapping:
    if not isinstance(value, Mapping):
        raise RequestError(path, "must be an object")
    return value


def _optional_mapping(data: Mapping, key: str) -> Mapping:
    """An object that may be left out or null; false, 0, "" or [] are errors, not "left out"."""
    value = data.get(key)
    return {} if value is None else _mapping(value, key)


def _unknown_keys(data: Mapping, allowed, path: str) -> None:
    extra = sorted(set(data) - set(allowed))
    if extra:
        prefix = f"{path}." if path else ""
        raise RequestError(f"{prefix}{extra[0]}", "is not a known field")


def _model(value, resolve: Resolver) -> ModelSpec:
    if isinstance(value, str):
        return resolve(value)
    data = _mapping(value, "model")
    _unknown_keys(
        data,
        {
            "params",
            "layers",
            "hidden",
            "heads",
            "kv_heads",
            "ffn",
            "vocab",
            "experts",
            "active_experts",
            "gated_mlp",
            "name",
        },
        "model",
    )
    n = {
        k: _number(
            data, k, f"model.{k}", integer=k != "params", minimum=1, required=k != "kv_heads"
        )
        for k in ("params", "layers", "hidden", "heads", "ffn", "vocab")
    }
    kv = _number(data, "kv_heads", "model.kv_heads", integer=True, minimum=1, default=n["heads"])
    experts = _number(data, "experts", "model.experts", integer=True, minimum=1, default=1)
    active = _number(
        data, "active_experts", "model.active_experts", integer=True, minimum=1, default=1
    )
    if n["heads"] % kv:
        raise RequestError("model.kv_heads", f"must divide the {n['heads']} attention heads")
    if n["hidden"] % n["heads"]:
        raise RequestError("model.heads", f"must divide the hidden size {n['hidden']}")
    if active > experts:
        raise RequestError("model.active_experts", f"cannot exceed the {experts} experts")
    return ModelSpec(
        params=float(n["params"]),
        layers=n["layers"],
        hidden=n["hidden"],
        heads=n["heads"],
        kv_heads=kv,
        ffn=n["ffn"],
        vocab=n["vocab"],
        experts=experts,
        active_experts=active,
        gated_mlp=bool(data.get("gated_mlp", True)),
        name=str(data.get("name", "inline model")),
    )


def _accelerator(value, resolve: Resolver) -> AcceleratorSpec:
    if isinstance(value, str):
        return resolve(value)
    data = _mapping(value, "accelerator")
    _unknown_keys(
        data,
        {
            "memory_gib",
            "memory_bw_gb_s",
            "tflops",
            "tdp_w",
            "scale_up_gb_s",
            "scale_up_domain",
            "pcie_gb_s",
            "name",
        },
        "accelerator",
    )
    memory = _number(data, "memory_gib", "accelerator.memory_gib", minimum=0.001, required=True)
    bw = _number(data, "memory_bw_gb_s", "accelerator.memory_bw_gb_s", minimum=0.001, required=True)
    tflops = _mapping(data.get("tflops"), "accelerator.tflops") if "tflops" in data else None
    if not tflops:
        raise RequestError("accelerator.tflops", "is required: dense TFLOP/s by precision")
    rates = {}
    for precision in tflops:
        if precision not in PRECISIONS:
            raise RequestError(
                f"accelerator.tflops.{precision}", f"is not a precision ({', '.join(PRECISIONS)})"
            )
        rates[precision] = _number(
            tflops, precision, f"accelerator.tflops.{precision}", minimum=0.001
        )
    return AcceleratorSpec(
        memory_gib=float(memory),
        memory_bw_gb_s=float(bw),
        tflops=MappingProxyType(rates),
        tdp_w=float(_number(data, "tdp_w", "accelerator.tdp_w", minimum=0, default=0)),
        scale_up_gb_s=_number(data, "scale_up_gb_s", "accelerator.scale_up_gb_s", minimum=0.001),
        scale_up_domain=_number(
            data,
            "scale_up_domain",
            "accelerator.scale_up_domain",
            integer=True,
            minimum=1,
            default=8,
        ),
        pcie_gb_s=float(
            _number(data, "pcie_gb_s", "accelerator.pcie_gb_s", minimum=0.001, default=31.5)
        ),
        name=str(data.get("name", "inline accelerator")),
    )


def _fabric(value, resolve: Resolver) -> FabricSpec:
    if value is None:
        return FabricSpec()
    if isinstance(value, str):
        return resolve(value)
    data = _mapping(value, "fabric")
    _unknown_keys(data, {"per_gpu_gb_s", "latency_us", "name"}, "fabric")
    return FabricSpec(
        per_gpu_gb_s=float(
            _number(data, "per_gpu_gb_s", "fabric.per_gpu_gb_s", minimum=0.001, required=True)
        ),
        latency_us=float(_number(data, "latency_us", "fabric.latency_us", minimum=0, default=5.0)),
        name=str(data.get("name", "inline fabric")),
    )


def request_from_dict(
    data: Any,
    *,
    resolve_model: Resolver,
    resolve_accelerator: Resolver,
    resolve_fabric: Resolver,
) -> EstimateRequest:
    """Validate the contract's JSON and fill every documented default."""
    data = _mapping(data, "request")
    _unknown_keys(data, TOP_LEVEL_KEYS, "")
    task = _choice(data, "task", "task", TASKS)
    if task is None:
        raise RequestError("task", "is required")
    for key in ("model", "accelerator"):
        if data.get(key) in (None, ""):
            raise RequestError(key, "is required")
    model = _model(data["model"], resolve_model)
    accelerator = _accelerator(data["accelerator"], resolve_accelerator)
    count = _number(
        data, "count", "count", integer=True, minimum=1, maximum=1_000_000, required=True
    )
    per_node = _number(
        data, "per_node", "per_node", integer=True, minimum=1, maximum=1024, default=min(count, 8)
    )
    if count > per_node and count % per_node:
        raise RequestError(
            "count", f"must be a multiple of per_node ({per_node}) across several servers"
        )
    fabric = _fabric(data.get("fabric"), resolve_fabric)

    default_precision = (
        "bf16"
        if accelerator.peak_tflops("bf16")
        else "fp16"
        if accelerator.peak_tflops("fp16")
        else "fp32"
    )
    precision = _choice(data, "precision", "precision", PRECISIONS, default_precision)
    usable = precision
    if precision == "int4":
        usable = "bf16" if accelerator.peak_tflops("bf16") else "fp16"
    if not accelerator.peak_tflops(usable):
        name = accelerator.name or "this accelerator"
        raise RequestError("precision", f"{name} has no {precision} support")
    if task != "inference" and precision in ("int8", "int4"):
        raise RequestError(
            "precision", f"{precision} is for inference; train in bf16, fp16, fp8 or fp32"
        )

    seq_len = _number(
        data, "seq_len", "seq_len", integer=True, minimum=1, maximum=10_000_000, default=2048
    )
    global_batch = _number(
        data,
        "global_batch",
        "global_batch",
        integer=True,
        minimum=1,
        default=DEFAULT_GLOBAL_BATCH[task],
    )
    micro_batch = _number(data, "micro_batch", "micro_batch", integer=True, minimum=1)
    default_tokens = model.params * TOKENS_PER_PARAM if task == "train" else DEFAULT_FINETUNE_TOKENS
    tokens = float(
        _number(
            data,
            "tokens",
            "tokens",
            minimum=1,
            default=default_tokens if task != "inference" else 0,
        )
    )
    method = _choice(data, "method", "method", METHODS, "full")
    if task == "train" and method != "full":
        raise RequestError("method", "LoRA and QLoRA are fine-tuning methods; use task finetune")
    lora_rank = _number(
        data, "lora_rank", "lora_rank", integer=True, minimum=1, maximum=4096, default=16
    )
    optimizer = _choice(data, "optimizer", "optimizer", OPTIMIZERS, "adamw")
    master_weights = _choice(data, "master_weights", "master_weights", ("fp32", "none"), "fp32")
    zero_stage = _number(data, "zero_stage", "zero_stage", integer=True, minimum=0, maximum=3)
    recompute = _choice(data, "recompute", "recompute", RECOMPUTE)
    attention = _choice(data, "attention", "attention", ATTENTION, "flash")

    parallelism = None
    if data.get("parallelism") is not None:
        p = _mapping(data["parallelism"], "parallelism")
        _unknown_keys(
            p,
            {"tp", "pp", "dp", "cp", "vp", "sequence_parallel", "recompute_fraction"},
            "parallelism",
        )
        tp, pp, cp, vp = (
            _number(p, k, f"parallelism.{k}", integer=True, minimum=1, default=1)
            for k in ("tp", "pp", "cp", "vp")
        )
        dp = _number(
            p,
            "dp",
            "parallelism.dp",
            integer=True,
            minimum=1,
            default=max(count // (tp * pp * cp), 1),
        )
        if tp * pp * dp * cp != count:
            raise RequestError(
                "parallelism", f"tp x pp x dp x cp = {tp * pp * dp * cp} must equal count {count}"
            )
        if model.heads % tp:
            raise RequestError(
                "parallelism.tp", f"must divide the model's {model.heads} attention heads"
            )
        if pp > model.layers:
            raise RequestError("parallelism.pp", f"cannot exceed the model's {model.layers} layers")
        if seq_len % cp:
            raise RequestError("parallelism.cp", f"must divide seq_len {seq_len}")
        mb = micro_batch or 1
        if task != "inference" and global_batch % (dp * mb):
            raise RequestError(
                "global_batch", f"must be a multiple of dp x micro_batch = {dp * mb}"
            )
        parallelism = ParallelSpec(
            tp=tp,
            pp=pp,
            dp=dp,
            cp=cp,
            vp=vp,
            micro_batch=mb,
            zero_stage=zero_stage if zero_stage is not None else (1 if dp > 1 else 0),
            recompute=recompute or "selective",
            sequence_parallel=bool(p.get("sequence_parallel", True)),
            recompute_fraction=float(
                _number(
                    p,
                    "recompute_fraction",
                    "parallelism.recompute_fraction",
                    minimum=0,
                    maximum=1,
                    default=1.0,
                )
            ),
        )
    elif task != "inference" and global_batch < 1:
        raise RequestError("global_batch", "must be at least 1")

    inf = _optional_mapping(data, "inference")
    _unknown_keys(inf, {"batch", "prompt_len", "output_len", "kv_precision"}, "inference")
    kv_default = precision if precision in ("bf16", "fp16", "fp8", "fp32") else "bf16"
    inference = InferenceSpec(
        batch=_number(
            inf, "batch", "inference.batch", integer=True, minimum=1, maximum=1_000_000, default=1
        ),
        prompt_len=_number(
            inf, "prompt_len", "inference.prompt_len", integer=True, minimum=1, default=512
        ),
        output_len=_number(
            inf, "output_len", "inference.output_len", integer=True, minimum=1, default=128
        ),
        kv_precision=_choice(
            inf, "kv_precision", "inference.kv_precision", KV_PRECISIONS, kv_default
        ),
    )

    rel = _optional_mapping(data, "reliability")
    _unknown_keys(rel, {f.name for f in fields(ReliabilitySpec)}, "reliability")
    defaults = ReliabilitySpec()
    reliability = ReliabilitySpec(
        failures_per_gpu_hour=float(
            _number(
                rel,
                "failures_per_gpu_hour",
                "reliability.failures_per_gpu_hour",
                minimum=0,
                default=defaults.failures_per_gpu_hour,
            )
        ),
        restart_s=float(
            _number(
                rel, "restart_s", "reliability.restart_s", minimum=0, default=defaults.restart_s
            )
        ),
        checkpoint_gb_s=float(
            _number(
                rel,
                "checkpoint_gb_s",
                "reliability.checkpoint_gb_s",
                minimum=0.001,
                default=defaults.checkpoint_gb_s,
            )
        ),
    )

    eff = _optional_mapping(data, "efficiency")
    _unknown_keys(eff, ETA_KEYS, "efficiency")
    overrides = {
        k: float(_number(eff, k, f"efficiency.{k}", minimum=0.001, maximum=1)) for k in eff
    }

    return EstimateRequest(
        task=task,
        model=model,
        accelerator=accelerator,
        count=count,
        per_node=per_node,
        fabric=fabric,
        precision=precision,
        seq_len=seq_len,
        global_batch=global_batch,
        micro_batch=micro_batch,
        tokens=tokens,
        method=method,
        lora_rank=lora_rank,
        optimizer=optimizer,
        master_weights=master_weights,
        zero_stage=zero_stage,
        recompute=recompute,
        attention=attention,
        parallelism=parallelism,
        inference=inference,
        reliability=reliability,
        efficiency=MappingProxyType(overrides),
    )
