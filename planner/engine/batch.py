"""The global batch a job trains with when the question gives none: a range of tokens per step
suited to the model's size, taken from published training runs, and the few batches in it that
the layout search tries.

Why a range grows with size: the largest batch that still trains efficiently, the critical
batch, tracks the gradient noise scale, which grows as the loss falls (McCandlish et al. 2018,
abstract: "the noise scale increases as the loss decreases over a training run and depends on
the model size primarily through improved model performance"); Kaplan et al. 2020, equation
1.4, fit it as B_crit = 2e8 tokens / L^(1/0.21). A bigger model reaches a lower loss, so it
takes a bigger batch. A larger batch never makes a layout slower per token (the pipeline bubble,
the data-parallel reduction and the optimizer step are spread over more micro-batches), so the
search picks the largest batch that fits; the range's upper bound is what keeps it from
spending tokens past the critical batch.

"M" tokens counts as the papers do, 2^20: Llama 3's 16M is 2,048 sequences of 8,192 tokens."""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Any, Literal

import numpy.typing as npt

from planner.engine.arrays import Floats, floats
from planner.engine.messages import Message, message
from planner.engine.specs import EstimateRequest, Task

MI = 2**20  # one "M" of tokens per step, as the papers count it
# The layout search tries at most this many batches, the largest of the range.
MAX_BATCHES = 4
# Batches are powers of two, or three times one, so they split evenly over data-parallel
# groups of powers of two (and of threes); the cluster's own odd factor is added below.
BATCH_STEPS = (1, 3)

SOURCES: dict[str, Message] = {
    # Brown et al. 2020, Table 2.1 (batch size in tokens): GPT-3 Small, Medium and Large
    # (125M-760M) 0.5M; XL (1.3B) and 2.7B 1M; 6.7B and 13B 2M; 175B 3.2M.
    "gpt3": message("batch.source.gpt3"),
    # Kaplan et al. 2020, section 1.1: "roughly 1-2 million tokens at convergence for the
    # largest models we can train" (1.5B non-embedding parameters).
    "kaplan": message("batch.source.kaplan"),
    # Touvron et al. 2023 (Llama 2), Table 1: "All models are trained with a global
    # batch-size of 4M tokens" (7B, 13B, 34B, 70B).
    "llama2": message("batch.source.llama2"),
    # Hoffmann et al. 2022, Table 4: Chinchilla 70B 1.5M -> 3M tokens, Gopher 280B 3M -> 6M,
    # doubled midway through training.
    "chinchilla": message("batch.source.chinchilla"),
    # Dubey et al. 2024 (Llama 3), section 3.4.1: 405B starts at 4M tokens in sequences of
    # 4,096, doubles to 8M in sequences of 8,192 after 252M tokens and to 16M after 2.87T;
    # Table 4 runs the 16M batch on 8,192 and 16,384 H100s.
    "llama3": message("batch.source.llama3"),
    # Touvron et al. 2023 (Llama 2), section 3.1: supervised fine-tuning of Llama 2-Chat with
    # "a batch size of 64, and a sequence length of 4096 tokens".
    "llama2_chat": message("batch.source.llama2_chat"),
    # Taori et al. 2023, Stanford Alpaca README, fine-tuning hyperparameters: batch size 128,
    # max length 512.
    "alpaca": message("batch.source.alpaca"),
}
CITATIONS = {
    "gpt3": "Brown et al. 2020, Table 2.1",
    "kaplan": "Kaplan et al. 2020, §1.1; McCandlish et al. 2018",
    "llama2": "Touvron et al. 2023, Table 1",
    "chinchilla": "Hoffmann et al. 2022, Table 4",
    "llama3": "Dubey et al. 2024, §3.4.1",
    "llama2_chat": "Touvron et al. 2023, §3.1",
    "alpaca": "Taori et al. 2023",
}


@dataclass(frozen=True)
class BatchRange:
    """Tokens per step for pre-training models below `below_params` parameters (fine-tuning:
    sequences per step, whatever the size), and the runs the bounds come from."""

    below_params: float
    low: int
    high: int
    sources: tuple[str, ...]
    unit: Literal["tokens", "sequences"] = "tokens"

    def tokens(self, seq_len: int) -> tuple[int, int]:
        """The range in tokens per step at this sequence length."""
        if self.unit == "tokens":
            return self.low, self.high
        return self.low * seq_len, self.high * seq_len

    def holds(self, sequences: int, seq_len: int) -> bool:
        low, high = self.tokens(seq_len)
        return low <= sequences * seq_len <= high

    @property
    def citations(self) -> list[str]:
        return [CITATIONS[s] for s in self.sources]

    def citing(self) -> list[Message]:
        return [SOURCES[s] for s in self.sources]


