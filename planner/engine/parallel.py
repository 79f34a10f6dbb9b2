"""The parallelism search: every layout of tensor, pipeline and data parallelism, micro-batch,
ZeRO stage and recompute policy that the cluster admits, sized and timed at once with numpy;
and the serving layout, the smallest tensor-parallel group whose shard fits."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import TypeAlias

import numpy as np
import numpy.typing as npt

from planner.engine.arrays import Floats
from planner.engine.memory import RECOMPUTE_CODE, inference_memory, training_memory
from planner.engine.specs import GIB, EstimateRequest, ModelSpec, ParallelSpec, Recompute
from planner.engine.step import StepTime, training_step

Ints: TypeAlias = npt.NDArray[np.int64]

MICRO_BATCHES = (1, 2, 4, 8, 16, 32)
RECOMPUTE_NAMES: dict[int, Recompute] = {code: name for name, code in RECOMPUTE_CODE.items()}


def _powers_of_two(limit: int) -> list[int]:
    out: list[int] = []
    x = 1
    while x <= limit:
        out.append(x)
        x *= 2
    return out


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

    def __len__(self) -> int:
        return len(self.tp)

    def kwargs(self) -> dict[str, Ints]:
        return {name: getattr(self, name) for name in self.__dataclass_fields__}

    def spec(
        self, i: int, *, sequence_parallel: bool = True, recompute_fraction: float = 1.0
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
        )


def candidate_layouts(req: EstimateRequest) -> Layouts:
    """Every layout worth timing (see _layouts); the same cluster shape gives the same set."""
    return _layouts(
        req.model,
        req.count,
        req.per_node,
        req.global_batch,
        req.micro_batch,
        req.zero_stage,
        req.recompute,
    )


@functools.lru_cache(maxsize=4096)
def _layouts(
    model: ModelSpec,
    count: int,
    per_node: int,
    global_batch: int,
    micro_batch: int | None,
    zero_stage: int | None,
    recompute: Recompute | None,
) -> Layouts:
    """Every layout worth timing: TP within a node and dividing the heads, PP up to the layer
    count, DP the rest; micro-batches that divide the global batch; ZeRO stages and recompute
    policies unless the request fixes them; interleaving where the layers divide evenly."""
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
            vps = [1] + ([2] if p > 1 and model.layers % (2 * p) == 0 else [])
            for b in micro:
                if global_batch % (d * b):
                    continue
                for z in zeros:
                    if d == 1 and z > 0 and zero_stage is None:
                        continue  # nothing to shard over
                    for r in recomputes:
                        for v in vps:
                            rows.append((t, p, d, 1, v, b, z, r))
    if not rows:
        return Layouts(*(np.zeros(0, dtype=np.int64) for _ in range(8)))
    arr = np.asarray(rows, dtype=np.int64).T
    return Layouts(*arr)


def fixed_layout(spec: ParallelSpec) -> Layouts:
    """The one layout a request fixes, as a search of one."""
    values = (
        spec.tp,
        spec.pp,
        spec.dp,
        spec.cp,
        spec.vp,
        spec.micro_batch,
        spec.zero_stage,
        RECOMPUTE_CODE[spec.recompute],
    )
    return Layouts(*(np.asarray([v], dtype=np.int64) for v in values))


@dataclass(frozen=True)
class SearchResult:
    layouts: Layouts
    memory: dict[str, Floats]
    step: StepTime
    fits: npt.NDArray[np.bool_]
    best: int  # index of the chosen layout

    @property
    def evaluated(self) -> int:
        return len(self.layouts)

    def pick(self, values: Floats | float) -> float:
        """The chosen layout's value of a per-layout array (a scalar is everyone's)."""
        return float(np.asarray(values)[self.best]) if np.ndim(values) else float(values)


def evaluate(req: EstimateRequest, layouts: Layouts) -> SearchResult:
    """Size and time every layout at once, and pick the best."""
    kwargs = layouts.kwargs()
    memory = training_memory(req, **kwargs)
    step = training_step(req, **kwargs)
    capacity = req.accelerator.memory_gib * GIB
    fits = memory["total"] <= capacity
    if fits.any():
        # Fastest layout that fits; among equals, the one that leaves the most memory free.
        order = np.lexsort((memory["total"], np.where(fits, step.step_s, np.inf)))
        best = int(order[0])
    else:
        best = int(np.argmin(memory["total"]))
    return SearchResult(layouts, memory, step, fits, best)


def smallest_fitting_tp(req: EstimateRequest) -> int:
    """Serving layout: the smallest tensor-parallel group inside one server whose shard fits;
    the other devices serve as independent replicas (the largest group when none fits)."""
    options = [
        t
        for t in (1, 2, 4, 8, 16, 32, 64)
        if t <= min(req.count, req.per_node) and req.model.heads % t == 0
    ]
    for t in options:
        if inference_memory(req, tp=t)["total"] <= req.accelerator.memory_gib * GIB:
            return t
    return options[-1]
