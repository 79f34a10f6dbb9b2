"""The layout sets of many builds end to end, with what is worked out once for them: what each
layout's step time depends on, how its pipeline paces, and its memory, each part of which is
sized once per distinct layout it reads (planner.engine.many reads them).

A plan's builds of one precision share a few dozen cluster shapes, each with its layout set
(parallel.candidate_layouts, cached by shape). Memory reads few of a layout's fields per part:
the states (weights, gradients, optimizer) its sharding, the activations its micro-batch
shape and the micro-batches in flight. On the whole-catalog 70B plan's 110,000 layouts that
is about 2,500 distinct shardings and 29,000 activation shapes, so each part is sized on
those and spread to the layouts, to the bit what memory.training_memory gives each layout."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from planner.engine.activations import ACTIVATION_FIELDS, in_flight_key, training_activations
from planner.engine.arrays import Floats, values
from planner.engine.memory import STATE_FIELDS, training_states, training_total
from planner.engine.parallel import LAYOUT_FIELDS, Ints, Layouts
from planner.engine.shapes import expert_ranks, stage_layers
from planner.engine.specs import EstimateRequest, ModelSpec


@dataclass(frozen=True)
class Group:
    """Builds of one cluster shape and precision (`members`, indices of the requests), their
    layouts, and the distinct (micro-batch, tensor, context and expert ranks, recompute) among
    them: what one layer's time depends on (`kinds`, a layout of each, and each layout's)."""

    members: Ints
    layouts: Layouts
    kinds: Ints
    kind_of: Ints


def group_of(members: Sequence[int], layouts: Layouts, model: ModelSpec) -> Group:
    kinds, kind_of = _kinds(layouts, model)
    return Group(np.asarray(members, dtype=np.int64), layouts, kinds, kind_of)


@dataclass(frozen=True)
class Table:
    """The layouts of groups end to end (`at`: where each group starts), with what a step's
    bound reads of each, and the distinct layouts as each part of memory reads them (a layout
    of each and each layout's)."""

    fields: dict[str, Ints]
    rounds: Floats  # micro-batches plus the bubble's stage-times, per sequence of the batch
    last: Floats  # layers on the last stage
    most: Floats  # layers on the fullest stage
    at: Ints
    states: Ints
    state_of: Ints
    activations: Ints
    activation_of: Ints

    def memory(self, req: EstimateRequest, counts: Ints) -> dict[str, Floats]:
        """memory.training_memory of every layout, for the question `req` on the clusters of
        `counts` devices (one per layout): the question fixes all else memory reads."""
        at = self.states
        states = training_states(
            req,
            tp=values(self.fields["tp"][at]),
            pp=values(self.fields["pp"][at]),
            dp=values(self.fields["dp"][at]),
            ep=self.fields["ep"][at],
            zero_stage=values(self.fields["zero_stage"][at]),
        )
        at = self.activations
        activations = training_activations(
            req,
            **{name: values(self.fields[name][at]) for name in ACTIVATION_FIELDS},
            dp=values(self.fields["dp"][at]),
            global_batch=self.fields["global_batch"][at],
        )
        return training_total(
            req,
            {name: _spread(v, self.state_of) for name, v in states.items()},
            _spread(activations, self.activation_of),
            count=counts,
        )


def table_of(groups: Sequence[Group], model: ModelSpec) -> Table:
    """The groups' table; the same layout sets (the same objects) give the same table."""
    sets = tuple(g.layouts for g in groups)
    key = (tuple(map(id, sets)), _model_key(model))
    held = _TABLES.get(key)
    if held is not None and all(a is b for a, b in zip(held[0], sets, strict=True)):
        return held[1]
    table = _table(sets, model)
    _TABLES[key] = (sets, table)
    if len(_TABLES) > _TABLES_HELD:
        _TABLES.popitem(last=False)
    return table


# Tables and kinds of layout sets, by the sets' identity (parallel.candidate_layouts caches the
# sets, so the same object comes back for the same cluster shape and model), each held with
# its sets so the identity stays theirs. A whole-catalog plan's table holds a few megabytes:
# the last few plans' only; kinds as many as that cache holds sets.
_TABLES_HELD = 16
_TABLES: OrderedDict[tuple[tuple[int, ...], int], tuple[tuple[Layouts, ...], Table]] = OrderedDict()
_KINDS_HELD = 4096
_KINDS: OrderedDict[tuple[int, int], tuple[Layouts, tuple[Ints, Ints]]] = OrderedDict()


def _model_key(model: ModelSpec) -> int:
    return model.layers << 20 | model.experts


def _table(sets: Sequence[Layouts], model: ModelSpec) -> Table:
    fields = {name: np.concatenate([getattr(s, name) for s in sets]) for name in LAYOUT_FIELDS}
    pp, vp = fields["pp"].astype(float), fields["vp"].astype(float)
    batch = fields["global_batch"].astype(float)
    dp, micro_batch = values(fields["dp"]), values(fields["micro_batch"])
    micro_batches = np.maximum(np.floor(batch / np.maximum(dp * micro_batch, 1)), 1)
    stages = stage_layers(model.layers, pp)
    # As activations.training_activations reads it (float arithmetic, whole numbers).
    in_flight = np.asarray(
        in_flight_key(pp=pp, dp=dp, micro_batch=micro_batch, global_batch=batch), dtype=np.int64
    )
    return Table(
        fields,
        (micro_batches + (pp - 1) / vp) / batch,
        stages.last,
        stages.most,
        np.cumsum([0, *(len(s) for s in sets)])[:-1],
        *distinct([fields[name] for name in STATE_FIELDS]),
        *distinct([*(fields[name] for name in ACTIVATION_FIELDS), in_flight]),
    )


def _kinds(layouts: Layouts, model: ModelSpec) -> tuple[Ints, Ints]:
    """A layout of each kind (Group) and each layout's kind."""
    key = (id(layouts), _model_key(model))
    held = _KINDS.get(key)
    if held is not None and held[0] is layouts:
        return held[1]
    ranks = expert_ranks(model, layouts.dp, layouts.ep).astype(np.int64)
    kinds = distinct([layouts.micro_batch, layouts.tp, layouts.cp, layouts.recompute_code, ranks])
    _KINDS[key] = (layouts, kinds)
    if len(_KINDS) > _KINDS_HELD:
        _KINDS.popitem(last=False)
    return kinds


def distinct(parts: Sequence[Ints]) -> tuple[Ints, Ints]:
    """The first layout of each distinct combination of `parts` (non-negative integers, one per
    layout) and each layout's combination."""
    bits = [max(int(p.max()), 1).bit_length() for p in parts]
    if sum(bits) < 63:
        # One code per layout sorts faster than rows of several fields.
        code = np.zeros(len(parts[0]), dtype=np.int64)
        for value, width in zip(parts, bits, strict=True):
            code = (code << width) | value.astype(np.int64)
        _codes, first, inverse = np.unique(code, return_index=True, return_inverse=True)
    else:
        _rows, first, inverse = np.unique(
            np.stack(parts), axis=1, return_index=True, return_inverse=True
        )
    return first, inverse.ravel()


def _spread(v: Floats, of: Ints) -> Floats:
    spread: Floats = v[of] if np.ndim(v) else v
    return spread
