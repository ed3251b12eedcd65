"""``ceiling(x)``: the smallest whole number at least x (``ceiling(n/k)`` groups of at most k)."""

from __future__ import annotations

import sympy

from symbolic.model.functions.declared import MathFunction, declare, grows_as_argument, of_argument
from symbolic.model.functions.floor import whole_sign

CEILING = declare(MathFunction(
    sympy.ceiling, "ceiling",
    # -(-n // d): floor division, no float rounding of n/d first, an int
    python=lambda printer, expr: printer.quotient(expr, "ceiling_division"),
    javascript=lambda printer, expr: printer.quotient(expr, "ceiling_division"),
    dimension=of_argument, sign=whole_sign, growth=grows_as_argument, integer="always", trend=True,
    nonfinite=(((float("inf"),), "inf"), ((float("-inf"),), "-inf"), ((float("nan"),), "nan")),
))
