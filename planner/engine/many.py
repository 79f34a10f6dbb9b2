"""Many builds of one training question answered together, each as `estimate(req,
advise=False)` answers it alone: a plan's builds differ only in card, count, server size,
precision, fabric and calibration, and a plan of the whole catalog asks a few hundred of them.

The pass shares what the builds share and times together what they do not:
- layouts and their memory depend on the cluster's shape and the precision, not on the card:
  they are sized once for all the builds (layout_sets: each part of memory once per distinct
  layout it reads) and every card of a shape is judged against them at once
  (parallel.worth_timing over a row per card);
- a layout's step is never shorter than its pipeline's stages without their sends, run
  micro-batches + bubble times (step.stage_time); a stage is layers x one layer's time with the
  tensor, context and expert traffic nothing hides, plus the head, and those depend only on the
  card and on (micro-batch, tensor, context and expert ranks, recompute), so they come from a
  table of the few such kinds. The bound is within a few per cent of the step for most layouts;
- each build's rows whose bound is near its least are timed in full, which says what the build
  reaches; a row whose bound per sequence is above that cannot be chosen and is not timed. The
  rest are timed in one call, each row with its own card and links (step.Machine holding one
  value per row), and each build takes its fastest per sequence as parallel.evaluate does, so
  the answers are the one-by-one answers (tests/engine/test_many.py holds them equal).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from planner.engine import comms
from planner.engine.arrays import Floats
from planner.engine.compute import Hardware, fp8_recipe, hardware
from planner.engine.estimate import Estimate, estimate, training_answer
from planner.engine.layout_sets import Group, Table, group_of, table_of
from planner.engine.machine import Machine, links_of
from planner.engine.memory import usable_memory_bytes
from planner.engine.parallel import (
    LAYOUT_FIELDS,
    Ints,
    Layouts,
    SearchResult,
    candidate_layouts,
    worth_timing,
)
from planner.engine.shapes import expert_ranks
from planner.engine.specs import EstimateRequest
from planner.engine.step import (
    StepTime,
    expert_comm_s,
    layer_time,
    output_head,
    tensor_and_context_comm_s,
    training_step,
)

# A row whose bound is within this share of the best time found is timed in full: the bound and
# the step add the same terms in another order, and rounding must not drop a layout that ties.
BOUND_SLACK = 1e-9
# Rows timed first to learn what each build reaches: those whose bound is within this share of
# the build's least (on the whole-catalog 70B plan, 0.1 times about 3 % of the rows first and
# leaves about 10 % to time; 0.01 leaves 15 %).
PROBE_SHARE = 0.1
HARDWARE_FIELDS = ("gemm_peak", "gemm_eff", "other_peak", "other_eff", "bw", "attention_reference")
STEP_FIELDS = tuple(f.name for f in dataclasses.fields(StepTime))
LINK_FIELDS = ("up_bw", "up_lat", "fabric_bw", "fabric_lat", "per_node")


def estimate_many(reqs: Sequence[EstimateRequest]) -> list[Estimate | None]:
    """Each request's answer, as estimate(req, advise=False) gives it; None where that raises
    ValueError (no layout divides the batch, no usable peak rate). The requests are one
    question on many builds: they differ only in card, count, server size, precision, fabric
    and calibration (recommend.builds.build_request makes them so)."""
    if not reqs or reqs[0].task == "inference" or reqs[0].parallelism is not None:
        return [_one(req) for req in reqs]
    found = search_many(reqs)
    return [
        None if f is None else training_answer(req, f, f.layouts.spec(0), suggest=False)
        for req, f in zip(reqs, found, strict=True)
    ]


def _one(req: EstimateRequest) -> Estimate | None:
    try:
        return estimate(req, advise=False)
    except ValueError:
        return None


def search_many(reqs: Sequence[EstimateRequest]) -> list[SearchResult | None]:
    """Each request's search as parallel.evaluate makes it, cut to the chosen layout (`best`
    0, with its memory and step): what the answer reads."""
    machines: list[Machine | None] = []
    cards: dict[tuple[int, str, int], Hardware | None] = {}
    for req in reqs:
        # The builds share the question: a card's roofline depends on it, its precision and
        # its calibration alone.
        card = (id(req.accelerator), req.precision, id(req.calibration))
        if card not in cards:
            try:
                cards[card] = hardware(req)
            except ValueError:  # the card has no usable peak rate
                cards[card] = None
        hw = cards[card]
        machines.append(None if hw is None else Machine(hw, links_of(req)))
    keyed: dict[tuple[int, int, str, str | None], list[int]] = {}
    for i, req in enumerate(reqs):
        if machines[i] is not None:
            key = (req.count, req.per_node, req.precision, fp8_recipe(req))
            keyed.setdefault(key, []).append(i)
    by_timing: dict[tuple[str, str | None], list[list[int]]] = {}
    for (_count, _per_node, precision, recipe), members in keyed.items():
        by_timing.setdefault((precision, recipe), []).append(members)
    found: list[SearchResult | None] = [None] * len(reqs)
    columns = _columns(reqs, machines)
    for shapes in by_timing.values():
        groups = []
        for members in shapes:
            rep = reqs[members[0]]
            layouts = candidate_layouts(rep)
            if len(layouts):
                groups.append(group_of(members, layouts, rep.model))
        if groups:
            for i, result in _search(reqs, machines, columns, groups).items():
                found[i] = result
    return found


def _search(
    reqs: Sequence[EstimateRequest],
    machines: Sequence[Machine | None],
    columns: dict[str, Floats],
    groups: list[Group],
) -> dict[int, SearchResult]:
    """Size, bound, time and choose for the groups of one precision and FP8 recipe."""
    req = reqs[int(groups[0].members[0])]
    operand_bytes = next(m for m in machines if m is not None).hw.operand_bytes
    table = table_of(groups, req.model)
    counts = [reqs[int(g.members[0])].count for g in groups]
    memory = table.memory(req, np.repeat(counts, [len(g.layouts) for g in groups]))
    rows = _rows(groups, table, memory["total"], columns["capacity"])
    per_layer, head = _layer_table(req, columns, operand_bytes, groups, rows.table)
    bound = _step_bound(table, rows.row, per_layer[rows.kind], head[rows.kind])
    build, row, step = _timed(req, columns, operand_bytes, table, rows, bound)
    # Fastest per sequence; among equals, the one that leaves the most memory free.
    chosen = np.lexsort(
        (memory["total"][row], step.step_s / table.fields["global_batch"][row], build)
    )
    firsts = chosen[np.r_[True, build[chosen][1:] != build[chosen][:-1]]]
    # Each build's chosen layout as a search of one, its memory and step as numbers (what
    # SearchResult.pick and the answer read fastest).
    steps = [getattr(step, name)[firsts].tolist() for name in STEP_FIELDS]
    chosen = row[firsts]
    block = np.stack([table.fields[name][chosen] for name in LAYOUT_FIELDS]).T[:, :, None]
    sizes = {name: v[chosen].tolist() for name, v in memory.items()}
    group = (np.searchsorted(table.at, chosen, side="right") - 1).tolist()
    fits = (memory["total"][chosen] <= columns["capacity"][build[firsts]]).tolist()
    one = np.zeros(1, dtype=np.int64)
    out: dict[int, SearchResult] = {}
    for j, i in enumerate(build[firsts].tolist()):
        out[i] = SearchResult(
            layouts=Layouts(**dict(zip(LAYOUT_FIELDS, block[j], strict=True)), largest=one),
            memory={name: v[j] for name, v in sizes.items()},
            step=StepTime(*(s[j] for s in steps)),
            fits=np.array([fits[j]]),
            best=0,
            evaluated=len(groups[group[j]].layouts),
            feasible=rows.feasible[i],
        )
    return out


class _Rows(NamedTuple):
    """The layouts worth timing of every build (parallel.worth_timing), as rows: the build, the
    layout in the table, and the row of the layer table with its kind of layout; the layer
    table's rows (_layer_table) and each build's layouts that fit."""

    build: Ints
    row: Ints
    kind: Ints
    table: list[tuple[Ints, Ints, int]]
    feasible: dict[int, int]


def _rows(groups: Sequence[Group], table: Table, total: Floats, capacity: Floats) -> _Rows:
    builds, rows, kinds, layer_table, offset = [], [], [], [], 0
    feasible: dict[int, int] = {}
    for g, group in enumerate(groups):
        start = int(table.at[g])
        fits, timed = worth_timing(
            total[start : start + len(group.layouts)],
            capacity[group.members][:, None],
            group.layouts.largest,
        )
        feasible.update(zip(group.members.tolist(), fits.sum(axis=1).tolist(), strict=True))
        local, layout = np.nonzero(timed)
        n_kinds = len(group.kinds)
        builds.append(group.members[local])
        rows.append(start + layout)
        kinds.append(offset + local * n_kinds + group.kind_of[layout])
        layer_table.append(
            (np.repeat(group.members, n_kinds), np.tile(group.kinds, len(group.members)), g)
        )
        offset += len(group.members) * n_kinds
    build, row, kind = (np.concatenate(x) for x in (builds, rows, kinds))
    return _Rows(build, row, kind, layer_table, feasible)


def _timed(
    req: EstimateRequest,
    columns: dict[str, Floats],
    operand_bytes: float,
    table: Table,
    rows: _Rows,
    bound: Floats,
) -> tuple[Ints, Ints, StepTime]:
    """The rows that could be chosen (build, layout) and their steps, timed in full."""
    build, row = rows.build, rows.row
    # What each build reaches for sure: the best of its rows whose bound is within
    # PROBE_SHARE of its least bound, timed in full (the bound is within a few per cent of the
    # step for most layouts, so the best is usually among them).
    new_build = np.r_[True, build[1:] != build[:-1]]
    least = np.minimum.reduceat(bound, np.flatnonzero(new_build))
    probe = np.flatnonzero(bound <= least[np.cumsum(new_build) - 1] * (1 + PROBE_SHARE))
    reach = np.full(len(columns["capacity"]), np.inf)
    probed = _step(req, columns, operand_bytes, table, build[probe], row[probe])
    np.minimum.at(reach, build[probe], probed.step_s / table.fields["global_batch"][row[probe]])
    keep = bound <= reach[build] * (1 + BOUND_SLACK)
    # The probed rows kept are timed already; the other rows kept are timed now.
    kept_probes = np.flatnonzero(keep[probe])
    keep[probe] = False
    rest = np.flatnonzero(keep)
    step = _joined(
        probed, kept_probes, _step(req, columns, operand_bytes, table, build[rest], row[rest])
    )
    kept = np.concatenate([probe[kept_probes], rest])
    return build[kept], row[kept], step


def _joined(first: StepTime, rows: Ints, second: StepTime) -> StepTime:
    """The rows `rows` of `first`, then every row of `second`."""
    n_first, n_second = len(first.step_s), len(second.step_s)
    return StepTime(
        *(
            np.concatenate(
                [
                    np.broadcast_to(getattr(first, name), n_first)[rows],
                    np.broadcast_to(getattr(second, name), n_second),
                ]
            )
            for name in STEP_FIELDS
        )
    )


def _columns(
    reqs: Sequence[EstimateRequest], machines: Sequence[Machine | None]
) -> dict[str, Floats]:
    """Each build's card and link figures, one array per field (NaN where a build has none)."""
    out = {}
    for part, names in (("hw", HARDWARE_FIELDS), ("net", LINK_FIELDS)):
        for name in names:
            out[name] = np.array(
                [np.nan if m is None else float(getattr(getattr(m, part), name)) for m in machines]
            )
    out["capacity"] = np.array([usable_memory_bytes(r.accelerator) for r in reqs])
    return out


