"""LowRankUpdateScenario: both entries by hand, the optional width, exact sympy agreement."""

from __future__ import annotations

import pytest
from conftest import assert_matches_exact, exact_outputs, flatten
from hypothesis import given, settings
from hypothesis import strategies as st

from generated import LowRankUpdateScenario, MissingInputError, ScenarioInputError, Scenarios
from symbolic.scenarios.training_memory.low_rank_update import LowRankUpdateScenario as Declared


def test_rank4_on_768_by_hand():
    """768 x 768 = 589,824; 4 (768 + 768) = 6,144; 1 - 6144/589824 = 0.98958...; ratio 96."""
    s = Scenarios.TransformerLayerRank4Update
    assert s.full_params == 589_824 and isinstance(s.full_params, int)
    assert s.update_params == 6_144 and isinstance(s.update_params, int)
    assert s.reduction == pytest.approx(1 - 6144 / 589824, rel=1e-12) == pytest.approx(0.9895833333333334, rel=1e-9)
    assert s.compression == pytest.approx(96.0, rel=1e-12)
    for name in ("full_bytes", "update_bytes"):
        with pytest.raises(MissingInputError, match=f"'{name}' needs input 'bytes_per_param'"):
            getattr(s, name)


def test_rank128_factorization_by_hand():
    s = Scenarios.Rank128Factorization4096
    assert s.full_params == 4096 * 4096 == 16_777_216
    assert s.update_params == 128 * 8192 == 1_048_576
    assert s.reduction == pytest.approx(0.9375, rel=1e-12) and s.compression == pytest.approx(16.0, rel=1e-12)
    assert s.full_bytes.to("MB").magnitude == pytest.approx(16_777_216 * 4 / 1e6, rel=1e-12)
    assert s.full_bytes.to("MB").magnitude == pytest.approx(67.108864, rel=1e-9)
    assert s.update_bytes.to("MB").magnitude == pytest.approx(4.194304, rel=1e-9)


def test_update_larger_than_matrix_gives_negative_reduction():
    s = Scenarios.Rank128Factorization4096.variant(rank=5000)
    assert s.reduction == pytest.approx(1 - 5000 * 8192 / 4096**2, rel=1e-12) == pytest.approx(-1.44140625)
    assert s.compression == pytest.approx(0.4096, rel=1e-12)


@pytest.mark.parametrize("name", ["rank", "in_dim", "out_dim"])
def test_zero_sizes_are_rejected(name):
    with pytest.raises(ScenarioInputError, match=name):
        Scenarios.TransformerLayerRank4Update.variant(**{name: 0})


@settings(max_examples=60, deadline=None)
@given(i=st.integers(1, 10**5), o=st.integers(1, 10**5), r=st.integers(1, 10**4),
       v=st.none() | st.sampled_from([0.5, 1, 2, 4]))
def test_evaluator_equals_exact_sympy(i, o, r, v):
    s = LowRankUpdateScenario(in_dim=i, out_dim=o, rank=r, bytes_per_param=v)
    assert_matches_exact(flatten(s.evaluate()), exact_outputs(Declared.model, s._args))
    assert s.update_params == r * (i + o)
