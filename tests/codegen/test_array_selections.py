"""Every construct the Python printer emits works on numbers and on numpy arrays alike.

Each expression below is printed by the evaluators' printer, compiled with the runtime helpers,
and evaluated on plain numbers (which must equal exact sympy evaluation, an int where sympy's
value is an integer and the inputs are ints) and on arrays of every kind a caller may pass
(float64, int64, object arrays of Python ints, 0-d arrays, numpy scalars, a size-1 array
against a longer one): each element must equal the scalar evaluation at that point. Before the
selections were printed array-safe, a ``Piecewise`` on an array was a Python ``if`` and raised
"The truth value of an array ... is ambiguous" (a sweep of
``TrainingStateFit.master_bytes_per_parameter``, a search of ``ZeroSharding.activation_strategy``).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import sympy

from symbolic.codegen.pyprint import HELPERS, EvaluatorPrinter
from symbolic.model.functions import CeilLog2, Exceeds, Given
from symbolic.runtime import mathops

x, y = sympy.symbols("x y", positive=True, integer=True)
z = sympy.Symbol("z", positive=True)  # optional: None when not given
SYMBOLS = (x, y, z)

EXPRESSIONS = {
    "piecewise": sympy.Piecewise((x, x > 3), (y, True)),
    "piecewise three ways": sympy.Piecewise((x * y, sympy.Eq(x, 1)), (x + y, sympy.Eq(x, 2)), (2 * y, True)),
    "and": sympy.Piecewise((1, (x > 2) & (y < 5)), (0, True)),
    "or": sympy.Piecewise((x, (x > 4) | (y > 4)), (y, True)),
    "not": sympy.Piecewise((x, sympy.Not(sympy.Eq(x, y))), (0, True)),
    "given and a comparison": sympy.Piecewise((x + z, Given(z) & (x > 2)), (y, x > 4), (x, True)),
    "given only": sympy.Piecewise((x * z, Given(z)), (x, True)),
    "nested": sympy.Piecewise((sympy.Piecewise((x, y > 2), (y, True)) + 1, x > 2), (0, True)),
    "guarded division": sympy.Piecewise((x / (x - 3), x > 3), (0, True)),
    "min and max": sympy.Min(x, y) + sympy.Max(x, 2 * y, 5),
    "floor": sympy.floor(x / y),
    "ceiling": sympy.ceiling(x / y),
    "mod": sympy.Mod(x, y),
    "ceil log2": CeilLog2(x),
    "exceeds": Exceeds(x, y),
    "comparison": x > y,
}


def compiled(expr: sympy.Expr):
    printer = EvaluatorPrinter({s: str(s) for s in SYMBOLS}, {})
    code = printer.doprint(expr)
    assert printer.helpers_used <= set(HELPERS), printer.helpers_used
    namespace = {name: getattr(mathops, name) for name in HELPERS}
    exec(f"def f(x, y, z=None):\n    return {code}\n", namespace)  # noqa: S102
    return namespace["f"], code


def exact(expr: sympy.Expr, point: dict) -> sympy.Basic:
    given = {s: v for s, v in point.items() if v is not None}
    if point.get(z) is None:
        expr = expr.replace(Given, lambda *args: sympy.false if z in args else sympy.true)
    else:
        expr = expr.replace(Given, lambda *args: sympy.true)
    value = expr.subs(given).doit()
    return int(bool(value)) if isinstance(value, sympy.logic.boolalg.BooleanAtom) else value


POINTS = [(a, b) for a, b in itertools.product(range(1, 7), range(1, 7))]


@pytest.mark.parametrize("label", EXPRESSIONS)
def test_scalars_are_exact_and_ints_stay_ints(label):
    function, code = compiled(EXPRESSIONS[label])
    for (a, b), c in itertools.product(POINTS, (None, 2)):
        got = function(a, b, c)
        want = exact(EXPRESSIONS[label], {x: a, y: b, z: c})
        assert float(got) == float(want), (label, code, a, b, c, got, want)
        if isinstance(want, sympy.Integer) and label != "guarded division":  # a quotient is a float in Python
            assert type(got) in (int, bool), (label, code, a, b, type(got))


@pytest.mark.parametrize("label", EXPRESSIONS)
@pytest.mark.parametrize("kind", ["float64", "int64", "object", "size-1 against many"])
def test_arrays_equal_the_scalars_element_by_element(label, kind):
    function, code = compiled(EXPRESSIONS[label])
    first = np.array([a for a, _ in POINTS])
    second = np.array([b for _, b in POINTS])
    if kind == "float64":
        first, second = first.astype(float), second.astype(float)
    elif kind == "object":  # Python ints, some beyond int64: they must stay exact
        first, second = first.astype(object), second.astype(object)
    for c in (None, 2):
        if kind == "size-1 against many":
            for a in range(1, 7):
                got = np.broadcast_to(function(np.array([a]), second, c), second.shape)
                assert [float(v) for v in got] == [float(function(a, int(b), c)) for b in second], (label, code, a)
            continue
        if kind == "object" and label == "guarded division":
            # Python ints divide in Python: an untaken branch's x / 0 raises, as numpy cannot ignore it
            with pytest.raises(ZeroDivisionError):
                function(first, second, c)
            continue
        got = np.broadcast_to(function(first, second, c), first.shape)
        want = [function(int(a), int(b), c) for a, b in POINTS]
        assert [float(v) for v in got] == [float(v) for v in want], (label, code, kind, c)


@pytest.mark.parametrize("label", EXPRESSIONS)
def test_numpy_scalars_and_zero_d_arrays_give_the_scalar_value(label):
    function, _ = compiled(EXPRESSIONS[label])
    for a, b in POINTS[::5]:
        want = function(a, b, 2)
        for wrap in (np.int64, np.float64, np.array):
            assert float(function(wrap(a), wrap(b), 2)) == float(want), (label, wrap, a, b)


def test_huge_python_ints_stay_exact_in_object_arrays():
    """2**70 + 1 has no float64; an object array keeps the int through every selection."""
    function, code = compiled(EXPRESSIONS["piecewise three ways"])
    big = 2**70 + 1
    got = function(np.array([1, 2, 3], dtype=object), np.array([big, big, big], dtype=object), None)
    assert got.tolist() == [big, 2 + big, 2 * big], code  # x·y at x = 1, x + y at x = 2, 2·y else
    assert mathops.ceil_log2(np.array([2**70, big], dtype=object)).tolist() == [70, 71]


def test_a_selection_evaluates_only_the_branch_taken_for_scalars():
    """x / (x − 3) is a ZeroDivisionError at x = 3, where the branch is not taken."""
    function, _ = compiled(EXPRESSIONS["guarded division"])
    assert function(3, 1) == 0 and function(4, 1) == 4


def test_an_untaken_branch_is_no_floating_point_error_in_a_sweep_but_a_taken_one_is():
    """A sweep evaluates under errstate(divide="raise"): x / (x − 3) at x = 3 is not taken there."""
    function, _ = compiled(EXPRESSIONS["guarded division"])
    with np.errstate(all="raise"):
        assert function(np.array([3.0, 4.0, 6.0]), 1.0).tolist() == [0.0, 4.0, 2.0]
        taken, _ = compiled(sympy.Piecewise((x / (x - 3), x > 2), (0, True)))
        with pytest.raises(FloatingPointError):
            taken(np.array([3.0, 4.0]), 1.0)


def test_ceil_log2_of_arrays_is_exact_past_what_log2_resolves():
    """log2(2**50 + 1) rounds to 50.0, so ceil(log2(n)) gave 50; the binary exponent gives 51."""
    values = np.array([1, 2, 3, 4, 5, 2**50, 2**50 + 1, 2.5, 1.5, 7.0001])
    assert mathops.ceil_log2(values).tolist() == [0, 1, 2, 2, 3, 50, 51, 2, 1, 3]
    assert [mathops.ceil_log2(v) for v in values.tolist()] == [0, 1, 2, 2, 3, 50, 51, 2, 1, 3]


def test_a_selection_without_a_last_true_branch_on_arrays_is_a_declaration_error():
    from symbolic.runtime.errors import DeclarationError

    with pytest.raises(DeclarationError, match="last"):
        compiled(sympy.Piecewise((x, x > 3), (y, y > 2)))
