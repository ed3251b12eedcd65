"""AttentionTilingScenario: the 4,096-token FP32 entry by hand, edges, exact sympy agreement."""

from __future__ import annotations

import pytest
from conftest import assert_matches_exact, exact_outputs, flatten
from hypothesis import given, settings
from hypothesis import strategies as st

from generated import AttentionTilingScenario, ScenarioInputError, Scenarios
from symbolic.scenarios.training_memory.attention_tiling import AttentionTilingScenario as Declared


def test_4096_tokens_fp32_by_hand():
    """S = 4096, d = 64, tau = 128, H = 16, v = 4 B (spec §6 values, arithmetic written out)."""
    s = Scenarios.AttentionScores4096TokensFp32
    S, d, tau, H, v = 4096, 64, 128, 16, 4
    score = S * S * v  # 67,108,864 B
    io = 4 * S * d * v
    expected = {
        "score_matrix": (score / 1e6, "MB", 67.108864),
        "all_heads_scores": (H * score / 1e9, "GB", 1.073741824),
        "tile_bytes": (tau * tau * v / 1e3, "KB", 65.536),
        "qkv_bytes": (3 * S * d * v / 1e6, "MB", 3.145728),
        "io_bytes": (io / 1e6, "MB", 4.194304),
        "stored_standard": ((io + 2 * score) / 1e6, "MB", 138.412032),
        "stored_flash": ((io + 2 * S * v) / 1e6, "MB", 4.227072),
    }
    for name, (hand, unit, spec) in expected.items():
        q = getattr(s, name)
        assert q.to(unit).magnitude == pytest.approx(hand, rel=1e-12) == pytest.approx(spec, rel=1e-9), name
    assert s.tiles_per_side == 32 and isinstance(s.tiles_per_side, int)
    assert s.tile_count == 1024 and isinstance(s.tile_count, int)
    assert s.stored_ratio == pytest.approx(32.74418604651163, rel=1e-9)
    assert s.stored_ratio == pytest.approx((io + 2 * score) / (io + 2 * S * v), rel=1e-12)


def test_tile_larger_than_sequence_has_no_whole_tiles():
    s = Scenarios.AttentionScores4096TokensFp32.variant(seq_len=100, tile=128)
    assert s.tiles_per_side == 0 and s.tile_count == 0


def test_partial_tiles_are_not_counted():
    s = Scenarios.AttentionScores4096TokensFp32.variant(seq_len=1000, tile=128)
    assert s.tiles_per_side == 7 and s.tile_count == 49


@pytest.mark.parametrize("name, value", [("tile", 0), ("io_tensors", 0), ("seq_len", 0), ("heads", -1),
                                         ("stored_square_matrices", -1), ("bytes_per_value", 0)])
def test_degenerate_inputs_are_rejected(name, value):
    """The reference divides by a zero tile or a zero FlashAttention storage; ours refuses the input."""
    with pytest.raises(ScenarioInputError, match=name):
        Scenarios.AttentionScores4096TokensFp32.variant(**{name: value})


def test_bare_width_is_bytes_not_bits():
    assert Scenarios.AttentionScores4096TokensFp32.variant(bytes_per_value=2).tile_bytes.to("KB").magnitude == 32.768


@settings(max_examples=60, deadline=None)
@given(S=st.integers(1, 10**6), d=st.integers(1, 512), tau=st.integers(1, 512), H=st.integers(1, 256),
       v=st.sampled_from([0.5, 1, 2, 4]), io=st.integers(1, 8), sq=st.integers(0, 4), rs=st.integers(0, 4))
def test_evaluator_equals_exact_sympy(S, d, tau, H, v, io, sq, rs):
    s = AttentionTilingScenario(seq_len=S, head_dim=d, tile=tau, heads=H, bytes_per_value=v, io_tensors=io,
                                stored_square_matrices=sq, row_statistics=rs)
    assert_matches_exact(flatten(s.evaluate()), exact_outputs(Declared.model, s._args))
    assert s.tiles_per_side == S // tau
