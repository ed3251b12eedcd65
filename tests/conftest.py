"""Shared helpers: exact evaluation of a declaration with sympy rationals."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import sympy

from symbolic.dimensions import scale_of_unit
from symbolic.model import UNIT_SYMBOLS, ScenarioModel
from symbolic.runtime.validation import REQUIRED


def exact_outputs(model: ScenarioModel, inputs: dict[str, Any]) -> dict[str, sympy.Rational]:
    """Every quantity of ``model`` at ``inputs`` (numbers in declared units), exactly.

    Independent of the code generator: no unit folding, no CSE, no printing; each
    symbol is replaced by its exact value in base units and the result is divided by
    the display unit's scale.
    """
    env: dict[sympy.Basic, sympy.Expr] = {s: scale_of_unit(u) for s, u in UNIT_SYMBOLS.items()}
    for decl in model.used_inputs():
        value = inputs.get(decl.name, None)
        if value is None:
            default = decl.spec.default
            assert default is not REQUIRED, f"test gave no value for required input {decl.name}"
            value = sympy.sympify(default).xreplace(env) / scale_of_unit(decl.spec.unit)
        env[decl.symbol] = sympy.Rational(Fraction(value)) * scale_of_unit(decl.spec.unit)
    result = {}
    for quantity in model.quantities:
        value = quantity.expr.xreplace(env)
        env[quantity.symbol] = value
        result[quantity.name] = value / scale_of_unit(quantity.unit)
    return result


def flatten(result: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """The evaluator's nested dict as ``{"op_flops[relu]": ..., "host.host_time": ...}``."""
    flat = {}
    for key, value in result.items():
        if isinstance(value, dict):
            inner_prefix = f"{prefix}{key}."
            for inner_key, inner_value in flatten(value, inner_prefix).items():
                flat[inner_key] = inner_value
        else:
            flat[f"{prefix}{key}"] = value
    return flat


def table_paths(flat: dict[str, Any], tables: set[str]) -> dict[str, Any]:
    """Rename ``op_flops.relu`` to ``op_flops[relu]`` for the given table names."""
    renamed = {}
    for path, value in flat.items():
        head, _, tail = path.rpartition(".")
        if head.split(".")[-1] in tables and tail:
            prefix = head.rpartition(".")[0]
            renamed[(prefix + "." if prefix else "") + f"{head.split('.')[-1]}[{tail}]"] = value
        else:
            renamed[path] = value
    return renamed
