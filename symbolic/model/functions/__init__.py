"""The math functions a scenario may write, and the nodes of the language itself.

Each math function (``floor``, ``Max``, ``log``, ``CeilLog2``, ``exp``, ``LambertW``...) is declared by one
module of this package (``declared.py`` says how): its dimension rule, sign facts, growth, printing
in Python, JavaScript and LaTeX, and its runtime helper. Every module here is loaded below, so a new
module is all a new function needs. This module itself holds the language's own nodes, which the
printers print by methods of their own: a list's length (``Len``), a maximum over an index
(``MaxOver``), index symbols and the condition that optional inputs were given (``Given``).
"""

from __future__ import annotations

import importlib
import pkgutil
from typing import Any

import sympy
from sympy.concrete.expr_with_limits import ExprWithLimits
from sympy.logic.boolalg import BooleanFunction

from symbolic.model.functions.declared import _TABLE


class Len(sympy.Function):
    """The number of entries of a list input, ``Len(layer_widths)``."""

    is_integer = True
    is_positive = True
    nargs = 1
    language_node = True  # printed by each printer's own method, not a declared math function


class MaxOver(ExprWithLimits):
    """``max`` of an expression over an integer range: ``MaxOver(w[l-1] + w[l], (l, 1, L))``."""

    is_real = True

    def doit(self, **hints: object) -> sympy.Expr:
        (index, start, stop), = self.limits
        if not (start.is_Integer and stop.is_Integer):
            return self
        return sympy.Max(*(self.function.subs(index, k) for k in range(int(start), int(stop) + 1)))


class IndexSymbol(sympy.Symbol):
    """An integer index that carries its evaluator loop variable (``code_name``).

    Two declarations may print the same index (``k``) and loop over it under different names
    (``position``, ``link``): the loop name is part of the symbol's identity, so loading one
    never renames the other's loop (a global table of names did, by the order modules loaded).
    """

    code_name: str

    def __new__(cls, name: str, code_name: str) -> IndexSymbol:
        symbol = sympy.Symbol.__xnew__(cls, name, integer=True)  # not Symbol's cache: it ignores code_name
        symbol.code_name = code_name
        return symbol

    def __getnewargs_ex__(self) -> tuple[tuple[str, str], dict[str, Any]]:
        return (self.name, self.code_name), {}

    def _hashable_content(self) -> tuple[Any, ...]:
        return (*super()._hashable_content(), self.code_name)


class Given(BooleanFunction):
    """True when every optional input among its arguments was given (or computed from its
    default): the condition of the first branch of ``Output(expr, otherwise=fallback)``,
    ``Piecewise((expr, Given(x)), (fallback, True))``. Python reads ``x is not None``, so the
    branch is evaluated only then."""

    @classmethod
    def eval(cls, *args: sympy.Basic) -> sympy.logic.boolalg.BooleanAtom | None:
        if args and all(arg.is_number for arg in args):
            return sympy.true
        return None

    def inputs(self) -> list[sympy.Symbol]:
        """The optional inputs it tests, by name (a folded argument is a scaled symbol)."""
        return sorted(self.free_symbols, key=lambda symbol: symbol.name)  # type: ignore[attr-defined]

    def _latex(self, printer: sympy.printing.latex.LatexPrinter) -> str:
        return ", ".join(printer._print(arg) for arg in self.inputs()) + r"\ \text{given}"


def given_inputs(expr: sympy.Basic) -> set[sympy.Symbol]:
    """The optional inputs ``expr`` tests with ``Given`` (read only in a branch where they are given)."""
    return {symbol for node in expr.atoms(Given) for symbol in node.inputs()}



def index(name: str, code_name: str | None = None) -> sympy.Symbol:
    """An integer index for ``Sum``, ``MaxOver`` and per-item lists: ``l = index("l", "layer")``.

    ``name`` is what the docs print; ``code_name`` the loop variable of the evaluator.
    """
    return IndexSymbol(name, code_name or name)


def loop_name(index: sympy.Symbol) -> str:
    """The evaluator's loop variable for an index symbol."""
    return index.code_name if isinstance(index, IndexSymbol) else index.name


def _load_declarations() -> dict[str, Any]:
    """Import every declaration module of this package; their exported names, for ``symbolic.model``."""
    for module in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if module.name != "declared":
            # modules found by listing the folder, so a new function is one new module and nothing else
            importlib.import_module(f"{__name__}.{module.name}")
    return {function.export: function.node for function in _TABLE.values() if function.export}


EXPORTS = _load_declarations()  # name -> sympy function, what scenarios import from symbolic.model
globals().update({name: node for name, node in EXPORTS.items() if name not in globals()})

from symbolic.model.functions.ceil_log2 import CeilLog2 as CeilLog2  # noqa: E402 (named for importers)
from symbolic.model.functions.exceeds import Exceeds as Exceeds  # noqa: E402
