"""Which inputs reach which outputs: no input may be kept and then ignored (issue 24, defect 5).

At generation, every input a person passes (``model.input_order``: numbers, lists, nodes,
workloads, choices, precisions, datasets, scenario instances) must reach at least one output
through the dependency graph (an input's expression default counts as a read of what it reads);
one that reaches none is a ``DeclarationError`` naming it. At run time, an optional input all of
whose outputs also need other optional inputs (``KvFootprintScenario.kv_share``, read only beside
``hardware``) is refused when given without them: ``needs`` lists those inputs per input, the
generated class holds it as ``_needs`` (checked by ``symbolic.runtime.scenario``), and the
JavaScript module exports it so the calculator agrees.
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy

from symbolic.codegen.python import Evaluator
from symbolic.model import InputDecl, ScenarioModel, _symbols
from symbolic.model.collected import NodeDecl, ScenarioInputDecl
from symbolic.model.dependencies import closure
from symbolic.runtime.errors import DeclarationError

__all__ = ["Usage", "usage"]


@dataclass(frozen=True)
class Usage:
    reaches: dict[str, tuple[str, ...]]  # input (as people pass it) -> the output paths it reaches
    needs: dict[str, tuple[str, ...]]  # optional input -> the optional inputs without which no output reads it


def _owner(decl: InputDecl) -> str:
    return decl.structured or decl.name


def usage(model: ScenarioModel, evaluator: Evaluator) -> Usage:
    """What each input reaches; refuses an input that reaches no output."""
    by_symbol = {q.symbol: q for q in model.quantities}
    decls = [d for d in model.inputs if not d.argument]
    owner_of = {d.symbol: _owner(d) for d in decls}
    owner_of.update({d.symbol.label: _owner(d) for d in decls if isinstance(d.symbol, sympy.IndexedBase)})
    defaults = {d.symbol: _symbols(d.spec.default) for d in model.inputs  # a method's argument's default too
                if isinstance(d.spec.default, sympy.Basic) and not d.spec.default.is_Number}
    precision_of = {node: p.name for p in model.precisions for node in p.nodes}
    peaks = {d.symbol: precision_of[d.structured] for d in decls
             if d.structured in precision_of and d.resolves == "peak"}
    reaches: dict[str, list[str]] = {name: [] for name in model.input_order}
    for quantity in model.quantities:
        if quantity.hidden:
            continue
        found = closure({quantity.symbol}, by_symbol)
        todo = [s for s in found if s in defaults]
        while todo:  # an input left to its default reads what the default reads
            for symbol in defaults[todo.pop()]:
                if symbol not in found:
                    found.add(symbol)
                    todo += [symbol] if symbol in defaults else []
        names = {owner_of[s] for s in found if s in owner_of} | {peaks[s] for s in found if s in peaks}
        for name in names:
            if name in reaches:
                reaches[name].append(quantity.name)
    idle = [name for name, paths in reaches.items() if not paths]
    if idle:
        raise DeclarationError(f"{model.name}: input {', '.join(map(repr, idle))} reaches no output; read it in an "
                               "output (or drop it): an input that cannot change any output would be kept and ignored")
    return Usage({name: tuple(paths) for name, paths in reaches.items()}, _needs(model, evaluator, decls, reaches))


def _needs(model: ScenarioModel, evaluator: Evaluator, decls: list[InputDecl],
           reaches: dict[str, list[str]]) -> dict[str, tuple[str, ...]]:
    """For each purely optional input: the purely optional inputs every output reading it also needs."""
    optional_structured = {s.name for s in model.structured if s.optional
                           and isinstance(s, (NodeDecl, ScenarioInputDecl))}
    purely_optional = {d.name for d in decls if not d.structured and d.spec.default is None} | optional_structured
    owner = {d.name: _owner(d) for d in decls}
    needs: dict[str, tuple[str, ...]] = {}
    for name in sorted(purely_optional):
        paths = reaches.get(name, [])
        common: set[str] | None = None
        for path in paths:
            guard = {owner.get(arg, arg) for arg in evaluator.optional.get(path, ())} - {name}
            common = guard if common is None else common & guard
        enablers = sorted((common or set()) & purely_optional)
        if enablers:
            needs[name] = tuple(enablers)
    return needs

