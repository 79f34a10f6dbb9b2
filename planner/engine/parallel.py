"""The parallelism search: every layout of tensor, pipeline and data parallelism, micro-batch,
ZeRO stage and recompute policy that the cluster admits, and the global batch when the question
leaves it to the engine, sized and timed at once with numpy; and the serving layout, the
smallest tensor-parallel group whose shard fits."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TypeAlias

import numpy as np
import numpy.typing as npt

from planner.engine.arrays import Floats
from planner.engine.batch import searched_batches
from planner.engine.memory import (
    RECOMPUTE_CODE,
    inference_memory,
    training_memory,
    usable_memory_bytes,
)
from planner.engine.shapes import stage_layers
from planner.engine.specs import EstimateRequest, ModelSpec, ParallelSpec, Recompute
from planner.engine.step import StepTime, training_step

Ints: TypeAlias = npt.NDArray[np.int64]
Bools: TypeAlias = npt.NDArray[np.bool_]

MICRO_BATCHES = (1, 2, 4, 8, 16, 32)
# Virtual pipeline stages per device tried by the search: powers of two that divide the
# fullest stage's layers, so every virtual stage holds whole layers. Each doubling halves the
# bubble and doubles the stage-to-stage sends, so returns fall off; 8 virtual stages of one
# layer each is how Llama 3 405B could run its 8-layer stages (126 layers + embedding + head
# on 16 stages, Dubey et al. 2024, arXiv 2407.21783, section 3.3.2), and bounds the search.
MAX_VIRTUAL_STAGES = 8
RECOMPUTE_NAMES: dict[int, Recompute] = {code: name for name, code in RECOMPUTE_CODE.items()}


def _powers_of_two(limit: int) -> list[int]:
    out: list[int] = []
    x = 1
    while x <= limit:
        out.append(x)
        x *= 2
    return out


LAYOUT_FIELDS = (
    "tp",
    "pp",
    "dp",
    "cp",
    "vp",
    "micro_batch",
    "zero_stage",
    "recompute_code",
    "global_batch",
    "ep",
)


@dataclass(frozen=True)
class Layouts:
    """Candidate layouts as parallel arrays, one element per candidate."""

    tp: Ints
    pp: Ints
    dp: Ints
    cp: Ints
    vp: Ints
    micro_batch: Ints
    zero_stage: Ints
    recompute_code: Ints
    global_batch: Ints  # sequences per step
    ep: Ints  # expert-parallel ranks (0: as many data-parallel ranks as experts; dense: 0)
    # The index of the same layout with the largest global batch it divides (its own where it
    # is that one): when that one fits, this one cannot win (see worth_timing).
    largest: Ints

    def __len__(self) -> int:
        return len(self.tp)

    def kwargs(self) -> dict[str, Ints]:
        """The layouts as the memory and step models take them."""
        return {name: getattr(self, name) for name in LAYOUT_FIELDS}

    def subset(self, keep: npt.NDArray[np.bool_]) -> Layouts:
        """The layouts `keep` marks, each its own largest."""
        kept = {name: getattr(self, name)[keep] for name in LAYOUT_FIELDS}
        return Layouts(**kept, largest=np.arange(int(keep.sum()), dtype=np.int64))

    def spec(
        self,
        i: int,
        *,
        sequence_parallel: bool = True,
        recompute_fraction: float = 1.0,
        ep: int = 0,
    ) -> ParallelSpec:
        return ParallelSpec(
            tp=int(self.tp[i]),
            pp=int(self.pp[i]),
            dp=int(self.dp[i]),
            cp=int(self.cp[i]),
            vp=int(self.vp[i]),
            micro_batch=int(self.micro_batch[i]),
            zero_stage=int(self.zero_stage[i]),
            recompute=RECOMPUTE_NAMES[int(self.recompute_code[i])],
            sequence_parallel=sequence_parallel,
            recompute_fraction=recompute_fraction,
            ep=ep or int(self.ep[i]),
        )


def candidate_layouts(req: EstimateRequest) -> Layouts:
    """Every layout worth timing (see _layouts); the same cluster shape gives the same set."""
    return _layouts(
        req.model,
        req.count,
        req.per_node,
        searched_batches(req),
        req.micro_batch,
        req.zero_stage,
        req.recompute,
        req.fixed_ep,
    )


def _worth_timing(batches: tuple[int, ...], per_rank: int, pp: int) -> list[int]:
    """The batches a layout (d x b sequences per micro-batch round, p stages) divides and that
    could win. A larger batch runs the same layout faster per token, and needs more memory only
    while its micro-batches are fewer than the stages (the first stage holds min(p, m) of them
    in flight); so the largest batch it divides, and the smaller ones with fewer micro-batches
    than stages, which might fit where the largest does not."""
    dividing = [g for g in batches if g % per_rank == 0]
    if not dividing:
        return []
    largest = max(dividing)
    return sorted(g for g in dividing if g == largest or g // per_rank < pp)


def _virtual_stages(layers: int, pp: int) -> list[int]:
    """Interleaving choices for `pp` stages: 1, and with a pipeline the powers of two up to
    MAX_VIRTUAL_STAGES that divide the fullest stage's layers (Narayanan et al. 2021, section
    2.2: each device runs v chunks of its layers, and the bubble shrinks v-fold)."""
    if pp == 1:
        return [1]
    most = int(stage_layers(layers, pp).most)
    return [v for v in _powers_of_two(MAX_VIRTUAL_STAGES) if most % v == 0]


def _expert_parallel_options(model: ModelSpec, dp: int, fixed: int | None) -> list[int]:
    """Expert-parallel degrees worth trying: the question's; for a MoE model every divisor of
    the expert count that divides the data-parallel degree (each rank then holds whole experts
    and the expert groups tile the data-parallel ones, as Megatron requires); 0 for a dense
    model (no experts to spread)."""
    if model.experts <= 1:
        return [0]
    if fixed:
        return [fixed]
    return [
        e for e in range(1, min(model.experts, dp) + 1) if model.experts % e == 0 and dp % e == 0
    ]


@functools.lru_cache(maxsize=4096)
def _layouts(
    model: ModelSpec,
    count: int,
    per_node: int,
    global_batches: tuple[int, ...],
    micro_batch: int | None,
    zero_stage: int | None,
    recompute: Recompute | None,
    fixed_ep: int | None = None,
) -> Layouts:
    """Every layout worth timing: TP within a node and dividing the heads, PP up to the layer
    count, DP the rest; micro-batches that divide a global batch; ZeRO stages and recompute
    policies unless the request fixes them; interleaving where a stage's layers split evenly
    into virtual stages; for MoE models, the expert-parallel degree unless the request fixes
    it."""
    tps = [t for t in _powers_of_two(min(per_node, count)) if model.heads % t == 0]
    rows: list[tuple[int, ...]] = []
    zeros = [zero_stage] if zero_stage is not None else [0, 1, 2, 3]
    recomputes = [RECOMPUTE_CODE[recompute]] if recompute else [0, 1, 2]
    micro = [micro_batch] if micro_batch else list(MICRO_BATCHES)
    for t in tps:
        for p in _powers_of_two(min(model.layers, count // t)):
            if count % (t * p):
                continue
            d = count // (t * p)
            vps = _virtual_stages(model.layers, p)
            eps = _expert_parallel_options(model, d, fixed_ep)
            for b in micro:
                batches = _worth_timing(global_batches, d * b, p)
                for z in zeros:
                    if d == 1 and z > 0 and zero_stage is None:
                        continue  # nothing to shard over
                    for r in recomputes:
                        for v in vps:
                            for e in eps:
                                largest = len(rows) + len(batches) - 1
                                rows.extend(
                                    (t, p, d, 1, v, b, z, r, g, e, largest) for g in batches
                                )
    if not rows:
        return Layouts(*(np.zeros(0, dtype=np.int64) for _ in range(11)))
    arr = np.asarray(rows, dtype=np.int64).T
    return Layouts(*arr)


def fixed_layout(spec: ParallelSpec, global_batches: tuple[int, ...]) -> Layouts:
    """The layout a request fixes, as a search of one per global batch it divides."""
    per_rank = spec.dp * spec.micro_batch
    batches = [g for g in global_batches if g % per_rank == 0] or [global_batches[-1]]
    rows = [
        (
            spec.tp,
            spec.pp,
            spec.dp,
            spec.cp,
            spec.vp,
            spec.micro_batch,
            spec.zero_stage,
            RECOMPUTE_CODE[spec.recompute],
            g,
            spec.ep,
            i,
        )
        for i, g in enumerate(batches)
    ]
    return Layouts(*np.asarray(rows, dtype=np.int64).T)


@dataclass(frozen=True)
class SearchResult:
    """The layouts timed, their memory and step, and the one chosen; `evaluated` and
    `feasible` count every layout sized, timed or not."""

    layouts: Layouts
    memory: Mapping[str, Floats | float]  # one layout's may be numbers
    step: StepTime
    fits: npt.NDArray[np.bool_]
    best: int  # index of the chosen layout
    evaluated: int
    feasible: int

    def pick(self, values: Floats | float) -> float:
        """The chosen layout's value of a per-layout array (a scalar is everyone's)."""
        if type(values) is float:
            return values
        return float(np.asarray(values)[self.best]) if np.ndim(values) else float(values)


def worth_timing(total: Floats, capacity: Floats | float, largest: Ints) -> tuple[Bools, Bools]:
    """Which layouts fit, and which to time: those that fit and could win, or where none could,
    the one that needs the least memory. `capacity` is one card's bytes, or a column of one per
    card judged against the same layouts (`total`, their bytes; `largest`, each one's
    largest-batch twin); the answers then have a row per card."""
    fits = total <= capacity
    positions = np.arange(len(largest))
    could_win = fits & ((largest == positions) | (total[largest] > capacity))
    none_could = ~could_win.any(axis=-1, keepdims=True)
    timed: Bools = could_win | (none_could & (positions == np.argmin(total)))
    return fits, timed


def evaluate(req: EstimateRequest, layouts: Layouts) -> SearchResult:
    """Size every layout at once, time those that fit and could win, and pick the fastest
    (when none fits, the one that needs the least memory). A layout with a smaller global
    batch than the largest that layout divides needs no more memory and is no faster per
    sequence, so it could win only where that one does not fit."""
    if len(layouts) == 1:
        one = _evaluate_one(req, layouts)
        if one is not None:
            return one
    memory = training_memory(req, **layouts.kwargs())
    fits, timed = worth_timing(
        memory["total"], usable_memory_bytes(req.accelerator), layouts.largest
    )
    evaluated, feasible = len(layouts), int(fits.sum())
    if not timed.all():
        layouts = layouts.subset(timed)
        memory = {
            name: np.broadcast_to(value, timed.shape)[timed] for name, value in memory.items()
        }
        fits = fits[timed]
    step = training_step(req, **layouts.kwargs())
    # Fastest per sequence (layouts may differ in global batch); among equals, the one that
    # leaves the most memory free.
    per_sequence = step.step_s / layouts.global_batch
    best = int(np.lexsort((memory["total"], per_sequence))[0])
    return SearchResult(layouts, memory, step, fits, best, evaluated, feasible)


def _evaluate_one(req: EstimateRequest, layouts: Layouts) -> SearchResult | None:
    """One layout (a question that fixes it): sized and timed in Python numbers, which the
    engine's functions take as they take arrays (planner.engine.arrays) at a fraction of
    numpy's cost per call; None where plain arithmetic stops at what numpy carries on through
    (a division by zero), for the arrays to answer."""
    row = {name: int(value[0]) for name, value in layouts.kwargs().items()}
    try:
        sized = training_memory(req, **row)
        timed = training_step(req, **row)
    except (ZeroDivisionError, OverflowError):
        return None
    # Its memory and step stay numbers: the answer reads them through SearchResult.pick.
    fits = np.array([sized["total"] <= usable_memory_bytes(req.accelerator)])
    return SearchResult(layouts, sized, timed, fits, 0, 1, int(fits[0]))


def smallest_fitting_tp(req: EstimateRequest) -> int:
    """Serving layout: the smallest tensor-parallel group inside one server whose shard fits;
    the other devices serve as independent replicas (the largest group when none fits)."""
    options = [
        t
        for t in (1, 2, 4, 8, 16, 32, 64)
        if t <= min(req.count, req.per_node) and req.model.heads % t == 0
    ]
    for t in options:
        if inference_memory(req, tp=t)["total"] <= usable_memory_bytes(req.accelerator):
            return t
    return options[-1]


def serving_tp(req: EstimateRequest) -> tuple[int, int | None]:
    """The tensor-parallel group a serving answer is for: the question's when it fixes one,
    else the smallest whose shard fits; and, when the question fixed it, that engine choice
    to compare it with."""
    chosen = smallest_fitting_tp(req)
    if req.parallelism is None:
        return chosen, None
    return req.parallelism.tp, chosen
