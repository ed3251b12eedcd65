"""``Max(a, b, ...)``: the largest of values of one dimension (NaN when any is NaN, so an overflow
upstream is reported, never clamped to the other value: ``Max(0, floor(inf))`` is not 0)."""

from __future__ import annotations

import sympy

from symbolic.model.functions.declared import MathFunction, agreeing, declare

MAX = declare(MathFunction(
    sympy.Max, "Max",
    python=lambda printer, expr: printer.call("maximum", *expr.args),
    javascript=lambda printer, expr: f"Math.max({', '.join(printer._print(arg) for arg in expr.args)})",
    dimension=agreeing, growth=lambda expr, grow: max(grow(arg) for arg in expr.args), integer="arguments",
    nonfinite=(((0.0, float("nan")), "nan"), ((float("nan"), 0.0), "nan"), ((0.0, float("inf")), "inf")),
))
