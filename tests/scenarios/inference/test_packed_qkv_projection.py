"""PackedQkvProjectionScenario: GPT-2 Small's six-token projection by hand, exact sympy."""

from __future__ import annotations

import pytest
from conftest import assert_matches_exact, exact_outputs, flatten
from hypothesis import given, settings
from hypothesis import strategies as st

from generated import InputTypeError, MissingInputError, Models, PackedQkvProjectionScenario, Scenarios
from symbolic.scenarios.inference.packed_qkv_projection import PackedQkvProjectionScenario as Declared


def test_gpt2_small_six_tokens_by_hand():
    """d = 768, packed width 3·768 = 2304, 6·768·2304 = 10,616,832 multiply-adds (spec §12.5)."""
    s = Scenarios.Gpt2SmallSixTokenQkvProjection
    assert (s.width, s.packed_width, s.macs) == (768, 2304, 10_616_832)
    assert all(isinstance(v, int) for v in (s.width, s.packed_width, s.macs))


def test_other_widths_and_projection_counts():
    s = Scenarios.Gpt2SmallSixTokenQkvProjection.variant(workload=Models.Language.Llama3_8B, projections=1, tokens=10)
    assert s.macs == 10 * 4096 * 4096
    ssm = Scenarios.Gpt2SmallSixTokenQkvProjection.variant(workload=Models.StateSpace.Mamba_130M)
    assert ssm.macs == 6 * 768 * 2304


def test_a_workload_without_a_width_is_refused_at_construction():
    with pytest.raises((InputTypeError, MissingInputError), match="workload"):
        Scenarios.Gpt2SmallSixTokenQkvProjection.variant(workload=Models.Vision.ResNet50)
    with pytest.raises(MissingInputError, match="hidden_dim"):
        Scenarios.Gpt2SmallSixTokenQkvProjection.variant(workload=Models.Embodied.DiffusionPolicy_PushT)


def test_tokens_for_a_billion_multiply_adds():
    from symbolic.analysis.solving import solve

    solution = solve(Declared.model, "tokens", "macs", 1e9, Scenarios.Gpt2SmallSixTokenQkvProjection._args)
    assert solution.values == [pytest.approx(1e9 / (768 * 2304), rel=1e-12)]


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 10**6), p=st.integers(1, 8),
       model=st.sampled_from(["GPT2", "GPT3", "Llama2_70B", "BERT_Base"]))
def test_evaluator_equals_exact_sympy(n, p, model):
    s = PackedQkvProjectionScenario(workload=getattr(Models.Language, model), tokens=n, projections=p)
    assert_matches_exact(flatten(s.evaluate()), exact_outputs(Declared.model, s._args))
    assert s.macs == n * s.width * p * s.width
