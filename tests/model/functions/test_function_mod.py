"""Mod: one declaration module (symbolic/model/functions/mod.py): Python's modulo, with the divisor's sign."""

from __future__ import annotations

import sympy

from function_support import python_function
from symbolic.codegen.jsprint import JsEvaluatorPrinter

A, B = sympy.symbols("a b", real=True)


def test_mod_has_the_divisor_s_sign_in_python_and_javascript():
    f = python_function(sympy.Mod(A, B), [A, B])
    assert f(7, 3) == 1 and f(-7, 3) == 2  # −7 = 3·(−3) + 2
    # JavaScript's % keeps the numerator's sign, so the printed form corrects it unless both signs are known alike
    assert JsEvaluatorPrinter({A: "a", B: "b"}, {}, set()).doprint(sympy.Mod(A, B)) == "((a % b) + b) % b"
