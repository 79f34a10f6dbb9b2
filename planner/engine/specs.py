"""What the engine reasons about: frozen descriptions of a model, an accelerator, a network and a
question. Units live in the field names; nothing here knows where the figures came from."""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Literal

Task = Literal["train", "finetune", "inference"]
Method = Literal["full", "lora", "qlora"]
Recompute = Literal["none", "selective", "full"]

PRECISIONS = ("fp32", "tf32", "bf16", "fp16", "fp8", "int8", "int4")
TASKS = ("train", "finetune", "inference")
METHODS = ("full", "lora", "qlora")
RECOMPUTE = ("none", "selective", "full")
OPTIMIZERS = ("adamw", "sgd", "adamw8bit")
ATTENTION = ("flash", "materialized")
KV_PRECISIONS = ("fp32", "bf16", "fp16", "fp8", "int8", "int4")
# The linear maps of a layer LoRA can adapt, named as PEFT's target_modules name them in Llama
# (q_proj ... down_proj). All seven is the QLoRA paper's recipe (Dettmers et al. 2023) and
# PEFT's "all-linear".
LORA_TARGETS = ("q", "k", "v", "o", "gate", "up", "down")

GIB = 2**30
GB = 1e9

# Bytes per stored value. int4 and int8 include one 16-bit scale per group of 128 weights
# (GPTQ/AWQ-style group quantisation); nf4 is QLoRA's 4-bit NormalFloat with double
# quantisation, 4.127 bits per parameter (Dettmers et al. 2023, section 3).
BYTES = MappingProxyType(
    {
        "fp32": 4.0,
        "tf32": 4.0,
        "bf16": 2.0,
        "fp16": 2.0,
        "fp8": 1.0,
        "int8": 1.0 + 2 / 128,
        "int4": 0.5 + 2 / 128,
        "nf4": 4.127 / 8,
    }
)


@dataclass(frozen=True)
class ModelSpec:
    """A decoder-only transformer. `ffn` is the intermediate size of one expert's MLP."""

    params: float
    layers: int
    hidden: int
    heads: int
    kv_heads: int
    ffn: int
    vocab: int
    experts: int = 1
    active_experts: int = 1
    # SwiGLU-style MLPs have three matrices (gate, up, down); GPT's GELU MLP has two.
    gated_mlp: bool = True
    name: str = ""
    # Per-head width where a config states one other than hidden / heads (Qwen3, Gemma); 0: that.
    attention_head_dim: int = 0
    # Intermediate size of the always-active shared experts of a layer, together (DeepSeekMoE,
    # Qwen-MoE); 0: none.
    shared_ffn: int = 0

    @property
    def head_dim(self) -> int:
        return self.attention_head_dim or self.hidden // self.heads

    @property
    def q_dim(self) -> int:
        return self.heads * self.head_dim

    @property
    def kv_dim(self) -> int:
        return self.kv_heads * self.head_dim

    @property
    def mlp_matrices(self) -> int:
        return 3 if self.gated_mlp else 2

    @property
    def attention_params_per_layer(self) -> float:
        # Q and K, V projections from the hidden state, then the output projection back to it.
        return self.hidden * (self.q_dim + 2 * self.kv_dim) + self.q_dim * self.hidden

    @property
    def expert_params_per_layer(self) -> float:
        return self.mlp_matrices * self.hidden * self.ffn

    @property
    def shared_expert_params_per_layer(self) -> float:
        return self.mlp_matrices * self.hidden * self.shared_ffn

    @property
    def embedding_params(self) -> float:
        return float(self.vocab * self.hidden)

    @property
    def active_params(self) -> float:
        """Parameters one token passes through (MoE: only its routed experts)."""
        if self.experts <= 1:
            return self.params
        inactive = (self.experts - self.active_experts) * self.expert_params_per_layer * self.layers
        return max(self.params - inactive, self.params * self.active_experts / self.experts)


@dataclass(frozen=True)
class AcceleratorSpec:
    """Datasheet figures. `tflops` holds dense peaks by precision; `scale_up_gb_s` is per
    device and per direction (None: the devices of a node talk over PCIe)."""

    memory_gib: float
    memory_bw_gb_s: float
    tflops: MappingProxyType[str, float]
    tdp_w: float = 0.0
    scale_up_gb_s: float | None = None
    scale_up_domain: int = 1
    pcie_gb_s: float = 32.0
    # Sustained clocks sag on cards cooled by open-air fans in a closed chassis (seeds: an RTX
    # 3090 held its memory above 90 °C for days). Data-centre parts in their chassis do not.
    consumer_cooling: bool = False
    name: str = ""
    # The catalog's architecture ("Hopper", "Blackwell", ...): which attention kernels and
    # FP8 scaling recipes the card runs; "" for an inline card, which gets the generic figures.
    architecture: str = ""

    @property
    def block_scaled_fp8(self) -> bool:
        """Tensor cores that apply MXFP8 block scales in the GEMM (Blackwell, sm_100 and on)."""
        return self.architecture == "Blackwell"

    def peak_tflops(self, precision: str) -> float | None:
        return self.tflops.get(precision)


@dataclass(frozen=True)
class FabricSpec:
    """The scale-out network as one accelerator sees it."""

    per_gpu_gb_s: float = 25.0  # one 200 Gbit/s port per accelerator
    latency_us: float = 5.0
    name: str = ""