def _machine_at(columns: dict[str, Floats], build: Ints, operand_bytes: float) -> Machine:
    """The cards and links of the builds `build`, one value per row."""
    hw = Hardware(
        **{f: columns[f][build] for f in HARDWARE_FIELDS},
        operand_bytes=operand_bytes,
    )
    return Machine(hw, comms.Links(**{f: columns[f][build] for f in LINK_FIELDS}))


def _layer_table(
    req: EstimateRequest,
    columns: dict[str, Floats],
    operand_bytes: float,
    groups: Sequence[Group],
    table: list[tuple[Ints, Ints, int]],
) -> tuple[Floats, Floats]:
    """For each build of each group and each kind of layout among the group's (see _Group), in
    that order: one layer's time with the scale-up and expert traffic nothing hides, and the
    output head's (step.stage_time's parts)."""
    build = np.concatenate([b for b, _k, _g in table])
    f = {
        name: np.concatenate([getattr(groups[g].layouts, name)[k] for _b, k, g in table]).astype(
            float
        )
        for name in ("tp", "cp", "dp", "micro_batch", "recompute_code", "ep")
    }
    machine = _machine_at(columns, build, operand_bytes)
    tp, cp, dp, rc = f["tp"], f["cp"], f["dp"], f["recompute_code"]
    tokens = f["micro_batch"] * req.seq_len / cp
    ranks = expert_ranks(req.model, dp, f["ep"])
    layer = layer_time(req, machine.hw, tokens=tokens, tp=tp, cp=cp, dp=dp, rc=rc, ep=ranks)
    scale_up = tensor_and_context_comm_s(
        req, tokens=tokens, tp=tp, cp=cp, rc=rc, attention=layer.attention, net=machine.net
    )
    expert = expert_comm_s(req, tokens=tokens, tp=tp, cp=cp, dp=dp, ep=ranks, net=machine.net)
    head = output_head(req, machine.hw, tokens=tokens, tp=tp)
    return layer.total.total + scale_up + expert, head.total


def _step_bound(layouts: Table, row: Ints, per_layer: Floats, head: Floats) -> Floats:
    """A floor under each row's step time per sequence: the pipeline's stages without their
    sends (step.stage_time: the slower of a full stage and the last one with the head), run
    micro-batches + bubble times."""
    stage = np.maximum(layouts.last[row] * per_layer + head, layouts.most[row] * per_layer)
    bound: Floats = layouts.rounds[row] * stage
    return bound


def _step(
    req: EstimateRequest,
    columns: dict[str, Floats],
    operand_bytes: float,
    layouts: Table,
    build: Ints,
    row: Ints,
) -> StepTime:
    """The full step of the layouts `row` of the builds `build`."""
    return training_step(
        req,
        _machine_at(columns, build, operand_bytes),
        **{name: v[row] for name, v in layouts.fields.items()},
    )
