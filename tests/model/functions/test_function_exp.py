"""exp: one declaration module (symbolic/model/functions/exp.py); a scenario writes it, the evaluators compute
it, and its sign facts prove divisions the prover could not see (1 − e^(−s) > 0 for s > 0)."""

from __future__ import annotations

import math

import pytest

from function_support import python_function, rendered_class
from symbolic.model import Input, Output, Scenario, exp
from symbolic.runtime.errors import DeclarationError


class Decay(Scenario):
    """A value decaying with time constant tau, and the mean of the decay over a window."""

    elapsed = Input("s", nonnegative=True, doc="Time elapsed.")
    tau = Input("s", positive=True, doc="Time constant.")
    window = Input("s", positive=True, doc="Averaging window.")
    left = Output(exp(-elapsed / tau), doc="Share left after elapsed.")
    # 1 − e^(−w/τ) is positive for w > 0: exp's declared facts prove the division defined
    mean_per_lost = Output(window / tau / (1 - exp(-window / tau)), doc="Window over the share lost in it.")


def test_exp_renders_and_computes_by_hand():
    cls, files = rendered_class(Decay)
    s = cls(elapsed=2, tau=1, window=1)
    # e^-2 = 1/7.389056098930650 = 0.1353352832366127
    assert s.left == pytest.approx(0.1353352832366127, rel=1e-15)
    # 1/(1 - e^-1) = 1/(1 - 0.36787944117144233) = 1/0.6321205588285577 = 1.5819767068693265
    assert s.mean_per_lost == pytest.approx(1.5819767068693265, rel=1e-15)
    assert "Math.exp(" in files["generated/js/decay.mjs"]
    assert "def exponential(" in files["generated/decay.py"]
    assert r"e^{- \frac{" in files["generated/docs/scenarios/Decay.md"]


def test_exp_overflows_to_inf_not_an_exception():
    f = python_function(exp(Decay.model.inputs[0].symbol), [Decay.model.inputs[0].symbol])
    assert f(1000) == math.inf and f(-1000) == 0.0


def test_exp_of_a_dimensioned_value_is_refused():
    class Bad(Scenario):
        """exp of seconds."""

        t = Input("s", positive=True)
        y = Output(exp(t))

    with pytest.raises(DeclarationError, match="exponential of a dimensioned value"):
        rendered_class(Bad)
