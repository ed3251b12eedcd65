"""``expm1(x)``: e^x − 1 without the cancellation of ``exp(x) - 1`` for small x (``expm1(1e-10)`` keeps
every digit where ``exp(1e-10) - 1`` keeps 7); of a pure number."""

from __future__ import annotations

from typing import Any

import sympy
from sympy.codegen.cfunctions import expm1

from symbolic.model.functions.declared import MathFunction, declare, grows_faster_than_any_power, pure_number


def exp_minus_one(value: Any) -> Any:
    """e ** value − 1, exact near 0; inf past double range, element-wise for arrays."""
    import math

    if not getattr(value, "ndim", 0):
        try:
            return math.expm1(value)
        except OverflowError:
            return math.inf
    import numpy

    if value.dtype == object:  # Python ints beyond int64
        return numpy.frompyfunc(exp_minus_one, 1, 1)(value).astype(float)
    return numpy.expm1(value)


def _sign(node: Any, reduce: Any) -> Any:
    """The sign of its argument: e^u − 1 > 0 for u > 0, in (−1, 0) for u < 0."""
    inner = reduce(node.args[0])
    if inner.is_positive:
        return sympy.Dummy("expm1", positive=True)
    if inner.is_nonnegative:
        return sympy.Dummy("expm1", nonnegative=True)
    if inner.is_negative:
        return 1 / (1 + sympy.Dummy("below", positive=True)) - 1  # e^u − 1 with e^u = 1/(1 + d)
    return None


EXPM1 = declare(MathFunction(
    expm1, "expm1",
    python=lambda printer, expr: printer.call("exp_minus_one", expr.args[0]),
    javascript=lambda printer, expr: f"Math.expm1({printer._print(expr.args[0])})",
    latex=lambda printer, expr: rf"\left(e^{{{printer._print(expr.args[0])}}} - 1\right)",
    dimension=pure_number("exponential"), sign=_sign, growth=grows_faster_than_any_power,
    python_helpers=(exp_minus_one,),
    nonfinite=(((float("inf"),), "inf"), ((1e300,), "inf"), ((float("nan"),), "nan")),
))
