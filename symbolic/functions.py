"""Sympy nodes the scenarios need beyond sympy's own: list length and max over an index.

Each has a printer method in ``symbolic/codegen`` (Python and LaTeX), a rule in
``symbolic/dimensions.py``, and ``doit`` for exact evaluation once its limits are numbers.
"""

from __future__ import annotations

import sympy
from sympy.concrete.expr_with_limits import ExprWithLimits


class Len(sympy.Function):
    """The number of entries of a list input, ``Len(layer_widths)``."""

    is_integer = True
    is_positive = True
    nargs = 1


class MaxOver(ExprWithLimits):
    """``max`` of an expression over an integer range: ``MaxOver(w[l-1] + w[l], (l, 1, L))``."""

    is_real = True

    def doit(self, **hints: object) -> sympy.Expr:
        (index, start, stop), = self.limits
        if not (start.is_Integer and stop.is_Integer):
            return self
        return sympy.Max(*(self.function.subs(index, k) for k in range(int(start), int(stop) + 1)))


INDEX_CODE_NAMES: dict[sympy.Symbol, str] = {}


def index(name: str, code_name: str | None = None) -> sympy.Symbol:
    """An integer index for ``Sum``, ``MaxOver`` and per-item lists: ``l = index("l", "layer")``.

    ``name`` is what the docs print; ``code_name`` the loop variable of the evaluator.
    """
    symbol = sympy.Symbol(name, integer=True)
    INDEX_CODE_NAMES[symbol] = code_name or name
    return symbol
