"""The software stack a job runs on: which framework, whether torch.compile fuses its kernels,
and how the parameters are stored. The same model on the same card runs at different speeds
and needs different memory under Megatron's fused kernels, eager PyTorch, a compiled graph or
a serving engine's CUDA graphs; each stack's figures are named here with where they come from.

Where a figure was set on measurements, it was set on the calibration rows of
planner/validation/h200_measured.csv (reports in planner/validation/measurements/
h200-2026-12-03/, one NVIDIA H200 SXM) and its error is reported on the held-out rows;
`manage.py validate` prints both.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from planner.engine import efficiency as eff
from planner.engine.messages import Message, message
from planner.engine.specs import EstimateRequest

TRAINING_FRAMEWORKS = ("megatron", "deepspeed", "fsdp", "torchtitan", "hf")
INFERENCE_FRAMEWORKS = ("vllm", "sglang", "trt-llm", "hf", "llama.cpp")
FRAMEWORKS = tuple(dict.fromkeys((*TRAINING_FRAMEWORKS, *INFERENCE_FRAMEWORKS)))
# How trained parameters are stored: fp32 under autocast (PyTorch AMP, Hugging Face Trainer's
# bf16=True), or in the compute precision with an fp32 master copy (Megatron, DeepSpeed).
PARAM_DTYPES = ("fp32", "bf16", "fp16")
# A job on more devices than one server holds is pre-training-scale; below it, fine-tuning is
# usually a Hugging Face Trainer (or PEFT) script on the server's cards.
FEW_DEVICES = 8


@dataclass(frozen=True)
class Kernels:
    """How a stack's kernels run, relative to Megatron's fused ones (which the published
    table, planner/validation/training_public.csv, was fitted on: 1.0 everywhere)."""

    name: str
    # Share of the fused stack's GEMM efficiency reached.
    gemm_share: float
    # Passes over the hidden state and MLP intermediates, as a multiple of the fused count
    # (compute.HIDDEN_PASSES, compute.MLP_PASSES).
    elementwise_factor: float
    # Seconds per kernel launch and dispatch, and kernels per layer forward.
    launch_s: float
    kernels_per_layer: int
    # Bytes held and streamed per logit for the loss: bf16 logits plus an fp32 softmax in
    # fused stacks; eager stacks upcast to fp32 and keep the upcast, the log-softmax and its
    # gradient (transformers' ForCausalLMLoss calls logits.float() then cross_entropy).
    logit_bytes: float
    # Activations kept for backward, as a multiple of Korthikanti et al.'s count (memory.
    # activations.activation_bytes_per_layer). Eager PyTorch saves the fp32 upcasts of RMSNorm and the
    # rotary and SwiGLU intermediates separately; Inductor's min-cut partitioner recomputes
    # pointwise ops in backward instead of saving them (Ansel et al. 2024, PyTorch 2, section
    # 4.2).
    activation_factor: float = 1.0


# Megatron-LM and NeMo: fused bias-GeLU/SwiGLU, fused RMSNorm/LayerNorm (Apex or Transformer
# Engine), fused cross-entropy; 14 kernels x 5 us per layer (efficiency.KERNEL_OVERHEAD_S).
FUSED = Kernels("fused", 1.0, 1.0, eff.KERNEL_OVERHEAD_S, eff.KERNELS_PER_LAYER_FORWARD, 6.0)
# Eager PyTorch as Hugging Face models run it: RMSNorm upcast to fp32 (LlamaRMSNorm), rotary
# embeddings as separate multiplies and a rotate_half, SiLU and multiply apart, each a kernel
# with its own pass over memory and its CPU dispatch (about 10-20 us with autograd). Set on
# the calibration rows HT1, HT3, HT5, HT7, HT10, HT21 (hf, eager; least mean error over a grid
# of 0.80-0.95 x 2.5-5 x 8-16 us): 3 times the fused passes, 90 % of the fused GEMM rate
# (autocast re-casts the fp32 weights for every GEMM), 60 kernels of 8 us.
EAGER = Kernels("eager", 0.90, 3.0, 8e-6, 60, 12.0, activation_factor=1.6)
# torch.compile (Inductor) fuses the pointwise chains into Triton kernels and the loss's
# upcast into its softmax; the GEMMs stay cuBLAS calls. Set on HT12, HT17, HT19 (hf + compile;
# same grid): twice the fused passes, GEMMs at 95 % of the fused rate, 20 kernels of 4 us.
COMPILED = Kernels("compiled", 0.95, 2.0, 4e-6, 20, 10.0, activation_factor=0.8)
# torchtitan without compile: Triton fused RMSNorm (norm_type fused_rmsnorm in its Llama
# configs) and SDPA flash attention, the rest eager (rotary as complex multiplies, SwiGLU).
PARTLY_FUSED = Kernels("partly_fused", 0.95, 1.6, 8e-6, 30, 6.0)


@dataclass(frozen=True)
class Stack:
    framework: str
    compile: bool
    kernels: Kernels
    # Decode replayed as CUDA graphs (serving engines) rather than launched op by op.
    cuda_graphs: bool
    # Host time per token per layer outside the kernels (Python, cache bookkeeping) that a
    # decode loop without graphs pays.
    decode_host_s_per_layer: float
    # Share of the datasheet bandwidth a decode step reaches streaming weights.
    decode_weight_bw_share: float
    # Prefill reaches the fused GEMM rate only from this many tokens on (tokens / (tokens +
    # this) of it): small prompts leave waves part-empty and launch-bound.
    prefill_half_rate_tokens: float
    # Share of reserved memory above the tensors: the caching allocator's rounding and
    # fragmentation.
    allocator_reserve: float
    # Gradients stay allocated between steps (Megatron's and DeepSpeed's contiguous gradient
    # buffers) rather than being freed by zero_grad(set_to_none=True), PyTorch's default since
    # 2.0 that Hugging Face's Trainer, FSDP2 and torchtitan use: there the gradients appear
    # only as backward frees the activations, so the peak holds one or the other.
    gradients_between_steps: bool = True
    # The training forward builds a KV cache (transformers' default `use_cache=True`), a copy of
    # every layer's keys and values held until the loss is taken.
    training_kv_cache: bool = False
    # Decode attention splits each sequence's cache across thread blocks (Flash-Decoding,
    # paged attention v2), so it streams the cache at full bandwidth whatever the batch;
    # PyTorch's scaled_dot_product_attention runs one block per sequence and KV head.
    decode_attention_split_kv: bool = True
    # A batch of one runs PyTorch's matmul as cuBLAS's matrix-vector kernels
    # (VECTOR_DECODE_WEIGHT_BW_SHARE); serving engines' own batch-one kernels are not measured
    # here and keep the tile figure.
    decode_vector_kernels: bool = False
    # Each decode step copies the whole KV cache to append one token (transformers'
    # DynamicCache: DynamicLayer.update is `torch.cat([self.keys, key_states], dim=-2)` for
    # the keys and values of every layer); serving engines and the static cache write the new
    # token in place. On the H200, generate()'s kernels took 21.3 ms a step at batch 64 and
    # 2,048 tokens against 11.6 ms for the graph-replayed static step (generate_steps.json,
    # decode.json): the 17 GB cache read and written once more.
    decode_cache_copy: bool = False


# Hugging Face generate() with the dynamic cache: host time per layer per new token (Python,
# cache bookkeeping) beside its eager kernel launches; the step takes the longer of the host's
# and the device's time (step._decode_step_s). Set on the calibration rows HD17-HD20 (two
# 16-token calls, 52-63 ms a token) and HG4-HG6 (38 steps each timed, 63-64 ms), Llama-3-8B at
# 2,048 tokens, least mean error over 0.6-1.8 ms: 1.47 ms. The second run's steps ranged from
# 22 to 121 ms within one call, the host busy throughout: generate() here is bound by a host
# whose speed drifts, and the first run's short calls caught that drift (rows HD13-HD22 say so).
HF_GENERATE_HOST_S_PER_LAYER = 1.47e-3
# A decode step captured as one CUDA graph over a static cache (calibration rows HD5-HD8,
# least mean error over 0.40-0.56): the weights stream at 52 % of the H200's 4.8 TB/s;
# cuBLAS decode-shaped GEMMs alone reached 1.3 TB/s (kernels.json). vLLM's published
# Llama-3-8B decode on H100 (about 7 ms per token at batch 1) is a similar share of 3.35 TB/s.
GRAPH_DECODE_WEIGHT_BW_SHARE = 0.52
# A batch of one multiplies each weight matrix by a single vector: PyTorch's matmul runs
# cuBLAS's matrix-vector kernels, which stream the weights faster than the tensor-core tiles
# larger batches get, whose rows are padded to the tile (set on the calibration row HD5
# jointly with the two figures around it).
VECTOR_DECODE_WEIGHT_BW_SHARE = 0.58
# Eager decode launches the same GEMMs one by one: no better.
EAGER_DECODE_WEIGHT_BW_SHARE = 0.52
# Prefill reaches tokens / (tokens + this) of the GEMM rate. Eager PyTorch: set on the
# calibration row HP2 (Llama-3-8B, one 2,048-token prompt, grid 250-3,000): 500 tokens.
# Fused serving engines: assumed half of it, as their chunked prefill keeps chunks of 512 and
# more tokens to stay compute-bound (vLLM's max_num_batched_tokens guidance).
EAGER_PREFILL_HALF_RATE_TOKENS = 500.0
FUSED_PREFILL_HALF_RATE_TOKENS = 250.0
# The caching allocator keeps freed blocks for reuse and rounds every block up. Fused stacks
# lose a few per cent to fragmentation (PyTorch memory notes; observed 3-8 % in large runs);
# eager runs, with many short-lived tensors of odd sizes, about 10 % (HT1-HT21:
# max_memory_reserved over max_memory_allocated, 1.05-1.2).
EAGER_ALLOCATOR_RESERVE = 0.10
FUSED_ALLOCATOR_RESERVE = 0.05
# PyTorch's scaled_dot_product_attention at decode (one query row per sequence) runs one
# thread block per sequence and KV head; each streams its keys and values at a bounded rate,
# so the cache is read at batch x KV heads / this many blocks of the full bandwidth, up to all
# of it (Dao et al., "Flash-Decoding for long-context inference", 2023, on why a batch of one
# leaves most of the GPU idle). Set on the calibration rows HD5-HD8 (static cache, 2,048
# tokens, batch 1-64) jointly with GRAPH_DECODE_WEIGHT_BW_SHARE and
# VECTOR_DECODE_WEIGHT_BW_SHARE (least mean error over 0.44-0.74 x 0.44-0.64 x 16-192 blocks;
# three figures on four rows, so the held-out rows at 512 and 8,192 tokens are the test):
# 56 blocks, under half a block per streaming multiprocessor of the H200's 132.
DECODE_ATTENTION_SATURATING_BLOCKS = 56.0
# Serving engines: decode replayed as CUDA graphs, attention split along the cache.
SERVING_ENGINES = ("vllm", "sglang", "trt-llm", "llama.cpp")
# Frameworks whose training loop frees the gradients after each optimizer step.
FREE_GRADIENTS_FRAMEWORKS = ("hf", "fsdp", "torchtitan")


def _kernels(framework: str, compiled: bool) -> Kernels:
    if framework == "megatron" or framework in SERVING_ENGINES:
        base = FUSED
    elif framework == "torchtitan":
        base = PARTLY_FUSED
    else:
        base = EAGER
    if not compiled:
        return base
    # torch.compile fuses what the framework left apart and never undoes a fusion: each
    # figure is the better of the framework's own and Inductor's.
    return Kernels(
        name="compiled" if base is not FUSED else base.name,
        gemm_share=max(base.gemm_share, COMPILED.gemm_share),
        elementwise_factor=min(base.elementwise_factor, COMPILED.elementwise_factor),
        launch_s=min(base.launch_s, COMPILED.launch_s),
        kernels_per_layer=min(base.kernels_per_layer, COMPILED.kernels_per_layer),
        logit_bytes=min(base.logit_bytes, COMPILED.logit_bytes),
        activation_factor=min(base.activation_factor, COMPILED.activation_factor),
    )


def framework_of(req: EstimateRequest) -> str:
    """The request's framework; a request built without one is Megatron-style for training
    and a serving engine for inference (what the engine assumed before it took a stack)."""
    if req.framework is not None:
        return req.framework
    return "vllm" if req.task == "inference" else "megatron"


def stack_of(req: EstimateRequest) -> Stack:
    """The stack the request names (planner.engine.specs: framework, compile)."""
    return _stack(framework_of(req), req.compile, req.use_cache)


@functools.lru_cache(maxsize=64)
def _stack(framework: str, compiled: bool, use_cache: bool | None) -> Stack:
    """The stack of a framework (one answer asks for it a dozen times: made once)."""
    kernels = _kernels(framework, compiled)
    serving_engine = framework in SERVING_ENGINES
    eager = kernels.name in ("eager", "partly_fused")
    # Hugging Face's own recipe for fast generate(): the static cache and torch.compile's
    # "reduce-overhead" mode, which replays each decode step as CUDA graphs.
    graphs = serving_engine or (framework == "hf" and compiled)
    return Stack(
        framework=framework,
        compile=compiled,
        kernels=kernels,
        cuda_graphs=graphs,
        decode_host_s_per_layer=0.0 if graphs else HF_GENERATE_HOST_S_PER_LAYER,
        decode_weight_bw_share=(
            GRAPH_DECODE_WEIGHT_BW_SHARE if graphs else EAGER_DECODE_WEIGHT_BW_SHARE
        ),
        prefill_half_rate_tokens=(
            EAGER_PREFILL_HALF_RATE_TOKENS if eager else FUSED_PREFILL_HALF_RATE_TOKENS
        ),
        allocator_reserve=EAGER_ALLOCATOR_RESERVE if eager else FUSED_ALLOCATOR_RESERVE,
        gradients_between_steps=framework not in FREE_GRADIENTS_FRAMEWORKS,
        training_kv_cache=framework == "hf" and use_cache is not False,
        decode_attention_split_kv=serving_engine,
        decode_vector_kernels=not serving_engine,
        decode_cache_copy=not graphs,
    )


def default_framework(*, task: str, count: int) -> tuple[str, str]:
    """The framework a question that names none is answered for, and the reason's message
    code: a serving engine for inference, Megatron-style for pre-training, Hugging Face for
    fine-tuning on one server's cards and Megatron-style beyond."""
    if task == "inference":
        return "vllm", "stack.default.serving"
    if task == "train":
        return "megatron", "stack.default.pretraining"
    if count <= FEW_DEVICES:
        return "hf", "stack.default.finetune_few"
    return "megatron", "stack.default.finetune_many"


