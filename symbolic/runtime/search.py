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

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from symbolic.runtime.errors import ScenarioInputError
from symbolic.runtime.paths import leaves
from symbolic.runtime.scenario import ScenarioBase
from symbolic.runtime.search_chunks import CHUNK_POINTS, Partial, Plan, evaluate_chunk, merge
from symbolic.runtime.search_space import EACH_PRECISION, every, powers_of_two
from symbolic.runtime.hardware import HardwareNode

__all__ = ["EACH_PRECISION", "Plan", "SearchResult", "SearchRow", "every", "powers_of_two", "search"]


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
        from symbolic.runtime.search_dask import run as run_dask  # dask is an optional extra

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


def _jsonable(value: Any) -> Any:
    if hasattr(value, "units") and hasattr(value, "magnitude"):
        return {"value": value.magnitude, "unit": f"{value.units:~P}"}
    if hasattr(value, "path") and hasattr(value, "name"):
        if isinstance(value, HardwareNode) and value.path:
            return f"Hardware.{value.path}"
        return getattr(value, "registry_path", None) or value.path or value.name
    return value
