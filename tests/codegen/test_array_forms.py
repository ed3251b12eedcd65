"""Sums, products and maxima over a range an input sets run on arrays (a sweep over the count), and every
printed form is run on arrays at generation: a scalar-only form stops generation naming the scenario,
never first in a sweep (a Sum up to an input printed as range(...) over a numpy array crashed every sweep)."""

from __future__ import annotations

import numpy
import pytest
import sympy

from function_support import rendered_class
from symbolic.model import Input, Instance, Output, Product, Scenario, Sum, index
from symbolic.model.functions import declared
from symbolic.runtime.errors import DeclarationError

k = index("k")


class Series(Scenario):
    """The first K terms of a geometric series and their product."""

    r = Input(positive=True, doc="Ratio.")
    terms = Input(integer=True, positive=True, symbol="K", doc="Number of terms.")
    total = Output(Sum(r**k, (k, 0, terms - 1)), doc="1 + r + ... + r^(K−1).")
    grown = Output(Product(1 + r / (k + 1), (k, 0, terms - 1)), doc="Π (1 + r/(k+1)).")


def test_a_sum_up_to_an_input_runs_on_numbers_and_arrays():
    entry = Instance(Series, name="half", description="r = 1/2, three terms.", r=0.5, terms=3)
    cls, files = rendered_class(Series, instances=(entry,))
    namespace: dict = {}
    exec(compile(files["generated/series.py"], "generated/series.py", "exec"), namespace)  # noqa: S102
    evaluate = namespace["evaluate"]
    assert evaluate(r=0.5, terms=3)["total"] == 1.75  # 1 + 0.5 + 0.25
    # each element its own range: K = 1, 2, 3 gives 1, 1.5, 1.75; the product (1 + 1/2)(1 + 1/4)(1 + 1/6) = 2.1875
    swept = evaluate(r=0.5, terms=numpy.array([1, 2, 3]))
    assert swept["total"].tolist() == [1.0, 1.5, 1.75]
    assert swept["grown"].tolist() == pytest.approx([1.5, 1.875, 2.1875])
    assert cls(r=0.5, terms=3).grown == pytest.approx(2.1875)


def test_a_form_that_fails_on_arrays_stops_generation(monkeypatch):
    """A declaration printing scalar-only Python (float() of an array raises) is found at generation."""
    monkeypatch.setitem(declared._TABLE, sympy.cosh, declared.MathFunction(
        sympy.cosh, "", python=lambda printer, expr: f"float({printer._print(expr.args[0])})",
        javascript=lambda printer, expr: f"Math.cosh({printer._print(expr.args[0])})", trend=True))

    class ScalarOnly(Scenario):
        """A form that works on numbers only."""

        x = Input(positive=True)
        y = Output(sympy.cosh(x))

    entry = Instance(ScalarOnly, name="one", description="x = 1.", x=1)
    with pytest.raises(DeclarationError, match="ScalarOnly: its evaluator fails on arrays of inputs"):
        rendered_class(ScalarOnly, instances=(entry,))
