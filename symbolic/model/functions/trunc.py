"""``trunc(x)``: x rounded toward zero to a whole number (``trunc(-2.5)`` is −2, where ``floor`` gives −3)."""

from __future__ import annotations

from typing import Any

import sympy

from symbolic.model.functions.declared import MathFunction, declare, grows_as_argument, of_argument


class trunc(sympy.Function):  # noqa: N801 (named as the math is written, like sympy's floor)
    """x rounded toward zero: ⌊x⌋ for x ≥ 0, ⌈x⌉ for x < 0."""

    is_integer = True
    nargs = 1

    @classmethod
    def eval(cls, x: sympy.Basic) -> sympy.Basic | None:
        if x.is_Number and x.is_finite:
            return sympy.Integer(int(x))  # int() of a sympy number truncates toward zero
        return None  # kept as written (never rewritten as floor or ceiling: the page shows trunc)

    def fdiff(self, argindex: int = 1) -> sympy.Expr:
        return sympy.Integer(1)  # its trend, as floors are differentiated

    def _eval_is_nonnegative(self) -> bool | None:
        return self.args[0].is_nonnegative or None

    def _eval_is_nonpositive(self) -> bool | None:
        return self.args[0].is_nonpositive or None


def truncate(numerator: Any, denominator: Any) -> Any:
    """numerator / denominator rounded toward zero, exactly (no rounding of the quotient first): floor
    division, then one step toward zero when the quotient is negative and not whole. An int for numbers
    (inf and nan passed on to the overflow check); element-wise for arrays."""
    if not (getattr(numerator, "ndim", 0) or getattr(denominator, "ndim", 0)):
        quotient = numerator // denominator
        if quotient - quotient != 0:  # inf // d is nan in Python: the quotient itself, ±inf (or nan)
            return numerator / denominator
        if quotient < 0 and numerator % denominator != 0:
            quotient += 1
        return int(quotient)
    import numpy

    with numpy.errstate(invalid="ignore"):
        quotient = numpy.floor_divide(numerator, denominator)
        stepped = numpy.where((quotient < 0) & (numpy.remainder(numerator, denominator) != 0), quotient + 1, quotient)
        return numpy.where(numpy.isnan(stepped), numpy.true_divide(numerator, denominator), stepped) if (
            stepped.dtype.kind == "f") else stepped


TRUNCATE_JAVASCRIPT = """
/** numerator / denominator rounded toward zero, as truncate in the Python evaluator (floor division, then
 * one step toward zero when the quotient is negative and not whole; % is exact on doubles). */
function truncate(numerator, denominator, integers = false) {
  const quotient = $.floor_div(numerator, denominator, integers);
  return quotient < 0 && numerator % denominator !== 0 ? quotient + 1 : quotient;
}
"""


def _sign(node: Any, reduce: Any) -> Any:
    """At least 1 for x ≥ 1, a nonnegative whole number for x ≥ 0, nonpositive for x ≤ 0."""
    inner = reduce(node.args[0])
    if sympy.simplify(inner - 1).is_nonnegative:
        return sympy.Dummy("whole_at_least_one", positive=True, integer=True)
    if inner.is_nonnegative:
        return sympy.Dummy("whole", nonnegative=True, integer=True)
    if inner.is_nonpositive:
        return sympy.Dummy("whole", nonpositive=True, integer=True)
    return None


TRUNC = declare(MathFunction(
    trunc, "trunc",
    python=lambda printer, expr: printer.quotient(expr, "truncate"),
    javascript=lambda printer, expr: printer.quotient(expr, "truncate"),
    latex=lambda printer, expr: rf"\operatorname{{trunc}}\left({printer._print(expr.args[0])}\right)",
    dimension=of_argument, sign=_sign, growth=grows_as_argument, integer="always", trend=True,
    python_helpers=(truncate,), javascript_helpers={"truncate": TRUNCATE_JAVASCRIPT},
    nonfinite=(((float("inf"),), "inf"), ((float("-inf"),), "-inf"), ((float("nan"),), "nan")),
))
