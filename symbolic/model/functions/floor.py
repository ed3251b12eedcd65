"""``floor(x)``: the largest whole number at most x (a count of whole items, ``floor(E/b)`` batches)."""

from __future__ import annotations

from typing import Any

import sympy

from symbolic.model.functions.declared import MathFunction, declare, grows_as_argument, of_argument


def whole_sign(node: Any, reduce: Any) -> Any:
    """⌊x⌋ ≥ 1 when x ≥ 1 (so ⌊E/b⌋ ≥ 1 once E ≥ b), ≥ 0 when x ≥ 0; for ceilings and truncations too."""
    inner = reduce(node.args[0])
    if isinstance(node, sympy.ceiling) and inner.is_positive:  # a ceiling of a positive number is >= 1
        return sympy.Dummy("whole_at_least_one", positive=True, integer=True)
    if sympy.simplify(inner - 1).is_nonnegative:
        return sympy.Dummy("whole_at_least_one", positive=True, integer=True)
    return sympy.Dummy("whole", nonnegative=True, integer=True) if inner.is_nonnegative else None


FLOOR = declare(MathFunction(
    sympy.floor, "floor",
    # Python's floor division of numerator by denominator (exact: no float rounding of n/d first), an int
    python=lambda printer, expr: printer.quotient(expr, "floor_div"),
    javascript=lambda printer, expr: printer.quotient(expr, "floor_div"),
    dimension=of_argument, sign=whole_sign, growth=grows_as_argument, integer="always", trend=True,
    nonfinite=(((float("inf"),), "inf"), ((float("-inf"),), "-inf"), ((float("nan"),), "nan")),
))
