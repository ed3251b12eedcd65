"""``exp(x)``: e to the power x, of a pure number (decay ``exp(-t/τ)``, growth ``exp(r·t)``)."""

from __future__ import annotations

from typing import Any

import sympy

from symbolic.model.functions.declared import MathFunction, declare, grows_faster_than_any_power, pure_number


def exponential(value: Any) -> Any:
    """e ** value; inf past double range (the overflow check reports it), element-wise for arrays."""
    import math

    if not getattr(value, "ndim", 0):
        try:
            return math.exp(value)
        except OverflowError:
            return math.inf
    import numpy

    if value.dtype == object:  # Python ints beyond int64
        return numpy.frompyfunc(exponential, 1, 1)(value).astype(float)
    return numpy.exp(value)


def above_or_below_one(node: Any, reduce: Any) -> Any:
    """e^u is 1/(1 + d) for u < 0 (so 1 − e^(−s) is d/(1 + d) > 0), 1 + d for u > 0, d > 0."""
    inner = reduce(node.args[0])
    if inner.is_negative:
        return 1 / (1 + sympy.Dummy("above", positive=True))
    if inner.is_positive:
        return 1 + sympy.Dummy("above", positive=True)
    if inner.is_nonpositive:
        return 1 / (1 + sympy.Dummy("above", nonnegative=True))
    if inner.is_nonnegative:
        return 1 + sympy.Dummy("above", nonnegative=True)
    return sympy.Dummy("exponential", positive=True)


EXP = declare(MathFunction(
    sympy.exp, "exp",
    python=lambda printer, expr: printer.call("exponential", expr.args[0]),
    javascript=lambda printer, expr: f"Math.exp({printer._print(expr.args[0])})",
    dimension=pure_number("exponential"), sign=above_or_below_one, growth=grows_faster_than_any_power,
    python_helpers=(exponential,),
    nonfinite=(((float("inf"),), "inf"), ((1e300,), "inf"), ((float("nan"),), "nan")),
))
