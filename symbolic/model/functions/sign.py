"""``sign(x)``: −1, 0 or 1, the derivative of ``Abs``; the gradient makes it, scenarios do not write it."""

from __future__ import annotations

from typing import Any

import sympy

from symbolic.model.functions.declared import MathFunction, declare


def _python(printer: Any, expr: Any) -> str:
    choose, value = printer.helper("choose"), printer._print(expr.args[0])
    return f"{choose}({value} > 0, 1, {choose}({value} < 0, -1, 0))"


SIGN = declare(MathFunction(
    sympy.sign, "",
    python=_python,
    javascript=lambda printer, expr: f"Math.sign({printer._print(expr.args[0])})",
    dimension=lambda expr, found, none: none, integer="always",
))
