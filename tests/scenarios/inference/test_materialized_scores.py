"""MaterializedScoresScenario: the 100k-token entry by hand, the optional device, exact sympy."""

from __future__ import annotations

import pytest
from conftest import assert_matches_exact, exact_outputs, flatten
from hypothesis import given, settings
from hypothesis import strategies as st

from generated import Hardware, MaterializedScoresScenario, MissingInputError, Q_, ScenarioInputError, Scenarios
from symbolic.scenarios.inference.materialized_scores import MaterializedScoresScenario as Declared


def test_hundred_thousand_tokens_by_hand():
    """100000² · 12 = 1.2e11 scores; × 2 B = 240 GB per layer; × 32 = 7680 GB; the H100's
    80 GiB counts as 80 GB (labeled), so one layer is 3.0 devices (spec §12.5)."""
    s = Scenarios.TwelveHeadScoresAt100kTokens
    assert s.scores_per_layer == 120_000_000_000 and isinstance(s.scores_per_layer, int)
    assert s.layer_bytes.to("GB").magnitude == pytest.approx(240.00000000000003, rel=1e-12)
    assert s.total_bytes.to("GB").magnitude == pytest.approx(7680.000000000001, rel=1e-12)
    assert s.device_memory.to("byte").magnitude == pytest.approx(80e9, rel=1e-15)
    assert s.layer_device_multiple == pytest.approx(3.0000000000000004, rel=1e-12)


def test_labeled_capacity_of_a_node_that_is_not_a_whole_number_of_gib():
    """Graphcore GC200: 900 MiB = 0.87890625 GiB, labeled 0.87890625 GB (catalog §B)."""
    s = Scenarios.TwelveHeadScoresAt100kTokens.variant(hardware=Hardware.Cloud.Graphcore_GC200)
    assert s.device_memory.to("GB").magnitude == pytest.approx(0.87890625, rel=1e-15)
    assert s.layer_device_multiple == pytest.approx(240 / 0.87890625, rel=1e-12)


def test_without_hardware_only_the_comparison_is_missing():
    s = Scenarios.TwelveHeadScoresAt100kTokens.variant(hardware=None)
    assert s.total_bytes.to("GB").magnitude == pytest.approx(7680, rel=1e-12)
    with pytest.raises(MissingInputError, match="'layer_device_multiple' needs input 'hardware'"):
        _ = s.layer_device_multiple
    assert "layer_device_multiple" not in s.outputs()


def test_bits_are_not_bytes():
    """A bare 2 is 2 byte (the declared unit); 16 bit is the same width; a count is refused."""
    s = Scenarios.TwelveHeadScoresAt100kTokens
    assert s.variant(bytes_per_score=2).layer_bytes == s.layer_bytes
    assert s.variant(bytes_per_score=Q_(16, "bit")).layer_bytes.to("GB").magnitude == pytest.approx(240, rel=1e-12)
    with pytest.raises(ScenarioInputError, match="bytes_per_score"):
        s.variant(bytes_per_score=Q_(2, "flop"))


def test_sequence_at_which_one_layer_fills_the_device():
    """S² · 12 · 2 B = 80e9 B at S = √(80e9 / 24) = 57735.03 tokens."""
    from symbolic.analysis.solving import solve

    solution = solve(Declared.model, "seq_len", "layer_device_multiple", 1, Scenarios.TwelveHeadScoresAt100kTokens._args)
    assert solution.values == [pytest.approx((80e9 / 24) ** 0.5, rel=1e-12)]


@settings(max_examples=60, deadline=None)
@given(s=st.integers(1, 10**6), h=st.integers(1, 256), n=st.integers(1, 200), e=st.sampled_from([0.5, 1, 2, 4]),
       node=st.sampled_from([None, "H100", "A100_40GB", "Groq_LPU"]))
def test_evaluator_equals_exact_sympy(s, h, n, e, node):
    hardware = None if node is None else getattr(Hardware.Cloud, node)
    scenario = MaterializedScoresScenario(seq_len=s, heads=h, layers=n, bytes_per_score=e, hardware=hardware)
    assert_matches_exact(flatten(scenario.evaluate()), exact_outputs(Declared.model, scenario._args))
