"""``log(x)``: the natural logarithm of a pure number (write ``log(x)/log(b)`` for base b)."""

from __future__ import annotations

from typing import Any

import sympy

from symbolic.model.functions.declared import MathFunction, declare, grows_slower_than_any_power, pure_number
from symbolic.runtime.errors import DeclarationError


def _one_argument(expr: Any) -> Any:
    if len(expr.args) != 1:
        raise DeclarationError(f"log with a base is not supported, write log(x)/log(b): {expr}")
    return expr.args[0]


LOG = declare(MathFunction(
    sympy.log, "log",
    python=lambda printer, expr: printer.call("log", _one_argument(expr)),
    javascript=lambda printer, expr: f"Math.log({printer._print(_one_argument(expr))})",
    dimension=pure_number("logarithm"), growth=grows_slower_than_any_power,
    nonfinite=(((float("inf"),), "inf"), ((float("nan"),), "nan")),
))
