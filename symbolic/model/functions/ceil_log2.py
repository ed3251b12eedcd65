"""``CeilLog2(n)``: ⌈log₂ n⌉ of a count n ≥ 1, the depth of a binary tree over n leaves (0 for n = 1)."""

from __future__ import annotations

from typing import Any

import sympy
from sympy.printing.precedence import PRECEDENCE

from symbolic.model.functions.declared import MathFunction, declare, grows_slower_than_any_power, pure_number


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


def _sign(node: Any, reduce: Any) -> Any:
    """At least 1 for n ≥ 2, else a nonnegative whole number."""
    if sympy.simplify(reduce(node.args[0]) - 2).is_nonnegative:
        return 1 + sympy.Dummy("whole", nonnegative=True, integer=True)
    return sympy.Dummy("whole", nonnegative=True, integer=True)


CEIL_LOG2 = declare(MathFunction(
    CeilLog2, "CeilLog2",
    python=lambda printer, expr: printer.call("ceil_log2", expr.args[0]),
    javascript=lambda printer, expr: printer.call("ceil_log2", expr.args[0]),
    latex=lambda printer, expr: (rf"\left\lceil \log_2 {printer.parenthesize(expr.args[0], PRECEDENCE['Mul'])} "
                                 r"\right\rceil"),
    dimension=pure_number("logarithm"), sign=_sign, growth=grows_slower_than_any_power, integer="always",
    nonfinite=(((float("inf"),), "inf"), ((float("nan"),), "nan")),
))
