"""The sympy baselines: every output's closed form, lambdified (no CSE) or substituted.

The closed forms are the docs' (``symbolic.analysis.closed.closed_forms``): each visible
output in terms of the inputs only. A closed form is dimensional (every input symbol
stands for a number in its declared unit, ``[flop]`` for the unit), so to return numbers
in display units each input ``x`` becomes ``scale(x)·x`` and the form is divided by the
display unit's scale, with the project's exact unit scales. List inputs (the dense and
epoch scenarios' ``layer_widths``) cannot be lambdify arguments: the concrete list is
substituted first and ``Sum``/``MaxOver``/``Len`` expanded with ``.doit()``, so those
two scenarios are measured with the widths baked in (which favours sympy). The text
output ``architecture`` is not a sympy expression and is left out.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import sympy

from symbolic.analysis.closed import closed_forms
from symbolic.analysis.dimensions import scale_of_unit
from symbolic.model.functions import Len
from symbolic.model import UNIT_SYMBOLS, ScenarioModel


def path_of(name: str) -> tuple[str, ...]:
    """``result.peak[host]`` -> ``("result", "peak", "host")``, as the evaluator nests it."""
    return tuple(re.split(r"\.|\[", name.replace("]", "")))


class Forms:
    """The folded closed forms of one model at one set of evaluator arguments."""

    def __init__(self, model: ScenarioModel, args: dict[str, Any]) -> None:
        forms = closed_forms(model)
        lists: dict[sympy.Basic, list[int]] = {}
        self.symbols: list[sympy.Symbol] = []
        self.names: list[str] = []
        fold: dict[sympy.Basic, sympy.Basic] = {s: scale_of_unit(u) for s, u in UNIT_SYMBOLS.items()}
        defaults: dict[sympy.Basic, sympy.Basic] = {}  # an input left out whose default is a formula
        for decl in model.evaluator_inputs():
            if args.get(decl.name) is None and isinstance(decl.spec.default, sympy.Basic):
                defaults[decl.symbol] = decl.spec.default
                continue
            if isinstance(decl.symbol, sympy.IndexedBase):
                lists[decl.symbol] = list(args[decl.name])
                lists[decl.symbol.label] = lists[decl.symbol]
                continue
            self.symbols.append(decl.symbol)
            self.names.append(decl.name)
            scale = scale_of_unit(decl.spec.unit)
            if scale != 1:
                fold[decl.symbol] = scale * decl.symbol
        self.values = {symbol: args[name] for symbol, name in zip(self.symbols, self.names, strict=True)}
        by_symbol = {q.symbol: q for q in model.quantities}

        def concrete(expr: sympy.Basic) -> sympy.Basic:
            expr = expr.replace(lambda e: isinstance(e, Len), lambda e: sympy.Integer(len(lists[e.args[0]])))
            if lists:
                expr = expr.doit()
                expr = expr.replace(lambda e: isinstance(e, sympy.Indexed) and e.base in lists,
                                    lambda e: sympy.Integer(lists[e.base][int(e.indices[0])]))
            return expr

        self.paths: list[tuple[Any, ...]] = []
        self.exprs: list[sympy.Expr] = []
        for quantity in model.quantities:
            if quantity.hidden or quantity.kind == "text":
                continue
            scale = scale_of_unit(quantity.unit)
            closed = forms[quantity.name].xreplace(defaults)
            if quantity.kind == "list" and quantity.limits:
                index, start, stop = quantity.limits
                stop = concrete(stop.xreplace({s: forms[by_symbol[s].name] for s in stop.free_symbols
                                               if s in by_symbol}))
                items = [(k - int(start), closed.xreplace({index: k})) for k in range(int(start), int(stop) + 1)]
            elif quantity.kind == "list":
                items = [(k, closed[k]) for k in range(len(lists[closed]))]
            else:
                items = [(None, closed)]
            for position, item in items:
                path = path_of(quantity.name) + (() if position is None else (position,))
                self.paths.append(path)
                self.exprs.append(concrete(item).xreplace(fold) / scale)

    def lambdified(self) -> Callable[[], dict[tuple[Any, ...], Any]]:
        """One call: the lambdified tuple of every closed form (``cse=False``, math module)."""
        function = sympy.lambdify(self.symbols, self.exprs, modules="math", cse=False)
        arguments = [self.values[symbol] for symbol in self.symbols]
        paths = self.paths

        def call() -> dict[tuple[Any, ...], Any]:
            return dict(zip(paths, function(*arguments), strict=True))

        return call

    def substituted(self) -> Callable[[], dict[tuple[Any, ...], Any]]:
        """One call: ``expr.subs(values).evalf()`` for every closed form."""
        exprs, paths, values = self.exprs, self.paths, dict(self.values)

        def call() -> dict[tuple[Any, ...], Any]:
            return {path: expr.subs(values).evalf() for path, expr in zip(paths, exprs, strict=True)}

        return call
