"""PowerLawScenario: both reference entries by hand, the optional inputs, exact sympy."""

from __future__ import annotations

import math

import pytest
from conftest import assert_matches_exact, exact_outputs, flatten
from hypothesis import given, settings
from hypothesis import strategies as st

from generated import MissingInputError, PowerLawScenario, ScenarioInputError, Scenarios
from symbolic.scenarios.runs.power_law import PowerLawScenario as Declared


def test_kaplan_ten_percent_by_hand():
    """α = 0.05: halving 2^(1/0.05) = 2^20 = 1048576; 10 % lower: (1/0.9)^20 = 8.225263339969967 (runs.md §5)."""
    s = Scenarios.KaplanTenPercentLowerLoss
    assert s.exponent == 0.05
    assert s.halving_multiple == 1048576.0
    assert s.reduction_multiple == pytest.approx((1 / 0.9) ** 20, rel=1e-12)
    assert s.reduction_multiple == pytest.approx(8.225263339969967, rel=1e-9)
    with pytest.raises(MissingInputError, match="'multiple_factor' needs input 'resource_multiple'"):
        _ = s.multiple_factor


def test_kaplan_doubling_by_hand():
    """m = 2: 2^−0.05 = 0.9659363289248456, reduction 0.0340636710751544."""
    s = Scenarios.KaplanComputeDoubling
    assert s.multiple_factor == pytest.approx(0.9659363289248456, rel=1e-12)
    assert s.multiple_reduction == pytest.approx(0.0340636710751544, rel=1e-9)
    assert s.halving_multiple == 1048576.0
    with pytest.raises(MissingInputError, match="'reduction_multiple' needs input 'loss_reduction'"):
        _ = s.reduction_multiple


def test_domains():
    base = Scenarios.KaplanTenPercentLowerLoss
    for name, bad in (("exponent", 0), ("exponent", -0.1), ("loss_reduction", 1), ("loss_reduction", 0),
                      ("resource_multiple", 0)):
        with pytest.raises(ScenarioInputError, match=name):
            base.variant(**{name: bad})
    assert base.variant(resource_multiple=0.5).multiple_factor == pytest.approx(2 ** 0.05)  # fewer resources: larger


# Simple values: exact rational powers of long rationals make sympy factor huge integers.
@settings(max_examples=30, deadline=None)
@given(alpha=st.sampled_from([0.05, 0.076, 0.095, 0.34, 0.5, 1, 2.5]), r=st.none() | st.sampled_from([0.001, 0.1, 0.5, 0.99]),
       m=st.none() | st.sampled_from([0.25, 2, 10, 1000, 3e6]))
def test_evaluator_equals_exact_sympy(alpha, r, m):
    s = PowerLawScenario(exponent=alpha, loss_reduction=r, resource_multiple=m)
    assert_matches_exact(flatten(s.evaluate()), exact_outputs(Declared.model, s._args), rel=1e-9)
    assert s.halving_multiple == pytest.approx(math.pow(2, 1 / alpha), rel=1e-12)
