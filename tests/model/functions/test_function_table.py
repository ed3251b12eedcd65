"""The table of declared math functions: every function declared once, every declaration complete,
every printed form runs on numbers and arrays and passes non-finite values on (issue 41 item 4);
anything undeclared is refused by every printer and analysis with a message naming the declaration to add."""

from __future__ import annotations

import math

import pytest
import sympy

import symbolic.model
from function_support import on_arrays, python_function
from symbolic.analysis.dimensions import infer
from symbolic.codegen.jsprint import JsEvaluatorPrinter
from symbolic.codegen.latex import DocsLatexPrinter
from symbolic.codegen.pyprint import EvaluatorPrinter
from symbolic.model.functions.declared import declarations
from symbolic.runtime.errors import UnsupportedNodeError

X, Y = sympy.symbols("x y", real=True)
TABLE = declarations()


def _expected(value: float, expected: str) -> bool:
    if expected == "nan":
        return value != value
    return value == float(expected)


@pytest.mark.parametrize("function", list(TABLE.values()), ids=lambda f: f.name)
def test_every_declared_function_passes_non_finite_values_on_scalars_and_arrays(function):
    for values, expected in function.nonfinite:
        symbols = [X, Y][:len(values)]
        evaluate = python_function(function.node(*symbols), symbols)
        scalar = evaluate(*values)
        assert _expected(float(scalar), expected), (function.name, values, scalar)
        assert _expected(float(on_arrays(evaluate, *values)), expected), (function.name, values, "array")


def test_an_overflow_is_never_clamped_to_a_count_of_zero():
    """max_batch_within(1e297 ms) was 0: ⌊inf/x⌋ is nan in Python and max(0, nan) is 0. Now the overflow
    (inf, or nan) reaches the evaluators' overflow check, on numbers and on arrays."""
    evaluate = python_function(sympy.Max(0, sympy.floor(X / Y)), [X, Y])
    assert evaluate(math.inf, 3.0) == math.inf
    assert math.isnan(evaluate(math.nan, 3.0))
    assert not math.isfinite(on_arrays(evaluate, math.inf, 3.0))
    assert evaluate(7, 2) == 3 and evaluate(-7, 2) == 0


def test_every_declaration_prints_in_python_javascript_and_latex():
    for function in TABLE.values():
        expr = function.node(*[X, Y][: 2 if function.name in ("Max", "Min", "Exceeds", "Mod") else 1])
        assert EvaluatorPrinter({X: "x", Y: "y"}, {}).doprint(expr)
        assert DocsLatexPrinter({X: "x", Y: "y"}).doprint(expr)
        if function.name != "Heaviside":  # made by the gradients, which are Python only
            assert JsEvaluatorPrinter({X: "x", Y: "y"}, {}, set()).doprint(expr)


def test_scenarios_import_every_declared_function_from_symbolic_model():
    for function in TABLE.values():
        if function.export:
            assert getattr(symbolic.model, function.export) is function.node
            assert function.export in symbolic.model.__all__


@pytest.mark.parametrize("printer", [EvaluatorPrinter({X: "x"}, {}), JsEvaluatorPrinter({X: "x"}, {}, set()),
                                     DocsLatexPrinter({X: "x"})], ids=["python", "javascript", "latex"])
def test_an_undeclared_function_is_refused_by_every_printer_naming_the_module_to_add(printer):
    """sympy's own tables printed `cosh(x)` (the gradient of sinh) with no import: a NameError at run time."""
    with pytest.raises(UnsupportedNodeError, match=r"cosh .*add symbolic/model/functions/cosh\.py"):
        printer.doprint(1 + sympy.cosh(X))
    with pytest.raises(UnsupportedNodeError, match="symbolic/model/functions/f.py"):
        printer.doprint(sympy.Function("f")(X))


def test_an_undeclared_function_is_refused_by_the_dimension_check():
    with pytest.raises(UnsupportedNodeError, match=r"sinh .*symbolic/model/functions/sinh\.py"):
        infer(sympy.sinh(X), {X: infer(sympy.Integer(1), {})})


def test_max_batch_within_an_overflowing_budget_is_reported_not_zero():
    """Issue 41 item 4, through the public API: a 1e297 ms budget overflows the step's arithmetic; the count
    was 0 (max(0, nan)), now the overflow check names the output."""
    import numpy

    from generated import Scenarios
    from symbolic.runtime.errors import ScenarioInputError

    s = Scenarios.Gpt2XlChatDecodeBatchesH100
    with numpy.errstate(all="ignore"), pytest.raises(ScenarioInputError, match="max_batch_within' is inf"):
        s.max_batch_within(1e297)
    with numpy.errstate(all="ignore"):
        assert not math.isfinite(s.max_batch_within(numpy.array([1e297, 20]))[0])
    assert s.max_batch_within(20) == 203  # unchanged where finite


def test_the_javascript_evaluator_passes_an_overflow_on_too():
    """The calculator's floor division gave 0 for an infinite numerator (``!NaN`` is true), and ⌈log₂ inf⌉ never
    returned; now both give the overflow on (JSON has no Infinity: the result reads null), never a count of 0."""
    from function_support import javascript_result, rendered_class
    from symbolic.model import CeilLog2, Input, Max, Output, Scenario, floor

    class Budget(Scenario):
        """Items a budget buys."""

        budget = Input(positive=True)
        scale = Input(positive=True)
        price = Input(positive=True)
        items = Output(Max(0, floor(budget * scale / price)), doc="Whole items.")
        depth = Output(CeilLog2(1 + budget * scale), doc="Tree depth.")

    _, files = rendered_class(Budget)
    args = {"budget": 1e300, "scale": 1e300, "price": 3.0}
    got = javascript_result(files, "budget", args, floats=tuple(args))
    assert got["items"] is None and got["depth"] is None
    assert javascript_result(files, "budget", {"budget": 7, "scale": 1, "price": 2})["items"] == 3


def test_every_declaration_module_is_in_every_scenario_s_cache_key():
    """The package loads its modules by listing its folder (no import names them): editing a declaration must
    still re-render the scenarios (symbolic.codegen.keys.LOADS_EVERY_MODULE), never serve a stale cache."""
    from pathlib import Path

    from symbolic.codegen import keys

    modules = {f"symbolic.model.functions.{path.stem}"
               for path in Path(declarations.__code__.co_filename).parent.glob("*.py") if path.stem != "__init__"}
    for name, inputs in keys.scenario_inputs().items():
        assert modules <= set(inputs["code"]), name
