"""Design-space search: the best points of a product of input choices, under constraints.

    >>> from generated import Hardware, Models, Scenarios
    >>> from symbolic.runtime.search import every, search
    >>> found = search(Scenarios.Llama2_70B_DecodeH100, {"hardware": every(Hardware.Cloud), "batch_size": [1, 8, 64]},
    ...                where=["result.weight_bytes <= hardware.memory_capacity"], minimize="result.compute_time", top=1)
    >>> found.size, found.rows[0].inputs["batch_size"]
    (93, 1)

How it works: the space (``search_space.Space``) is the product of one axis of catalog
combinations and one float64 axis per numeric input, each already checked against its
input's domain. The grid is cut into chunks of at most ``chunk_points`` points, each a
contiguous block of the row-major order: the axes before the split axis are single values,
the split axis a slice, the later axes whole, so every argument reaches the generated
evaluator as a small array that numpy broadcasts (the grid is never materialised). Each chunk
masks the points the class would refuse (its requirements, an output beyond double range),
applies the constraints, and keeps only its best points (the k smallest objective keys, or
its Pareto front); chunks merge in any order to the same answer, because ties are broken by
the point's position in the space. The winners are rebuilt through the class API, so each
row is a validated instance with Quantities.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from symbolic.runtime.errors import ScenarioInputError
from symbolic.runtime.expressions import Compiled, ExpressionError, compile_expression
from symbolic.runtime.feasibility import shown_range, value_at, within
from symbolic.runtime.paths import guarded_paths, leaves
from symbolic.runtime.scenario import ScenarioBase
from symbolic.runtime.search_space import EACH_PRECISION, Space, attribute_units, every, powers_of_two

__all__ = ["EACH_PRECISION", "Plan", "SearchResult", "SearchRow", "every", "powers_of_two", "search"]

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


@dataclass
class SearchRow:
    """One winning point: its scenario (a validated instance), the varied inputs, the
    objectives and the outputs the search read, each as ``(value, unit)``."""

    scenario: ScenarioBase
    inputs: dict[str, Any]
    objectives: dict[str, tuple[float, str]]
    outputs: dict[str, tuple[Any, str]] = field(default_factory=dict)


@dataclass
class SearchResult:
    """The best rows and how many points were in the space, valid (evaluated), feasible."""

    rows: list[SearchRow]
    size: int  # points in the space as given
    evaluated: int  # valid points, each evaluated
    invalid: int  # points the class would refuse (domains, requirements, double range): skipped
    feasible: int  # valid points meeting every constraint
    front: int | None  # the Pareto front's size (several objectives), else None
    objectives: list[tuple[str, str, str]]  # (minimize|maximize, expression, unit)
    constraints: list[str]
    seconds: float = 0.0
    chunks: int = 0
    engine: str = "local"
    unranked: int = 0  # feasible points left out of the ranking: an objective undefined (x/0) or beyond double range
    skipped: dict[str, int] = field(default_factory=dict)  # why the invalid points are invalid: {reason: points}

    @property
    def best(self) -> SearchRow | None:
        return self.rows[0] if self.rows else None

    def to_dict(self) -> dict[str, Any]:
        def entry(value: Any, unit: str) -> dict[str, Any]:
            return {"value": value, "unit": unit}

        rows = [{"inputs": {k: _jsonable(v) for k, v in row.inputs.items()},
                 "objectives": {k: entry(*v) for k, v in row.objectives.items()},
                 "outputs": {k: entry(*v) for k, v in row.outputs.items()}} for row in self.rows]
        counts = {key: getattr(self, key) for key in ("size", "evaluated", "invalid", "feasible", "unranked", "front",
                                                             "chunks")}
        return {**counts, "skipped": dict(self.skipped), "engine": self.engine, "seconds": self.seconds,
                "constraints": self.constraints,
                "objectives": [{"sense": s, "expression": e, "unit": u} for s, e, u in self.objectives], "rows": rows}


def search(base: ScenarioBase | type[ScenarioBase], vary: dict[str, Any], where: str | Sequence[str] = (), *,
           minimize: str | Sequence[str] = (), maximize: str | Sequence[str] = (), fixed: dict[str, Any] | None = None,
           top: int = 10, chunk_points: int = CHUNK_POINTS, engine: str = "local", scheduler: Any = None,
           progress: Callable[[int, int], None] | None = None) -> SearchResult:
    """The ``top`` best points of the space ``vary`` around ``base`` (an instance, or a class
    built from ``fixed`` and each varied input's first value) meeting every ``where``.

    ``vary`` maps inputs to values: numbers or Quantities (a list, a range, ``powers_of_two``),
    catalog entries (``every(Hardware.Cloud)``), precision or option keys, or ``EACH_PRECISION``
    for every precision the node lists. Several objectives give the Pareto front (its rows
    ordered by the first objective). ``engine="dask"`` runs the chunks on a Dask cluster
    (``scheduler``: a ``distributed.Client`` or an address). ``progress(done, total)`` is
    called as chunks finish.
    """
    started = time.perf_counter()
    plan = _plan(base, vary, where, minimize, maximize, fixed, top, chunk_points)
    prep = plan.prepared()
    if engine == "local":
        total = Partial()
        for chunk in range(prep.chunks):
            total = merge([total, evaluate_chunk(plan, chunk)], top)
            if progress is not None:
                progress(total.points, prep.space.valid_size)
    elif engine == "dask":
        from symbolic.runtime.search_dask import run as run_dask

        total = run_dask(plan, scheduler, progress)
    else:
        raise ScenarioInputError(f"search: unknown engine {engine!r}; expected 'local' or 'dask'")
    return _result(plan, total, time.perf_counter() - started, engine)


def _plan(base: Any, vary: dict[str, Any], where: str | Sequence[str], minimize: str | Sequence[str],
          maximize: str | Sequence[str], fixed: dict[str, Any] | None, top: int, chunk_points: int) -> Plan:
    both = sorted(set(vary) & set(fixed or {})) if isinstance(vary, dict) else []
    if both:  # the varied values would silently replace the fixed one
        raise ScenarioInputError(f"search: {', '.join(map(repr, both))} is both varied and fixed; give it in one")
    if isinstance(base, type) and issubclass(base, ScenarioBase):
        base = _base_of(base, vary, fixed or {})
    elif not isinstance(base, ScenarioBase):
        raise ScenarioInputError(f"search: expected a scenario instance or class, got {base!r}")
    elif fixed:
        base = base.variant(**fixed)
    objectives = [("minimize", t) for t in _texts("minimize", minimize)] + [
        ("maximize", t) for t in _texts("maximize", maximize)]
    if not objectives:
        raise ScenarioInputError("search: give an objective (minimize= or maximize= an output or an expression)")
    for name, value in (("top", top), ("chunk_points", chunk_points)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ScenarioInputError(f"search: {name} must be a whole number ≥ 1, got {value!r}")
    return Plan(base, vary, _texts("where", where), objectives, top, chunk_points)


def _result(plan: Plan, total: Partial, seconds: float, engine: str) -> SearchResult:
    import numpy

    prep = plan.prepared()
    space = prep.space
    indices = total.indices if total.indices is not None else numpy.zeros(0, dtype=numpy.int64)
    front = len(indices) if len(prep.objectives) > 1 else None
    read = [n for c in prep.constraints + [o for _, o in prep.objectives] for n in c.names if n in prep.outputs]
    rows = []
    for rank, index in enumerate(indices[:plan.top]):
        point = space.point(int(index))
        scenario = space.base.variant(name=f"{space.base.name} [search #{rank + 1}]", **point)
        flat = {path: (value, unit) for path, value, unit, kind in leaves(type(scenario), scenario.evaluate())}
        objectives = {compiled.text: (sign * float(total.keys[rank][j]), compiled.unit)
                      for j, (sign, compiled) in enumerate(prep.objectives)}
        rows.append(SearchRow(scenario, {name: getattr(scenario, name) for name in plan.vary}, objectives,
                              {name: flat[name] for name in dict.fromkeys(read)}))
    invalid = space.size - space.valid_size + total.invalid
    skipped = dict(space.skipped)
    for reason, count in total.skipped.items():
        skipped[reason] = skipped.get(reason, 0) + count
    return SearchResult(rows, space.size, space.size - invalid, invalid, total.feasible, front,
                        [("minimize" if s > 0 else "maximize", c.text, c.unit) for s, c in prep.objectives],
                        list(plan.where), round(seconds, 6), prep.chunks, engine, total.unranked,
                        dict(sorted(skipped.items(), key=lambda item: (-item[1], item[0]))))


def _texts(what: str, value: str | Sequence[str]) -> list[str]:
    """One expression or a list of them; anything else (5, b"x": its byte codes) named, not iterated."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, (list, tuple)) and all(isinstance(text, str) for text in value):
        return list(value)
    raise ScenarioInputError(f"search: {what}= takes an expression (str) or a list of them, got "
                             f"{type(value).__name__} {value!r:.60}")


def _base_of(cls: type[ScenarioBase], vary: dict[str, Any], fixed: dict[str, Any]) -> ScenarioBase:
    """An instance of ``cls`` from ``fixed`` and the first valid point of the space (its
    outputs name what the constraints and objectives may read); the space is searched as given."""
    import itertools

    axes = {name: _values(values) for name, values in (vary.items() if isinstance(vary, dict) else ())}
    error: ScenarioInputError | None = None
    for point in itertools.islice(itertools.product(*axes.values()), 10_000):
        try:
            return cls(**{**dict(zip(axes, point, strict=True)), **fixed})
        except ScenarioInputError as refused:
            error = error or refused
    if error is None:  # no point at all: let the class name what is missing
        return cls(**fixed)
    raise ScenarioInputError(f"search: no valid {cls.__name__} among the first points of the space ({error}); "
                             "give the inputs the space does not vary") from None


def _values(values: Any) -> Any:
    if values is EACH_PRECISION:
        return [None]  # the default precision; the space expands it per node
    if isinstance(values, (str, bytes)):
        return [values]
    try:
        return list(values)
    except TypeError:
        return [values]


def _output_units(base: ScenarioBase) -> dict[str, str]:
    return {path: unit for path, value, unit, kind in leaves(type(base), base._evaluated())
            if kind == "number" and value is not None}


def _jsonable(value: Any) -> Any:
    if hasattr(value, "units") and hasattr(value, "magnitude"):
        return {"value": value.magnitude, "unit": f"{value.units:~P}"}
    if hasattr(value, "path") and hasattr(value, "name"):
        from symbolic.runtime.hardware import HardwareNode

        if isinstance(value, HardwareNode) and value.path:
            return f"Hardware.{value.path}"
        return getattr(value, "registry_path", None) or value.path or value.name
    return value