# Pre-training, by total parameters. Each band's low bound is the smallest published batch of
# a model in (or at the foot of) the band, its high bound the largest.
PRETRAINING = (
    # GPT-3 125M-760M: 0.5M, and 1M from the next size up (XL, 1.3B); Kaplan: the critical
    # batch reaches 1-2M only at convergence of 1.5B.
    BatchRange(1e9, MI // 2, MI, ("gpt3", "kaplan")),
    # GPT-3 1.3B and 2.7B: 1M; Kaplan: 1-2M at convergence of their largest, 1.5B.
    BatchRange(3e9, MI, 2 * MI, ("gpt3", "kaplan")),
    # GPT-3 6.7B and 13B: 2M; Chinchilla 70B: 1.5M -> 3M; Llama 2 7B-70B: 4M.
    BatchRange(100e9, 2 * MI, 4 * MI, ("gpt3", "chinchilla", "llama2")),
    # GPT-3 175B: 3.2M (3 x 2^20, 1,536 sequences of 2,048); Gopher 280B: 3M -> 6M.
    BatchRange(300e9, 3 * MI, 6 * MI, ("gpt3", "chinchilla")),
    # Llama 3 405B: 4M -> 8M -> 16M.
    BatchRange(math.inf, 4 * MI, 16 * MI, ("llama3",)),
)
# Supervised fine-tuning (full, LoRA or QLoRA) uses a small batch of sequences whatever the
# model's size: Llama 2-Chat 64 sequences, Alpaca 128.
FINETUNING = BatchRange(math.inf, 64, 128, ("llama2_chat", "alpaca"), unit="sequences")


def batch_range(task: Task, params: float) -> BatchRange:
    """The range for a job. A mixture of experts goes by its total parameters: DeepSeek-V3
    (671B total, 37B active) ramped its batch from 3,072 to 15,360 sequences of 4K tokens,
    12M to 60M tokens (DeepSeek-AI 2024, section 4.2), far above the 4M of dense models its
    active size (Llama 2 34B and 70B), so the active count would understate it."""
    if task == "finetune":
        return FINETUNING
    return next(band for band in PRETRAINING if params < band.below_params)


def _odd_part(n: int) -> int:
    while n > 1 and n % 2 == 0:
        n //= 2
    return n


@functools.lru_cache(maxsize=4096)
def candidate_batches(rule: BatchRange, *, seq_len: int, count: int) -> tuple[int, ...]:
    """The batches (sequences per step) the layout search tries: powers of two, three times
    them, and the cluster's odd factor times them (so a cluster of 24 or 40 devices divides
    some batch evenly), within the range at this sequence length; the largest MAX_BATCHES of
    them. When the range holds none (a sequence longer than the range allows), the largest
    such batch below it, and at least one sequence."""
    low, high = rule.tokens(seq_len)
    found: set[int] = set()
    below: set[int] = {1}
    for step in sorted({*BATCH_STEPS, _odd_part(count)}):
        size = step
        while size * seq_len <= high:
            below.add(size)
            if size * seq_len >= low:
                found.add(size)
            size *= 2
    if not found:
        return (max(below),)
    return tuple(sorted(found)[-MAX_BATCHES:])


def sequences_per_step(global_batch: npt.ArrayLike | None, given: int | None) -> Floats:
    """The batch of each layout: the layouts' own (the search's) or the request's."""
    batch = global_batch if global_batch is not None else given
    if batch is None:
        raise ValueError("the global batch is chosen per layout: pass the layouts' global_batch")
    return floats(batch)


def searched_batches(req: EstimateRequest) -> tuple[int, ...]:
    """The global batches the layout search tries: the request's, or a few in the range for the
    model's size when the request leaves the batch to the search."""
    if req.global_batch is not None:
        return (req.global_batch,)
    rule = batch_range(req.task, req.model.params)
    return candidate_batches(rule, seq_len=req.seq_len, count=req.count)


def batch_answer(req: EstimateRequest, chosen: int) -> tuple[dict[str, Any], Message]:
    """The answer's batch section (the batch the step runs with, given or chosen, and the range
    for the model's size with its sources) and the sentence saying why."""
    rule = batch_range(req.task, req.model.params)
    low, high = rule.tokens(req.seq_len)
    searched = list(searched_batches(req)) if req.global_batch is None else []
    section = {
        "global_batch": chosen,
        "tokens_per_step": chosen * req.seq_len,
        "chosen": req.global_batch is None,
        "searched": searched,
        "min_tokens": low,
        "max_tokens": high,
        "sources": rule.citations,
    }
    figures = {"sequences": chosen, "seq_len": req.seq_len, "tokens_m": chosen * req.seq_len / MI}
    if req.global_batch is not None:
        return section, message("batch.given", **figures)
    if rule.unit == "sequences":
        return section, message(
            "batch.chosen.finetune",
            **figures,
            searched=searched,
            low=rule.low,
            high=rule.high,
            sources=rule.citing(),
        )
    return section, message(
        "batch.chosen.pretraining",
        **figures,
        searched=searched,
        low_m=low / MI,
        high_m=high / MI,
        params_b=req.model.params / 1e9,
        sources=rule.citing(),
    )
