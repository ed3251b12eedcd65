"""trunc: one declaration module (symbolic/model/functions/trunc.py): rounding toward zero."""

from __future__ import annotations

import math

from function_support import javascript_result, python_function, rendered_class
from symbolic.model import Input, Output, Scenario, trunc


class Drift(Scenario):
    """Whole steps of a signed drift."""

    drift = Input("m", doc="Signed drift.")
    step = Input("m", positive=True, doc="Step length.")
    whole_steps = Output(trunc(drift / step), doc="Whole steps, toward zero.")


def test_trunc_rounds_toward_zero_as_an_exact_int():
    cls, files = rendered_class(Drift)
    assert cls(drift=-2.5, step=1).whole_steps == -2  # floor would give -3
    assert cls(drift=2.5, step=1).whole_steps == 2
    big = cls(drift=2**60 + 1, step=1).whole_steps
    assert big == 2**60 + 1 and isinstance(big, int)  # an int, exact past 2**53 (a float would round it)
    assert "function truncate(" in files["generated/js/drift.mjs"]
    assert javascript_result(files, "drift", {"drift": -2.5, "step": 1})["whole_steps"] == -2
    assert javascript_result(files, "drift", {"drift": 7, "step": -2})["whole_steps"] == -3  # -3.5 toward zero
    assert r"\operatorname{trunc}" in files["generated/docs/scenarios/Drift.md"]


def test_trunc_passes_non_finite_values_on():
    x = Drift.model.inputs[0].symbol
    f = python_function(trunc(x), [x])
    assert f(math.inf) == math.inf and math.isnan(f(math.nan)) and f(-3.9) == -3 and f(-4) == -4
