"""``Heaviside(x)``: the step the derivatives of ``Min``/``Max`` carry (1/2 at 0, as sympy's); the gradient
makes it, scenarios do not write it, and only the Python evaluators (which have gradients) print it."""

from __future__ import annotations

from typing import Any

import sympy

from symbolic.model.functions.declared import MathFunction, declare
from symbolic.runtime.errors import DeclarationError


def _no_javascript(printer: Any, expr: Any) -> str:
    raise DeclarationError(f"{expr}: a step has no JavaScript form (gradients are Python only)")


HEAVISIDE = declare(MathFunction(
    sympy.Heaviside, "",
    python=lambda printer, expr: printer.call("step", expr.args[0]),
    javascript=_no_javascript,
    dimension=lambda expr, found, none: none,
))
