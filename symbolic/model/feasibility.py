"""Feasibility as a declaration: ``Fits(need <= have, "message", unit=..., guards=[...])``.

A scenario whose state must fit somewhere (weights and caches in device memory, a reserve
on the card it is carved from) declares it once:

    fits = Fits(weights + kv_reserve <= hardware.capacity, "weights and KV reserve must fit in device memory",
                unit="GB", guards=[remaining_memory, request_rate])

``otherwise=0`` gives ``fits`` a value where a side needs an optional input left out (a device not
given: it does not fit), as ``Output(..., otherwise=)`` does. The declaration adds three outputs: ``fits`` (True or False), ``fits_need`` and ``fits_have``
(both sides, in ``unit``). ``guards`` names the outputs that only a setup that runs has; every
output that reads one of them, directly or through others, is guarded too (the generator walks
the dependency graph, ``symbolic.codegen.python``). Reading a guarded output of an instance that
does not fit raises ``InfeasibleError`` naming need, have and the inputs; a sweep gives NaN
there (and the ``fits`` array), a search counts the point as skipped with the message, and the
calculator shows "does not fit". The condition itself is an output, so it also reads outputs
declared above it.

``bounds = {"utilisation": (0, 1)}`` on the class declares the range an output must lie in (a
share above 1 is a measurement that cannot be); an evaluation outside it is refused naming the
output, its value and the inputs it reads (``symbolic.runtime.feasibility``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import sympy

from symbolic.model.collected import FitsDecl, ScalarDecl, ScalarQuantity, ScenarioModel, _latex_name
from symbolic.model.dependencies import reads
from symbolic.model.declarations import Declaration, _given_or_else
from symbolic.model.functions import Exceeds
from symbolic.runtime.errors import DeclarationError

__all__ = ["Fits", "check_bounds", "guarded_outputs"]


class Fits(Declaration):
    """``need <= have`` must hold for the ``guards`` outputs (and what reads them) to exist; a strict
    comparison (``eager_rate < compiled_rate``) holds only when ``have`` exceeds ``need``."""

    def __init__(self, condition: Any, message: str, *, unit: str, guards: Iterable[sympy.Basic] = (),
                 otherwise: Any = None, doc: str = "") -> None:
        if isinstance(condition, (sympy.LessThan, sympy.StrictLessThan)):
            need, have = condition.lhs, condition.rhs
        elif isinstance(condition, (sympy.GreaterThan, sympy.StrictGreaterThan)):
            need, have = condition.rhs, condition.lhs
        else:
            raise DeclarationError(f"Fits: expected a comparison need <= have, got {condition!r}")
        if not message:
            raise DeclarationError("Fits: give a message saying what must fit where")
        self.need = sympy.sympify(need)
        self.have = sympy.sympify(have)
        self.strict = isinstance(condition, (sympy.StrictLessThan, sympy.StrictGreaterThan))
        self.message = message
        self.unit = unit
        self.guards = tuple(guards)
        self.otherwise = None if otherwise is None else sympy.sympify(otherwise)
        self.doc = doc or message

    def bind(self, name: str, into: ScenarioModel) -> sympy.Symbol:
        known = {q.symbol: q for q in into.quantities}
        for guard in self.guards:
            if guard not in known or known[guard].hidden:
                raise DeclarationError(f"{into.name}: Fits {name} guards {guard!r}, which is not an output declared "
                                       "above it")
        sides = {}
        for side, expr, what in (("need", self.need, "What must fit"), ("have", self.have, "Where it must fit")):
            symbol = sympy.Symbol(f"{name}_{side}", real=True)
            into.add_output(ScalarDecl(f"{name}_{side}", f"{what}: {self.message}.", self.unit))
            into.add_quantity(ScalarQuantity(f"{name}_{side}", symbol, expr, self.unit, f"{what}: {self.message}.",
                                             rf"{_latex_name(name)}_{{\mathrm{{{side}}}}}"))
            sides[side] = symbol
        symbol = sympy.Symbol(name, integer=True, nonnegative=True)
        into.add_output(ScalarDecl(name, f"Whether it fits: {self.message}.", "", labels=(False, True)))
        def holds(need: sympy.Basic, have: sympy.Basic) -> sympy.Basic:
            return Exceeds(have, need) if self.strict else 1 - Exceeds(need, have)

        value = holds(sides["need"], sides["have"])
        if self.otherwise is not None:  # the value without the optional inputs a side reads (a device left out)
            value = _given_or_else(name, into, holds(self.need, self.have), self.otherwise)
        into.add_quantity(ScalarQuantity(name, symbol, value, "",
                                         f"Whether it fits: {self.message}.", _latex_name(name)))
        into.feasibility.append(FitsDecl(name, sides["need"], sides["have"], self.message, self.unit, self.guards,
                                         strict=self.strict))
        return symbol


def check_bounds(model: ScenarioModel, bounds: Any) -> dict[str, tuple[float | None, float | None]]:
    """The class attribute ``bounds``: output path -> (low, high), each path declared, low < high;
    an infinite side (``-math.inf``, ``math.inf``) is None, no bound."""
    if not isinstance(bounds, dict):
        raise DeclarationError(f"{model.name}: bounds must be a dict of output -> (low, high), got {bounds!r}")
    paths = {q.name for q in model.quantities if not q.hidden}
    checked: dict[str, tuple[float | None, float | None]] = {}
    for path, pair in bounds.items():
        if path not in paths:
            raise DeclarationError(f"{model.name}: bounds names {path!r}, which is not one of its outputs")
        if not (isinstance(pair, tuple) and len(pair) == 2 and all(isinstance(v, (int, float)) for v in pair)
                and pair[0] < pair[1]):
            raise DeclarationError(f"{model.name}: bounds[{path!r}] must be (low, high) numbers with low < high, "
                                   f"got {pair!r}")
        low, high = (None if math.isinf(side) else float(side) for side in pair)
        checked[path] = (low, high)
    return checked


def guarded_outputs(model: ScenarioModel) -> dict[str, tuple[str, ...]]:
    """Each quantity's path -> the ``Fits`` it exists under: the outputs a ``Fits`` guards and
    every quantity reading one of them, directly or through others (declaration order is a
    topological order). A side of a ``Fits`` may not read what some ``Fits`` guards."""
    roots: dict[sympy.Basic, set[str]] = {}
    for fits in model.feasibility:
        for guard in fits.guards:
            roots.setdefault(guard, set()).add(fits.name)
    under: dict[sympy.Basic, frozenset[str]] = {}
    for quantity in model.quantities:
        found = set(roots.get(quantity.symbol, ()))
        for symbol in reads(quantity):
            if symbol != quantity.symbol:
                found |= under.get(symbol, frozenset())
        under[quantity.symbol] = frozenset(found)
    for fits in model.feasibility:
        for side in (fits.need, fits.have):
            if under.get(side):
                raise DeclarationError(f"{model.name}: Fits {fits.name} reads {side}, which exists only under "
                                       f"{', '.join(sorted(under[side]))}")
    return {q.name: tuple(sorted(under[q.symbol])) for q in model.quantities if under[q.symbol] and not q.hidden}
