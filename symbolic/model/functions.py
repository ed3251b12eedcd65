"""Sympy nodes the scenarios need beyond sympy's own: list length, max over an index, ⌈log₂ n⌉,
a 0/1 comparison (``Exceeds``) and the condition that optional inputs were given (``Given``).

Each has a printer method in ``symbolic/codegen`` (Python and LaTeX), a rule in
``symbolic/analysis/dimensions.py``, and ``doit`` for exact evaluation once its limits are numbers.
"""

from __future__ import annotations

from typing import Any

import sympy
from sympy.concrete.expr_with_limits import ExprWithLimits
from sympy.logic.boolalg import BooleanFunction


class Len(sympy.Function):
    """The number of entries of a list input, ``Len(layer_widths)``."""

    is_integer = True
    is_positive = True
    nargs = 1


class CeilLog2(sympy.Function):
    """``⌈log₂ n⌉`` of a count n ≥ 1: the depth of a binary tree over n leaves (0 for n = 1).

    Exact for whole numbers (the bit length of n − 1); differentiated as its trend
    1/(n ln 2), as floors are.
    """

    is_integer = True
    is_nonnegative = True
    nargs = 1

    @classmethod
    def eval(cls, n: sympy.Basic) -> sympy.Basic | None:
        if n.is_Integer and n >= 1:
            return sympy.Integer((int(n) - 1).bit_length())
        if n.is_Rational and n >= 1:
            return cls(sympy.ceiling(n))
        return None

    def fdiff(self, argindex: int = 1) -> sympy.Expr:
        return 1 / (self.args[0] * sympy.log(2))


class MaxOver(ExprWithLimits):
    """``max`` of an expression over an integer range: ``MaxOver(w[l-1] + w[l], (l, 1, L))``."""

    is_real = True

    def doit(self, **hints: object) -> sympy.Expr:
        (index, start, stop), = self.limits
        if not (start.is_Integer and stop.is_Integer):
            return self
        return sympy.Max(*(self.function.subs(index, k) for k in range(int(start), int(stop) + 1)))


class Exceeds(sympy.Function):
    """1 when the first argument is larger than the second, else 0 (a tie is 0): a choice
    between two outcomes, e.g. ``Output(Exceeds(memory_time, compute_time), labels=("Compute", "Memory"))``."""

    is_integer = True
    is_nonnegative = True
    nargs = 2

    @classmethod
    def eval(cls, a: sympy.Expr, b: sympy.Expr) -> sympy.Integer | None:
        difference = a - b
        if difference.is_number and difference.is_real:
            return sympy.Integer(1) if difference > 0 else sympy.Integer(0)
        return None

    def fdiff(self, argindex: int = 1) -> sympy.Expr:
        return sympy.Integer(0)  # a step: flat on either side of the switch

    def _latex(self, printer: sympy.printing.latex.LatexPrinter) -> str:
        a, b = (printer._print(arg) for arg in self.args)
        return rf"[{a} > {b}]"


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
