"""The estimate question: one job on one build (the JSON of `manage.py estimate` and
`POST /api/v1/estimates/`), declared once with its defaults, bounds and units, and turned into
the engine's `EstimateRequest`.

Catalog items are named by slug or given inline (contract/items.py); slugs are resolved by
callables the caller passes in, so the engine stays free of any database. Defaults that depend
on other fields (the precision the card has, the batch of the task, the tokens of the model) are
filled when the question becomes a request, and the descriptions below say what they are."""

from __future__ import annotations

from collections.abc import Callable
from types import MappingProxyType
from typing import Annotated, Any

from pydantic import BeforeValidator, Field

from planner.engine.batch import batch_range, candidate_batches
from planner.engine.contract.base import (
    MAX_TOKENS,
    Count,
    Flag,
    Question,
    RequestError,
    number,
    problem,
    whole,
)
from planner.engine.contract.items import AcceleratorRef, FabricRef, ModelRef
from planner.engine.contract.job_parts import (
    Attention,
    Efficiency,
    Fp8Recipe,
    Framework,
    Inference,
    Lora,
    MasterWeights,
    Method,
    Optimizer,
    Parallelism,
    ParamDtype,
    Precision,
    Recompute,
    Reliability,
    Task,
)
from planner.engine.errors import gettext_noop as _
from planner.engine.shapes import lora_params_per_layer
from planner.engine.specs import (
    AcceleratorSpec,
    EstimateRequest,
    FabricSpec,
    InferenceSpec,
    ModelSpec,
    ParallelSpec,
)
from planner.engine.stack import (
    INFERENCE_FRAMEWORKS,
    TRAINING_FRAMEWORKS,
    default_framework,
    default_param_dtype,
)

# Serving decodes `inference.batch` requests together; the global batch is a training figure.
INFERENCE_GLOBAL_BATCH = 1
# Chinchilla-optimal pre-training (Hoffmann et al. 2022): about 20 tokens per parameter.
TOKENS_PER_PARAM = 20
DEFAULT_FINETUNE_TOKENS = 1e8
MAX_COUNT = 1_000_000


def _profile_id(value: Any) -> Any:
    if isinstance(value, bool) or not isinstance(value, int):
        raise problem(_("must be a calibration profile's id"))
    return value


