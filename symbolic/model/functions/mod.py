"""``Mod(a, b)``: the remainder of a by b with b's sign (Python's ``a % b``; 7 mod 3 is 1, −7 mod 3 is 2)."""

from __future__ import annotations

from typing import Any

import sympy
from sympy.printing.precedence import precedence

from symbolic.model.functions.declared import MathFunction, agreeing, declare


def _python(printer: Any, expr: Any) -> str:
    return " % ".join(printer.parenthesize(arg, precedence(expr)) for arg in expr.args)


def _javascript(printer: Any, expr: Any) -> str:
    """JavaScript's ``%`` keeps the numerator's sign: Python's modulo unless both signs are known alike."""
    numerator, denominator = expr.args
    a, b = (printer.parenthesize(arg, precedence(expr)) for arg in expr.args)
    if (numerator.is_nonnegative and denominator.is_nonnegative
            or numerator.is_nonpositive and denominator.is_nonpositive):
        return f"{a} % {b}"
    return f"(({a} % {b}) + {b}) % {b}"


def _sign(node: Any, reduce: Any) -> Any:
    """In [0, b) for b > 0."""
    return sympy.Dummy("remainder", nonnegative=True) if reduce(node.args[1]).is_positive else None


MOD = declare(MathFunction(
    sympy.Mod, "Mod", python=_python, javascript=_javascript, dimension=agreeing, sign=_sign, integer="arguments",
    nonfinite=(((float("nan"), 2.0), "nan"), ((float("inf"), 2.0), "nan")),
))
