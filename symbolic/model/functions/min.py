"""``Min(a, b, ...)``: the smallest of values of one dimension (NaN when any is NaN)."""

from __future__ import annotations

import sympy

from symbolic.model.functions.declared import MathFunction, agreeing, declare

MIN = declare(MathFunction(
    sympy.Min, "Min",
    python=lambda printer, expr: printer.call("minimum", *expr.args),
    javascript=lambda printer, expr: f"Math.min({', '.join(printer._print(arg) for arg in expr.args)})",
    dimension=agreeing, growth=lambda expr, grow: min(grow(arg) for arg in expr.args), integer="arguments",
    nonfinite=(((0.0, float("nan")), "nan"), ((float("nan"), 0.0), "nan"), ((0.0, float("-inf")), "-inf")),
))