class Job(Question):
    """What a job is, whatever it runs on: the estimate question without the build."""

    task: Task = Field(description="train | finetune | inference")
    model: ModelRef = Field(
        description='Catalog slug, an inline shape, or {"hf_config": the model\'s config.json}'
    )
    fabric: FabricRef | None = Field(
        None, description="Catalog slug or inline; default one 200 Gbit/s port per device"
    )
    precision: Precision | None = Field(
        None,
        description="Compute precision; default bf16, else fp16, else fp32 (what the card has)",
    )
    fp8_recipe: Fp8Recipe | None = Field(
        None,
        description="Transformer Engine's FP8 scaling recipe, with precision fp8: delayed or "
        "current per-tensor scaling, or mxfp8 block scaling (Blackwell cards); default mxfp8 "
        "on Blackwell, delayed elsewhere",
    )
    seq_len: Annotated[int, whole(ge=1, le=10_000_000)] = Field(
        2048, description="Tokens per sequence"
    )
    global_batch: Count | None = Field(
        None,
        description="Sequences per step; default: chosen with the layout, the fastest within "
        "the range published for the model's size (train: tokens per step by parameters, "
        "finetune: 64-128 sequences); the answer's batch section says which and why",
    )
    micro_batch: Count | None = Field(
        None, description="Sequences per micro-batch; searched when absent"
    )
    tokens: Annotated[float, number(ge=1, le=MAX_TOKENS)] | None = Field(
        None,
        description="Tokens to process; default train 20 per parameter, finetune 1e8, inference 0",
    )
    method: Method = Field("full", description="full | lora | qlora (fine-tuning)")
    lora_rank: Annotated[int, whole(ge=1, le=4096)] | None = Field(
        None, description="LoRA rank (the same as lora.rank, kept for older questions); default 16"
    )
    lora: Lora | None = Field(
        None, description="LoRA's rank and targets; default rank 16 on all seven linear maps"
    )
    optimizer: Optimizer = "adamw"
    master_weights: MasterWeights = Field("fp32", description="fp32 master copy of 16-bit weights")
    zero_stage: Annotated[int, whole(ge=0, le=3)] | None = Field(
        None, description="ZeRO stage; searched when absent"
    )
    recompute: Recompute | None = Field(
        None, description="Activation recompute; searched when absent"
    )
    attention: Attention = Field("flash", description="FlashAttention or materialised scores")
    framework: Framework | None = Field(
        None,
        description="Software stack: megatron, deepspeed, fsdp, torchtitan or hf to train; vllm, "
        "sglang, trt-llm, hf or llama.cpp to serve. Default: vllm to serve, megatron to "
        "pre-train, hf to fine-tune on one server's cards (8 or fewer), megatron beyond; the "
        "answer's explanations.stack says which and why",
    )
    compile: Flag = Field(False, description="torch.compile on (PyTorch stacks)")
    param_dtype: ParamDtype | None = Field(
        None,
        description="How trained parameters are stored: fp32 under autocast, or the compute "
        "precision; default fp32 for hf, fsdp and torchtitan full training, else the compute "
        "precision",
    )
    use_cache: Flag | None = Field(
        None,
        description="hf training: whether the forward builds a KV cache, as transformers' default "
        "configuration does (gradient checkpointing turns it off); default on for hf",
    )
    inference: Inference = Field(default_factory=Inference)
    efficiency: Efficiency = Field(default_factory=Efficiency)
    reliability: Reliability = Field(default_factory=Reliability)
    calibration: Annotated[int, BeforeValidator(_profile_id)] | None = Field(
        None,
        description="A calibration profile's id: the card's measured figures replace the defaults",
    )

    def build_request(
        self,
        *,
        model: ModelSpec,
        accelerator: AcceleratorSpec,
        fabric: FabricSpec,
        count: int,
        per_node: int,
        parallelism: Parallelism | None,
    ) -> EstimateRequest:
        """The engine's request on one build, every documented default filled; raises
        `RequestError` for what only the resolved model and card can tell."""
        if count > per_node and count % per_node:
            raise RequestError(
                "count",
                _("must be a multiple of per_node ({per_node}) across several servers"),
                per_node=per_node,
            )
        precision = self._precision(accelerator)
        self._check_fp8_recipe(precision, accelerator)
        task = self.task
        if task == "train" and self.method != "full":
            raise RequestError(
                "method", _("LoRA and QLoRA are fine-tuning methods; use task finetune")
            )
        # Absent, the layout search chooses it (planner.engine.batch).
        global_batch = INFERENCE_GLOBAL_BATCH if task == "inference" else self.global_batch
        default_tokens = (
            model.params * TOKENS_PER_PARAM if task == "train" else DEFAULT_FINETUNE_TOKENS
        )
        tokens = float(
            self.tokens
            if self.tokens is not None
            else (0 if task == "inference" else default_tokens)
        )
        kv_default = precision if precision in ("bf16", "fp16", "fp8", "fp32") else "bf16"
        lora = self._lora()
        self._check_lora_targets(model, lora["lora_targets"])
        framework, reason = self._framework(count)
        param_dtype = self.param_dtype or default_param_dtype(
            framework=framework, task=task, method=self.method
        )
        return EstimateRequest(
            task=task,
            model=model,
            accelerator=accelerator,
            count=count,
            per_node=per_node,
            fabric=fabric,
            precision=precision,
            fp8_recipe=self.fp8_recipe,
            global_batch=global_batch,
            tokens=tokens,
            **self.same_named(
                "seq_len micro_batch method optimizer master_weights zero_stage "
                "recompute attention use_cache"
            ),
            **lora,
            framework=framework,
            compile=bool(self.compile),
            param_dtype=param_dtype,
            framework_reason=reason,
            parallelism=self._layout(
                parallelism, model, count, global_batch, self._batches(model, count)
            ),
            inference=InferenceSpec(
                **self.inference.same_named("batch prompt_len output_len"),
                kv_precision=self.inference.kv_precision or kv_default,
            ),
            reliability=self.reliability.spec(),
            efficiency=MappingProxyType(self.efficiency.given()),
        )

    def resolved_model(self, resolve_model: Callable[[str], ModelSpec]) -> ModelSpec:
        return resolve_model(self.model) if isinstance(self.model, str) else self.model.spec()

    def resolved_fabric(self, resolve_fabric: Callable[[str], FabricSpec]) -> FabricSpec:
        if self.fabric is None:
            return FabricSpec()
        return resolve_fabric(self.fabric) if isinstance(self.fabric, str) else self.fabric.spec()

    def _precision(self, accelerator: AcceleratorSpec) -> str:
        default = (
            "bf16"
            if accelerator.peak_tflops("bf16")
            else "fp16"
            if accelerator.peak_tflops("fp16")
            else "fp32"
        )
        precision = self.precision or default
        usable = precision
        if precision == "int4":
            usable = "bf16" if accelerator.peak_tflops("bf16") else "fp16"
        if not accelerator.peak_tflops(usable):
            name = accelerator.name or "this accelerator"
            raise RequestError(
                "precision", _("{card} has no {precision} support"), card=name, precision=precision
            )
        if self.task != "inference" and precision in ("int8", "int4"):
            raise RequestError(
                "precision",
                _("{precision} is for inference; train in bf16, fp16, fp8 or fp32"),
                precision=precision,
            )
        return precision

    def _check_fp8_recipe(self, precision: str, accelerator: AcceleratorSpec) -> None:
        if self.fp8_recipe is None:
            return
        if precision != "fp8":
            raise RequestError("fp8_recipe", _("applies to fp8 only; set precision to fp8"))
        if self.fp8_recipe == "mxfp8" and not accelerator.block_scaled_fp8:
            name = accelerator.name or "this accelerator"
            raise RequestError(
                "fp8_recipe",
                _("{card} has no MXFP8 tensor cores (Blackwell and later); use delayed or current"),
                card=name,
            )

    def _lora(self) -> dict[str, Any]:
        """The adapters' rank and targets; `lora_rank` is the older spelling of lora.rank."""
        lora = self.lora or Lora()
        if self.lora is not None and self.lora_rank is not None and self.lora_rank != lora.rank:
            raise RequestError(
                "lora_rank",
                _("differs from lora.rank ({rank}); give the rank once"),
                rank=lora.rank,
            )
        rank = lora.rank if self.lora is not None else (self.lora_rank or lora.rank)
        return {"lora_rank": rank, "lora_targets": tuple(lora.targets)}

    def _check_lora_targets(self, model: ModelSpec, targets: tuple[str, ...]) -> None:
        """A LoRA whose targets are all absent from the model (a gate on a GELU MLP) trains
        nothing."""
        if self.method != "full" and lora_params_per_layer(model, rank=1, targets=targets) == 0:
            raise RequestError(
                "lora.targets",
                _("none of {targets} is a linear map of this model"),
                targets=", ".join(targets),
            )

    def _framework(self, count: int) -> tuple[str, str | None]:
        """The question's framework, checked against its task, or the default and why."""
        if self.framework is None:
            return default_framework(task=self.task, count=count)
        allowed = INFERENCE_FRAMEWORKS if self.task == "inference" else TRAINING_FRAMEWORKS
        if self.framework not in allowed:
            raise RequestError(
                "framework",
                _("{framework} does not run {task}; choose one of {allowed}"),
                framework=self.framework,
                task=self.task,
                allowed=", ".join(allowed),
            )
        return self.framework, None

    def _batches(self, model: ModelSpec, count: int) -> tuple[int, ...]:
        """The batches the search would try when the question gives none."""
        if self.task == "inference":
            return (INFERENCE_GLOBAL_BATCH,)
        rule = batch_range(self.task, model.params)
        return candidate_batches(rule, seq_len=self.seq_len, count=count)

    def _layout(
        self,
        p: Parallelism | None,
        model: ModelSpec,
        count: int,
        global_batch: int | None,
        searched: tuple[int, ...],
    ) -> ParallelSpec | None:
        if p is None:
            return None
        tp, pp, cp, vp = p.tp, p.pp, p.cp, p.vp
        dp = p.dp if p.dp is not None else max(count // (tp * pp * cp), 1)
        if tp * pp * dp * cp != count:
            raise RequestError(
                "parallelism",
                _("tp x pp x dp x cp = {product} must equal count {count}"),
                product=tp * pp * dp * cp,
                count=count,
            )
        if model.heads % tp:
            raise RequestError(
                "parallelism.tp",
                _("must divide the model's {heads} attention heads"),
                heads=model.heads,
            )
        if pp > model.layers:
            raise RequestError(
                "parallelism.pp",
                _("cannot exceed the model's {layers} layers"),
                layers=model.layers,
            )
        if self.seq_len % cp:
            raise RequestError(
                "parallelism.cp", _("must divide seq_len {seq_len}"), seq_len=self.seq_len
            )
        if p.ep is not None and (model.experts % p.ep or dp % p.ep):
            raise RequestError(
                "parallelism.ep",
                _("must divide the model's {experts} experts and dp {dp}"),
                experts=model.experts,
                dp=dp,
            )
        mb = self.micro_batch or 1
        if self.task != "inference" and global_batch is not None and global_batch % (dp * mb):
            raise RequestError(
                "global_batch",
                _("must be a multiple of dp x micro_batch = {multiple}"),
                multiple=dp * mb,
            )
        if (
            self.task != "inference"
            and global_batch is None
            and all(g % (dp * mb) for g in searched)
        ):
            raise RequestError(
                "global_batch",
                _(
                    "is needed: no batch in the range for the model's size ({batches}) is a "
                    "multiple of dp x micro_batch = {multiple}"
                ),
                batches=", ".join(map(str, searched)),
                multiple=dp * mb,
            )
        return ParallelSpec(
            tp=tp,
            pp=pp,
            dp=dp,
            cp=cp,
            vp=vp,
            micro_batch=mb,
            zero_stage=self.zero_stage if self.zero_stage is not None else (1 if dp > 1 else 0),
            recompute=self.recompute or "selective",
            sequence_parallel=p.sequence_parallel,
            recompute_fraction=float(p.recompute_fraction),
            ep=p.ep or 0,
        )


class EstimateQuestion(Job):
    """One job on one build: what it needs in memory, how fast it runs, how long it takes."""

    accelerator: AcceleratorRef = Field(description="Catalog slug, or inline datasheet figures")
    count: Annotated[int, whole(ge=1, le=MAX_COUNT)] = Field(description="Accelerators in all")
    per_node: Annotated[int, whole(ge=1, le=1024)] | None = Field(
        None, description="Accelerators per server; default min(count, 8)"
    )
    parallelism: Parallelism | None = Field(
        None, description="A fixed layout; searched when absent"
    )

    def to_request(
        self,
        *,
        resolve_model: Callable[[str], ModelSpec],
        resolve_accelerator: Callable[[str], AcceleratorSpec],
        resolve_fabric: Callable[[str], FabricSpec],
    ) -> EstimateRequest:
        """The engine's request, slugs resolved through the callables given."""
        model = self.resolved_model(resolve_model)
        accelerator = (
            resolve_accelerator(self.accelerator)
            if isinstance(self.accelerator, str)
            else self.accelerator.spec()
        )
        return self.build_request(
            model=model,
            accelerator=accelerator,
            fabric=self.resolved_fabric(resolve_fabric),
            count=self.count,
            per_node=self.per_node or min(self.count, 8),
            parallelism=self.parallelism,
        )
