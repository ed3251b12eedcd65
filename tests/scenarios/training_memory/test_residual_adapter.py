"""ResidualAdapterScenario: the compact-encoder entry by hand, edges, exact sympy agreement."""

from __future__ import annotations

import pytest
from conftest import assert_matches_exact, exact_outputs, flatten
from hypothesis import given, settings
from hypothesis import strategies as st

from generated import ResidualAdapterScenario, ScenarioInputError, Scenarios
from symbolic.scenarios.training_memory.residual_adapter import ResidualAdapterScenario as Declared


def test_compact_encoder_by_hand():
    """2·768·16 + 16 + 768 = 24,576 + 784 = 25,360 per adapter; × 12 = 304,320; FP16 bytes."""
    s = Scenarios.CompactEncoderResidualAdapters
    assert s.params_per_adapter == 25_360 and isinstance(s.params_per_adapter, int)
    assert s.params_total == 304_320 and isinstance(s.params_total, int)
    assert s.adapter_bytes.to("KB").magnitude == pytest.approx(25_360 * 2 / 1e3, rel=1e-12) == 50.72
    assert s.total_bytes.to("MB").magnitude == pytest.approx(304_320 * 2 / 1e6, rel=1e-12) == 0.60864


def test_no_sites_means_no_adapters():
    s = Scenarios.CompactEncoderResidualAdapters.variant(sites=0)
    assert s.params_total == 0 and s.total_bytes.to("MB").magnitude == 0


@pytest.mark.parametrize("name, value", [("bottleneck", 0), ("width", 0), ("width", -5), ("sites", -1)])
def test_bad_shapes_are_rejected(name, value):
    """The reference accepts width 0 (r parameters) and negative widths (negative counts); ours refuses them."""
    with pytest.raises(ScenarioInputError, match=name):
        Scenarios.CompactEncoderResidualAdapters.variant(**{name: value})


@settings(max_examples=60, deadline=None)
@given(d=st.integers(1, 10**5), r=st.integers(1, 10**4), n=st.integers(0, 500), v=st.sampled_from([0.5, 1, 2, 4]))
def test_evaluator_equals_exact_sympy(d, r, n, v):
    s = ResidualAdapterScenario(width=d, bottleneck=r, sites=n, bytes_per_param=v)
    assert_matches_exact(flatten(s.evaluate()), exact_outputs(Declared.model, s._args))
