"""Shared helpers: exact evaluation of a declaration with sympy rationals."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import sympy

from symbolic.analysis.dimensions import scale_of_unit
from symbolic.model.functions import Given, Len
from symbolic.model import UNIT_SYMBOLS, ScenarioModel, _symbols
from symbolic.runtime.validation import REQUIRED


def _exact(value: Any) -> sympy.Rational:
    return sympy.Rational(Fraction(value))


def exact_outputs(model: ScenarioModel, inputs: dict[str, Any]) -> dict[str, Any]:
    """Every quantity of ``model`` at ``inputs`` (numbers in declared units), exactly.

    Independent of the code generator: no unit folding, no CSE, no printing; each symbol
    is replaced by its exact value in base units, sums and maxima are expanded with
    ``doit``, and the result is divided by the display unit's scale. A quantity that
    needs an absent optional input is None.
    """
    env: dict[sympy.Basic, Any] = {s: scale_of_unit(u) for s, u in UNIT_SYMBOLS.items()}
    lists: dict[sympy.Basic, tuple[list[Any], int]] = {}  # base -> (values, index of the first)
    for decl in model.evaluator_inputs():
        value = inputs.get(decl.name)
        scale = scale_of_unit(decl.spec.unit)
        if isinstance(decl.symbol, sympy.IndexedBase):
            lists[decl.symbol] = ([_exact(v) * scale for v in value], 0)
            continue
        if value is None and decl.spec.default is not None:
            assert decl.spec.default is not REQUIRED, f"test gave no value for required input {decl.name}"
            default = sympy.sympify(decl.spec.default)
            absent = any(env.get(s, 0) is None for s in default.free_symbols)  # from absent optional inputs
            value = None if absent else default.xreplace(env) / scale
        env[decl.symbol] = None if value is None else _exact(value) * scale

    def evaluate(expr: sympy.Basic) -> Any:
        expr = expr.replace(lambda e: isinstance(e, Given),  # Output(..., otherwise=): its branch needs these given
                            lambda e: sympy.true if all(env.get(s) is not None for s in e.inputs()) else sympy.false)
        reads = _symbols(expr)
        if any(env.get(s, 0) is None for s in reads) or any(s in lists and lists[s] is None for s in reads):
            return None
        expr = expr.xreplace({s: v for s, v in env.items() if v is not None})
        expr = expr.replace(lambda e: isinstance(e, Len), lambda e: sympy.Integer(len(lists[e.args[0]][0])))
        expr = expr.doit()
        expr = expr.replace(lambda e: isinstance(e, sympy.Indexed),
                            lambda e: lists[e.base][0][int(e.indices[0]) - lists[e.base][1]])
        return expr.doit()

    result: dict[str, Any] = {}
    for quantity in model.quantities:
        if quantity.kind == "text":
            continue
        if quantity.echo and isinstance(quantity.symbol, sympy.IndexedBase):
            lists[quantity.symbol] = lists[quantity.expr]
            result[quantity.name] = [v / scale_of_unit(quantity.unit) for v in lists[quantity.expr][0]]
            continue
        if quantity.kind == "list":
            index, start, stop = quantity.limits
            first, last = evaluate(start), evaluate(stop)
            points = [{index: sympy.Integer(k)} for k in range(int(first), int(last) + 1)]
            if quantity.inner:  # a grid: row by row
                column, low, high = quantity.inner
                points = [{**at, column: sympy.Integer(j)} for at in points
                          for j in range(int(evaluate(low)), int(evaluate(high)) + 1)]
            values = [evaluate(quantity.expr.xreplace(at)) for at in points]
            lists[quantity.symbol] = (values, int(first))
            absent = any(v is None for v in values)  # an optional input it reads is not given
            result[quantity.name] = None if absent else [v / scale_of_unit(quantity.unit) for v in values]
            continue
        value = evaluate(quantity.expr)
        env[quantity.symbol] = value
        result[quantity.name] = None if value is None else value / scale_of_unit(quantity.unit)
    return result


def flatten(result: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """The evaluator's nested dict as ``{"op_flops.relu": ..., "host.host_time": ...}``."""
    flat = {}
    for key, value in result.items():
        if isinstance(value, dict):
            flat.update(flatten(value, f"{prefix}{key}."))
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


def assert_matches_exact(got: dict[str, Any], exact: dict[str, Any], rel: float = 1e-12,
                         absolute: dict[str, float] | None = None) -> None:
    """Counts equal exactly (when the evaluator kept an int), everything else to ``rel``; an output
    named in ``absolute`` also to that absolute error (a ``1 - a/b`` is a few ulp of 1 from an
    exact 0 in floats, however exact the evaluator)."""
    import math

    for name, value in exact.items():
        actual = got[name]
        if value is None or (value == [] and actual is None):  # an empty list of an absent optional input: None
            assert actual is None, name
        elif isinstance(value, list):
            assert len(actual) == len(value), name
            for a, v in zip(actual, value, strict=True):
                assert (a == int(v)) if isinstance(a, int) else math.isclose(a, float(v), rel_tol=rel), name
        elif isinstance(actual, int) and not isinstance(actual, bool):
            assert actual == value, name
        else:
            tolerance = (absolute or {}).get(name, 1e-300)
            assert math.isclose(actual, float(value), rel_tol=rel, abs_tol=tolerance), f"{name}: {actual} != {value}"


def ulp_error(value: float, exact: Any) -> float:
    """``|value - exact|`` in units in the last place of ``exact`` as a double (exactly, with
    sympy rationals; 0 for an exact 0 met exactly, infinite for anything else there)."""
    import math

    exact = sympy.sympify(exact)
    if exact == 0:
        return 0.0 if value == 0 else math.inf
    difference = abs(sympy.Rational(Fraction(float(value))) - exact)
    return float((difference / sympy.Rational(Fraction(math.ulp(float(exact))))).evalf(20))


def float_errors(scenario: Any, model: ScenarioModel) -> list[tuple[str, float, bool]]:
    """``(output path, ulp error, rational)`` for every float the generated evaluator returns for
    ``scenario`` (each list entry apart; exact ints, None and text left out), against exact
    evaluation; ``rational`` is False where the exact value is irrational (a power law's pow, a log)."""
    tables = {quantity.table for quantity in model.quantities if quantity.table}
    got = table_paths(flatten(scenario.evaluate()), tables)
    exact = exact_outputs(model, scenario._args)
    found = []
    for quantity in model.quantities:
        if quantity.hidden or quantity.kind == "text":
            continue
        value, expected = got[quantity.name], exact[quantity.name]
        pairs = ([(f"{quantity.name}[{i}]", v, e) for i, (v, e) in enumerate(zip(value, expected, strict=True))]
                 if isinstance(expected, list) else [(quantity.name, value, expected)])
        for path, number, truth in pairs:
            if number is None or isinstance(number, (bool, int)):
                continue
            found.append((path, ulp_error(number, truth), bool(sympy.sympify(truth).is_Rational)))
    return found
