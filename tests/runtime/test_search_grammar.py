"""The constraint and objective grammar: parsing, units, positions in errors, never eval."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from symbolic.runtime.expressions import ExpressionError, compile_expression

UNITS = {"result.memory": "GB", "capacity": "byte", "time": "ms", "tp_size": "", "op_flops[matmul1]": "flop"}
VALUES = {"result.memory": 70.0, "capacity": 80 * 2**30, "time": 2.5, "tp_size": 8.0, "op_flops[matmul1]": 1e9}


def value(text: str, comparison: bool = False) -> object:
    return compile_expression(text, UNITS, comparison=comparison).evaluate(VALUES.__getitem__)


def test_arithmetic_precedence_and_parentheses() -> None:
    assert value("2 + 3 * 4") == 14
    assert value("(2 + 3) * 4") == 20
    assert value("2 - 3 - 4") == -5  # left-associative
    assert value("8 / 4 / 2") == 1
    assert value("-tp_size * 2") == -16
    assert value("- - 3") == 3


def test_names_with_dots_and_brackets_and_units_converted_to_the_left_side() -> None:
    # 80 GiB = 85.899... GB: the right side is converted into the left side's unit (GB)
    assert value("result.memory <= capacity", True) is np.True_
    assert value("result.memory + capacity", False) == pytest.approx(70 + 80 * 2**30 / 1e9)
    assert value("result.memory >= 70 GB", True) is np.True_
    assert value("result.memory > 70000 MB", True) is np.False_
    assert value("time == 2500us", True) is np.True_
    assert value("op_flops[matmul1] / (time) >= 0.4 TFLOP/s", True) is np.True_
    assert value("tp_size != 8", True) is np.False_


def test_units_of_objectives() -> None:
    assert compile_expression("result.memory", UNITS, comparison=False).unit == "GB"
    assert compile_expression("result.memory / time", UNITS, comparison=False).unit == "GB/ms"
    assert compile_expression("tp_size * 2", UNITS, comparison=False).unit == ""


@pytest.mark.parametrize("text, message", [
    ("result.memroy <= capacity", "unknown name 'result.memroy' at position 0"),
    ("result.memory <= capacity +", "ends where"),
    ("result.memory <= 80", "give the number its unit"),
    ("result.memory + time", "different dimensions"),
    ("result.memory <= 80 parsecs_per_fortnight", "not a known unit"),
    ("result.memory <= (capacity", "ends where ')'"),
    ("result.memory", "needs a comparison"),
    ("__import__('os').system('true') == 1", "cannot read"),
    ("result.memory <= capacity <= capacity", "second comparison at position 26; a constraint has one"),
    ("tp_size >= 1e-400", "'1e-400' at position 11 is below double precision"),
    ("tp_size == 9007199254740993", "9007199254740993 at position 11 is beyond 2**53"),
    ("tp_size ** 2 == 4", "unexpected '*'"),
    ("", "non-empty"),
    ("1e999 == tp_size", "beyond double precision"),
])
def test_bad_constraints_name_the_problem(text: str, message: str) -> None:
    with pytest.raises(ExpressionError, match=message.replace("(", r"\(").replace(")", r"\)").replace("*", r"\*")):
        compile_expression(text, UNITS, comparison=True)


def test_objective_refuses_a_comparison_and_positions_are_reported() -> None:
    with pytest.raises(ExpressionError, match="comparison at position 14"):
        compile_expression("result.memory <= capacity", UNITS, comparison=False)
    with pytest.raises(ExpressionError, match="position 10"):
        compile_expression("tp_size + $", UNITS, comparison=False)


def test_expressions_work_on_broadcasting_arrays() -> None:
    arrays = {"tp_size": np.array([1.0, 2.0, 4.0]).reshape(3, 1), "time": np.array([1.0, 3.0])}
    compiled = compile_expression("tp_size * time >= 4 ms", {"tp_size": "", "time": "ms"}, comparison=True)
    assert compiled.evaluate(arrays.__getitem__).tolist() == [[False, False], [False, True], [True, True]]
    assert compiled.names == ("tp_size", "time")


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(-1e6, 1e6, allow_nan=False, allow_subnormal=False), min_size=3, max_size=3),
       st.sampled_from(["+", "-", "*", "/"]), st.sampled_from(["+", "-", "*", "/"]))
def test_arithmetic_matches_python_on_plain_numbers(numbers: list[float], first: str, second: str) -> None:
    a, b, c = numbers
    text = f"({a!r}) {first} ({b!r}) {second} ({c!r})".replace("(-", "(0 - ")
    def apply(x: float, op: str, y: float) -> float:
        return {"+": x + y, "-": x - y, "*": x * y, "/": x / y if y else math.inf}[op]
    if (first == "/" and b == 0) or (second == "/" and c == 0):
        return
    if second in "*/" and first in "+-":
        expected = apply(a, first, apply(b, second, c))
    else:
        expected = apply(apply(a, first, b), second, c)
    with np.errstate(over="ignore"):  # a quotient beyond double range is inf in both, numpy warns
        got = compile_expression(text, {}, comparison=False).evaluate(lambda name: 0)
    assert got == pytest.approx(expected)


def test_a_division_by_zero_is_inf_or_nan_even_between_plain_numbers() -> None:
    """Names the space does not vary are plain Python numbers: x / 0 between them must follow
    numpy (inf, nan: an unranked point in a search), not raise ZeroDivisionError."""
    with np.errstate(divide="ignore", invalid="ignore"):
        assert value("tp_size / (tp_size - tp_size)") == math.inf
        assert math.isnan(value("(tp_size - tp_size) / (tp_size - tp_size)"))
        assert value("1 / 0") == math.inf
    assert value("9007199254740992 - 9007199254740990") == 2  # exactly doubles: read as written


def test_a_constraint_with_no_value_is_not_met_by_any_comparison() -> None:
    """nan != x is true in numpy: a point whose constraint side is 0/0 met '!= 1' (feasible)
    though it met neither '== 1' nor '< 1'; an undefined constraint is met by no comparison."""
    undefined = "(tp_size - tp_size) / (tp_size - tp_size)"
    with np.errstate(divide="ignore", invalid="ignore"):
        for sign in ("!=", "==", "<=", ">=", "<", ">"):
            assert not compile_expression(f"{undefined} {sign} 1", UNITS, comparison=True).evaluate(VALUES.__getitem__)
            assert not compile_expression(f"1 {sign} {undefined}", UNITS, comparison=True).evaluate(VALUES.__getitem__)
    arrays = {"tp_size": np.array([0.0, 1.0, 2.0, np.nan])}
    compiled = compile_expression("tp_size != 1", {"tp_size": ""}, comparison=True)
    assert compiled.evaluate(arrays.__getitem__).tolist() == [True, False, True, False]
