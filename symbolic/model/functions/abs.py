"""``Abs(x)``: the magnitude of x, in x's unit."""

from __future__ import annotations

from typing import Any

import sympy

from symbolic.model.functions.declared import MathFunction, declare, grows_as_argument, of_argument


def _sign(node: Any, reduce: Any) -> Any:
    """Positive where its argument is proven nonzero, else nonnegative."""
    inner = reduce(node.args[0])
    return sympy.Dummy("magnitude", positive=True) if inner.is_nonzero else sympy.Dummy("magnitude", nonnegative=True)


ABS = declare(MathFunction(
    sympy.Abs, "Abs",
    python=lambda printer, expr: f"abs({printer._print(expr.args[0])})",  # builtin: numbers and numpy arrays
    javascript=lambda printer, expr: f"Math.abs({printer._print(expr.args[0])})",
    dimension=of_argument, sign=_sign, growth=grows_as_argument, integer="arguments",
    nonfinite=(((float("-inf"),), "inf"), ((float("nan"),), "nan")),
))
