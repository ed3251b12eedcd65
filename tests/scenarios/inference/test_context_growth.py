"""ContextGrowthScenario: the three BERT entries by hand, exact sympy, the solved question."""

from __future__ import annotations

import pytest
from conftest import assert_matches_exact, exact_outputs, flatten
from hypothesis import given, settings
from hypothesis import strategies as st

from generated import ContextGrowthScenario, ScenarioInputError, Scenarios
from symbolic.scenarios.inference.context_growth import ContextGrowthScenario as Declared


@pytest.mark.parametrize(("entry", "tokens", "ratio", "score_ratio"), [
    ("BertWindowToFourK", 4096, 8.0, 64.0),  # 4096/512 = 8, 8² = 64 (spec §12.5)
    ("BertWindowToOneK", 1024, 2.0, 4.0),
    ("BertWindowToTwoK", 2048, 4.0, 16.0),
])
def test_bert_entries_by_hand(entry, tokens, ratio, score_ratio):
    s = getattr(Scenarios, entry)
    assert s.base_tokens == 512 and s.tokens == tokens
    assert s.ratio == ratio and s.score_ratio == score_ratio


def test_uneven_ratio_is_squared_after_the_division():
    s = Scenarios.BertWindowToFourK.variant(tokens=700)
    assert s.ratio == pytest.approx(700 / 512, rel=1e-15)
    assert s.score_ratio == pytest.approx((700 / 512) ** 2, rel=1e-15)


def test_a_zero_base_is_refused_not_divided_by():
    with pytest.raises(ScenarioInputError, match="base_tokens"):
        Scenarios.BertWindowToFourK.variant(base_tokens=0)


def test_context_for_a_hundredfold_score_growth():
    """score_ratio = (T/512)² = 100 at T = 5120."""
    from symbolic.analysis.solving import solve

    solution = solve(Declared.model, "tokens", "score_ratio", 100, Scenarios.BertWindowToFourK._args)
    assert solution.values == [pytest.approx(5120, rel=1e-12)]


@settings(max_examples=60, deadline=None)
@given(t0=st.integers(1, 10**7), t=st.integers(1, 10**7))
def test_evaluator_equals_exact_sympy(t0, t):
    s = ContextGrowthScenario(base_tokens=t0, tokens=t)
    assert_matches_exact(flatten(s.evaluate()), exact_outputs(Declared.model, s._args))