def default_param_dtype(*, framework: str, task: str, method: str) -> str | None:
    """Hugging Face and plain PyTorch (FSDP, torchtitan) train full models with fp32
    parameters under autocast; Megatron, DeepSpeed and serving store them in the compute
    precision (None), and LoRA keeps the frozen base there too."""
    if task != "inference" and framework in ("hf", "fsdp", "torchtitan") and method == "full":
        return "fp32"
    return None


def stack_note(req: EstimateRequest) -> Message:
    """What stack the answer is for, and why when the engine chose it."""
    return message(
        req.framework_reason or "stack.given",
        framework=framework_of(req),
        compile=message("stack.compile_on" if req.compile else "stack.compile_off"),
        param_dtype=req.param_dtype or req.precision,
        devices=req.count,
    )


def decode_attention_bw_share(stack: Stack, *, batch: int, kv_heads: int, tp: int) -> float:
    """The share of the memory bandwidth a decode step's attention reads the KV cache at."""
    if stack.decode_attention_split_kv:
        return 1.0
    blocks = batch * max(1, kv_heads // tp)
    return min(1.0, blocks / DECODE_ATTENTION_SATURATING_BLOCKS)


def decode_weight_bw_share(stack: Stack, *, batch: int) -> float:
    """The share of the datasheet bandwidth a decode step streams the weights at."""
    if batch == 1 and stack.decode_vector_kernels:
        return max(stack.decode_weight_bw_share, VECTOR_DECODE_WEIGHT_BW_SHARE)
    return stack.decode_weight_bw_share
