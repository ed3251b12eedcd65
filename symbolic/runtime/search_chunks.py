"""The search's unit of work: a plan, evaluated chunk by chunk, and the chunks' best points merged.

``search`` runs the chunks in a loop (``search.py``), the Dask engine on a cluster
(``search_dask.py``); both share these pieces, so the engines agree by construction and neither
imports the other.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from symbolic.runtime.expressions import Compiled, ExpressionError, compile_expression
from symbolic.runtime.feasibility import shown_range, value_at, within
from symbolic.runtime.paths import guarded_paths, leaves
from symbolic.runtime.scenario import ScenarioBase
from symbolic.runtime.search_space import Space, attribute_units

# Points per chunk: 64 KiB per full-size float64 array, so the evaluator's temporaries stay in the
# processor cache and below malloc's mmap threshold (2**14 and up page-faulted on every chunk and
# ran 2-3x slower on the training step)
CHUNK_POINTS = 2**13


class Plan:
    """Everything a worker needs to evaluate chunks; pickles small (the base scenario, the
    axes' values, the texts of the constraints and objectives), and prepares itself once per process."""

    def __init__(self, base: ScenarioBase, vary: dict[str, Any], where: Sequence[str],
                 objectives: Sequence[tuple[str, str]], top: int, chunk_points: int) -> None:
        self.base, self.vary, self.where, self.objectives = base, vary, tuple(where), tuple(objectives)
        self.top, self.chunk_points = top, chunk_points
        self._prepared: _Prepared | None = None

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_prepared": None}

    def prepared(self) -> _Prepared:
        if self._prepared is None:
            self._prepared = _Prepared(self)
        return self._prepared


class _Prepared:
    """A plan's space, compiled expressions and chunk geometry."""

    def __init__(self, plan: Plan) -> None:
        base = plan.base
        units = {**attribute_units(base), **_output_units(base)}
        self.constraints = [_compiled(base, text, units, True, f"constraint {text!r}") for text in plan.where]
        self.objectives: list[tuple[float, Compiled]] = []
        for sense, text in plan.objectives:
            compiled = _compiled(base, text, units, False, f"objective {text!r}")
            self.objectives.append((1.0 if sense == "minimize" else -1.0, compiled))
        names = [n for c in self.constraints + [o for _, o in self.objectives] for n in c.names]
        self.space = Space(base, plan.vary, names)
        self.outputs = set(_output_units(base))
        # the Fits whose guarded outputs the constraints and objectives read: their failing points are skipped
        guards = guarded_paths(type(base))
        self.fits_read = {fits for n in names if n in self.outputs
                          for fits in guards.get(n) or guards.get(n.split("[", 1)[0] + "[]") or ()}
        sizes = self.sizes = [n for _, n in self.space.axes]
        split = next(s for s in range(len(sizes)) if math.prod(sizes[s + 1:]) <= plan.chunk_points)
        self.split, self.inner = split, math.prod(sizes[split + 1:])
        self.step = max(1, plan.chunk_points // self.inner)
        self.per_outer = -(-sizes[split] // self.step)
        self.chunks = math.prod(sizes[:split]) * self.per_outer if self.space.valid_size else 0

    def chunk_bounds(self, chunk: int) -> tuple[int, int]:
        """The chunk's first flat index and its number of points."""
        outer, part = divmod(chunk, self.per_outer)
        first = part * self.step
        count = min(self.sizes[self.split], first + self.step) - first
        return (outer * self.sizes[self.split] + first) * self.inner, count * self.inner


def _compiled(base: ScenarioBase, text: str, units: dict[str, str], comparison: bool, what: str) -> Compiled:
    """``text`` compiled; a name that is an output the search cannot read says why, not 'unknown name'."""
    try:
        return compile_expression(text, units, comparison=comparison, what=what)
    except ExpressionError as error:
        for path, value, _, kind in leaves(type(base), base._evaluated()):
            if f"unknown name {path!r}" in str(error) or (kind == "list" and f"unknown name '{path}[" in str(error)):
                why = ("unavailable at this instance (it needs an optional input that was not given)" if value is None
                       else "a list output; constraints and objectives read scalar outputs and inputs")
                raise ExpressionError(f"{what}: {path!r} is {why}") from None
        raise


@dataclass
class Partial:
    """What a chunk (or a merge of chunks) reduces to: counts and its best points."""

    invalid: int = 0
    feasible: int = 0
    indices: Any = None  # int64 flat indices of the kept points
    keys: Any = None  # float64 (n, objectives): minimisation keys (maximised objectives negated)
    points: int = 0  # points covered
    unranked: int = 0  # feasible points whose objective is undefined (0/0, x/0) or beyond double range
    skipped: dict[str, int] = field(default_factory=dict)  # invalid points by reason


def evaluate_chunk(plan: Plan, chunk: int) -> Partial:
    """Evaluate one chunk of ``plan`` and reduce it to its best points."""
    import numpy

    prep = plan.prepared()
    space, cls = prep.space, prep.space.cls
    first, count = prep.chunk_bounds(chunk)
    outer, part = divmod(chunk, prep.per_outer)
    position = numpy.unravel_index(outer, prep.sizes[:prep.split]) if prep.split else ()
    start = part * prep.step
    shape = (count // prep.inner,) + tuple(prep.sizes[prep.split + 1:])

    def along(axis: int, values: Any) -> Any:
        """An axis's values as the chunk sees them: one value, a slice, or the whole axis, shaped to broadcast."""
        if values is None or numpy.ndim(values) == 0:
            return values
        if axis < prep.split:
            return values[position[axis]]
        if axis == prep.split:
            values = values[start:start + shape[0]]
        return values.reshape((-1,) + (1,) * (len(prep.sizes) - 1 - axis))

    args = dict(space.base._args)
    attributes: dict[str, Any] = {}
    offset = 1 if space.categorical else 0
    if space.categorical or space.combo_attributes:
        args.update({name: along(0, values) for name, values in space.combo_args.items()})
        attributes = {name: along(0, values) for name, values in space.combo_attributes.items()}
    for axis, (name, values) in enumerate(space.numeric, start=offset):
        args[name] = along(axis, values)
    with numpy.errstate(all="ignore"):
        result = cls._evaluate(**args)
        outputs = {path: value for path, value, _, kind in leaves(cls, result) if kind == "number" and value is not None}
        valid: Any = numpy.bool_(True)  # broadcasts: often smaller than the chunk
        skipped: dict[str, int] = {}

        def refuse(holds: Any, reason: str) -> Any:
            """``valid`` less the points where ``holds`` fails, those counted under ``reason``."""
            lost = int(numpy.count_nonzero(numpy.broadcast_to(valid & ~numpy.asarray(holds, dtype=bool), shape)))
            if lost:
                skipped[reason] = skipped.get(reason, 0) + lost
            return valid & holds

        for requirement in cls._requirements:
            if not requirement.applies(args):
                continue
            values = [args[name] for name in requirement.names]
            valid = refuse(False if requirement.absent(args) else numpy.asarray(requirement.check(*values)),
                           requirement.message)
        for fits in cls._fits:  # where a setup does not fit, the outputs it guards do not exist
            if fits.name in prep.fits_read and result.get(fits.name) is not None:
                valid = refuse(numpy.asarray(result[fits.name]) != 0, f"does not fit: {fits.message}")
        for bound in cls._bounds:
            value = value_at(result, bound.path)
            if value is not None:
                valid = refuse(within(bound, numpy.asarray(value)),
                               f"'{bound.path}' outside its declared range {shown_range(bound)}")
        for path, value in outputs.items():
            if type(value) is not int and not math.isfinite(numpy.add.reduce(value, axis=None)):
                # rare: find the points beyond double range
                valid = refuse(numpy.isfinite(value), f"'{path}' beyond double range (or undefined)")

        def lookup(name: str) -> Any:
            return outputs[name] if name in prep.outputs else args[name] if name in args else attributes[name]

        feasible = valid
        for constraint in prep.constraints:
            feasible = feasible & constraint.evaluate(lookup)
        keys = [compiled.evaluate(lookup) if sign > 0 else -compiled.evaluate(lookup)
                for sign, compiled in prep.objectives]
        # infeasible points get an infinite key, so "finite" is "feasible with a finite objective"
        masked = [numpy.broadcast_to(numpy.where(feasible, key, numpy.inf), shape).reshape(-1) for key in keys]
        finite = numpy.isfinite(masked[0])
        for column in masked[1:]:
            finite &= numpy.isfinite(column)
    valid_count = int(numpy.count_nonzero(valid)) * (count // max(1, numpy.size(valid)))
    ranked = int(numpy.count_nonzero(finite))
    feasible_count = int(numpy.count_nonzero(numpy.broadcast_to(feasible, shape)))
    if len(keys) == 1 and ranked > plan.top:  # only the points that can make the top k
        threshold = numpy.partition(masked[0], plan.top - 1)[plan.top - 1]
        kept = numpy.flatnonzero(masked[0] <= threshold)
    else:
        kept = numpy.flatnonzero(finite)
    best = _reduce(kept + first, numpy.stack([column[kept] for column in masked], axis=1), plan.top)
    return Partial(count - valid_count, feasible_count, *best, points=count, unranked=feasible_count - ranked,
                   skipped=skipped)


def merge(parts: Iterable[Partial], top: int) -> Partial:
    """The union of partial results reduced again: counts add, best points are re-ranked."""
    import numpy

    parts = [p for p in parts if p.indices is not None]
    if not parts:
        return Partial()
    indices = numpy.concatenate([p.indices for p in parts])
    keys = numpy.concatenate([p.keys for p in parts])
    best = _reduce(indices, keys, top)
    skipped: dict[str, int] = {}
    for part in parts:
        for reason, count in part.skipped.items():
            skipped[reason] = skipped.get(reason, 0) + count
    return Partial(sum(p.invalid for p in parts), sum(p.feasible for p in parts), *best,
                   points=sum(p.points for p in parts), unranked=sum(p.unranked for p in parts), skipped=skipped)


def _reduce(indices: Any, keys: Any, top: int) -> tuple[Any, Any]:
    """The ``top`` smallest keys (one objective) or the Pareto front (several), in order:
    by key, then by position in the space (so every chunking gives the same answer)."""
    import numpy

    if keys.shape[1] == 1:
        column = keys[:, 0]
        if len(column) > top:
            threshold = numpy.partition(column, top - 1)[top - 1]
            inside = column <= threshold
            indices, keys, column = indices[inside], keys[inside], column[inside]
        order = numpy.lexsort((indices, column))[:top]
        return indices[order], keys[order]
    order = numpy.lexsort((indices,) + tuple(keys[:, j] for j in reversed(range(keys.shape[1]))))
    indices, keys = indices[order], keys[order]
    if keys.shape[1] == 2:  # sorted by the first objective: on the front when the second improves
        before = numpy.minimum.accumulate(numpy.concatenate(([numpy.inf], keys[:-1, 1])))
        front = keys[:, 1] < before
        return indices[front], keys[front]
    chosen = []
    remaining = numpy.arange(len(keys))
    while len(remaining):  # the first remaining point is undominated: drop what it dominates or equals
        head = remaining[0]
        chosen.append(head)
        remaining = remaining[1:][numpy.any(keys[remaining[1:]] < keys[head], axis=1)]
    picked = numpy.asarray(chosen, dtype=numpy.int64)
    return indices[picked], keys[picked]


def _output_units(base: ScenarioBase) -> dict[str, str]:
    return {path: unit for path, value, unit, kind in leaves(type(base), base._evaluated())
            if kind == "number" and value is not None}
