"""``Exceeds(a, b)``: 1 when a > b, else 0 (a tie is 0), a choice between two outcomes."""

from __future__ import annotations

from typing import Any

import sympy

from symbolic.model.functions.declared import MathFunction, agreeing, declare


class Exceeds(sympy.Function):
    """1 when the first argument is larger than the second, else 0 (a tie is 0): a choice
    between two outcomes, e.g. ``Output(Exceeds(memory_time, compute_time), labels=("Compute", "Memory"))``."""

    is_integer = True
    is_nonnegative = True
    nargs = 2

    @classmethod
    def eval(cls, a: sympy.Expr, b: sympy.Expr) -> sympy.Integer | None:
        difference = a - b
        if difference.is_number and difference.is_real:
            return sympy.Integer(1) if difference > 0 else sympy.Integer(0)
        return None

    def fdiff(self, argindex: int = 1) -> sympy.Expr:
        return sympy.Integer(0)  # a step: flat on either side of the switch

    def _latex(self, printer: sympy.printing.latex.LatexPrinter) -> str:
        a, b = (printer._print(arg) for arg in self.args)
        return rf"[{a} > {b}]"


def _python(printer: Any, expr: Any) -> str:
    a, b = (printer._print(arg) for arg in expr.args)
    return f"{printer.helper('choose')}({a} > {b}, 1, 0)"


def _javascript(printer: Any, expr: Any) -> str:
    a, b = (printer._print(arg) for arg in expr.args)
    return f"({a} > {b} ? 1 : 0)"


def _dimension(expr: Any, found: list[Any], none: Any) -> Any:
    agreeing(expr, found, none)  # compares like quantities; the answer is a count (0 or 1)
    return none


EXCEEDS = declare(MathFunction(Exceeds, "Exceeds", python=_python, javascript=_javascript, dimension=_dimension,
                               integer="always", nonfinite=(((float("inf"), 0.0), "1"),)))