@dataclass(frozen=True)
class ParallelSpec:
    tp: int = 1
    pp: int = 1
    dp: int = 1
    cp: int = 1  # context parallel: the sequence split across devices
    vp: int = 1  # virtual pipeline stages per device (interleaved 1F1B)
    micro_batch: int = 1
    zero_stage: int = 0
    recompute: Recompute = "selective"
    # Megatron's sequence parallelism splits norms and dropout across the tensor-parallel
    # group (Korthikanti et al. 2022); Megatron-LM before 2022 ran without it.
    sequence_parallel: bool = True
    # Share of layers whose forward is recomputed under full recompute (Megatron's
    # --recompute-num-layers; torchtitan's selective-layer checkpointing recomputes every
    # other layer, 0.5).
    recompute_fraction: float = 1.0
    # Expert parallelism: ranks of the data-parallel group the routed experts are spread over
    # (Megatron's --expert-model-parallel-size); 0: min(experts, dp), as Megatron and
    # DeepSpeed-MoE lay them out by default.
    ep: int = 0

    @property
    def devices(self) -> int:
        return self.tp * self.pp * self.dp * self.cp


@dataclass(frozen=True)
class InferenceSpec:
    batch: int = 1
    prompt_len: int = 512
    output_len: int = 128
    kv_precision: str = "bf16"


# Checkpoint storage is sized with the cluster it serves: Llama 3's Tectonic file system
# sustained 2 TB/s for its 16,384 H100s in 2,048 servers (Dubey et al. 2024, arXiv 2407.21783,
# section 3.3.1), about 1 GB/s per server.
CHECKPOINT_GB_S_PER_SERVER = 2_000 / 2_048


@dataclass(frozen=True)
class ReliabilitySpec:
    """Interruptions: Llama 3 saw 419 unexpected interruptions in 54 days on 16,384 H100s
    (Dubey et al. 2024, section 3.3.4): about 2e-5 per GPU-hour."""

    failures_per_gpu_hour: float = 2.0e-5
    restart_s: float = 600.0
    # Aggregate write bandwidth to checkpoint storage; None: CHECKPOINT_GB_S_PER_SERVER for
    # each of the job's servers.
    checkpoint_gb_s: float | None = None

    def checkpoint_write_gb_s(self, *, servers: int) -> float:
        """The storage bandwidth a job on `servers` servers writes its checkpoints at."""
        if self.checkpoint_gb_s is not None:
            return self.checkpoint_gb_s
        return CHECKPOINT_GB_S_PER_SERVER * max(servers, 1)


@dataclass(frozen=True)
class CalibrationSpec:
    """What a probe measured on a real card, in place of the engine's defaults: the share of
    the dense peak its matrix multiplies reach per precision, the share of datasheet memory
    bandwidth a copy reaches, and how a measured training step compares with the engine's
    prediction for it once those two are in."""

    name: str
    gemm_efficiency: MappingProxyType[str, float] = field(
        default_factory=lambda: MappingProxyType({})
    )
    memory_bw_efficiency: float | None = None
    scale_up_efficiency: float | None = None
    step_efficiency: float = 1.0


ETA_KEYS = ("eta_mem", "eta_interconnect", "eta_sched", "eta_thermal", "eta_fault")


@dataclass(frozen=True)
class EstimateRequest:
    task: Task
    model: ModelSpec
    accelerator: AcceleratorSpec
    count: int
    per_node: int = 8
    fabric: FabricSpec = field(default_factory=FabricSpec)
    precision: str = "bf16"
    # Transformer Engine's FP8 scaling recipe (efficiency.FP8_RECIPES); None: TE's default for
    # the card (MXFP8 block scaling on Blackwell, delayed per-tensor scaling before it).
    fp8_recipe: str | None = None
    seq_len: int = 2048
    # Sequences per step; None: the layout search chooses it within the range for the
    # model's size (planner.engine.batch).
    global_batch: int | None = 1024
    micro_batch: int | None = None
    tokens: float = 0.0
    method: Method = "full"
    lora_rank: int = 16
    lora_targets: tuple[str, ...] = LORA_TARGETS
    optimizer: str = "adamw"
    master_weights: str = "fp32"
    zero_stage: int | None = None
    recompute: Recompute | None = None
    attention: str = "flash"
    # The software stack (planner.engine.stack): None is Megatron-style for training and a
    # serving engine with CUDA graphs for inference; compile is torch.compile; param_dtype is
    # how trained parameters are stored, None: in the compute precision (with the master copy
    # `master_weights` says).
    framework: str | None = None
    compile: bool = False
    param_dtype: str | None = None
    # Hugging Face: whether the training forward builds a KV cache (transformers' default
    # configuration does; gradient checkpointing turns it off); None: as the framework does.
    use_cache: bool | None = None
    # The message code of the reason the engine chose the framework; None: the question named it.
    framework_reason: str | None = None
    parallelism: ParallelSpec | None = None
    inference: InferenceSpec = field(default_factory=InferenceSpec)
    reliability: ReliabilitySpec = field(default_factory=ReliabilitySpec)
    efficiency: MappingProxyType[str, float] = field(default_factory=lambda: MappingProxyType({}))
    calibration: CalibrationSpec | None = None

    @property
    def fixed_ep(self) -> int | None:
        """The expert-parallel degree the question fixes, if any."""
        return self.parallelism.ep or None if self.parallelism is not None else None

    @property
    def servers(self) -> int:
        """Servers the job spans: `per_node` accelerators in each, the last one partly full."""
        return -(-self.count // self.per_node)

    @property
    def checkpoint_gb_s(self) -> float:
        """The bandwidth the job writes its checkpoints at (see ReliabilitySpec)."""
        return self.reliability.checkpoint_write_gb_s(servers=self.servers)
