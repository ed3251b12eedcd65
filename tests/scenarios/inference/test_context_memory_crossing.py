"""ContextMemoryCrossingScenario: GPT-2 XL on an H100 by hand, exact sympy."""

from __future__ import annotations

import pytest
from conftest import assert_matches_exact, exact_outputs, flatten
from hypothesis import given, settings
from hypothesis import strategies as st

from generated import ContextMemoryCrossingScenario, Hardware, Models, Scenarios
from symbolic.scenarios.inference.context_memory_crossing import ContextMemoryCrossingScenario as Declared


def test_gpt2_xl_on_an_h100_by_hand():
    """W = 1.5e9·2 B = 3 GB; KV 307,200 B/token; scores 25 heads · 2 B = 50 B per pair;
    3e9/307200 = 9765.625; √(80 GiB / 50 B) = √(85,899,345,920/50) (true capacity); 307200/50 = 6144."""
    s = Scenarios.Gpt2XlContextMemoryOnH100
    assert s.weights.to("GB").magnitude == pytest.approx(3.0, rel=1e-15)
    assert s.kv_per_token.to("byte").magnitude == 307200
    assert s.score_bytes_per_pair.to("byte").magnitude == 50
    assert s.kv_crossing == pytest.approx(9765.625, rel=1e-15)
    assert s.score_crossing == pytest.approx((80 * 2**30 / 50) ** 0.5, rel=1e-14)
    assert s.score_crossing == pytest.approx(41448.60574735898, rel=1e-12)
    assert s.kv_score_crossing == pytest.approx(6144.0, rel=1e-15)


def test_a_device_with_twice_the_memory_moves_the_score_crossing_by_root_two():
    s = Scenarios.Gpt2XlContextMemoryOnH100
    other = s.variant(hardware=Hardware.Cloud.MI300X)  # 192 GiB
    assert other.score_crossing == pytest.approx(s.score_crossing * (192 / 80) ** 0.5, rel=1e-12)


@settings(max_examples=40, deadline=None)
@given(e=st.sampled_from([0.5, 1, 2, 4]), model=st.sampled_from(["GPT2", "Llama3_70B", "DeepSeek_V3", "GPT3"]),
       node=st.sampled_from(["H100", "A100_40GB", "Groq_LPU"]))
def test_evaluator_equals_exact_sympy(e, model, node):
    s = ContextMemoryCrossingScenario(workload=getattr(Models.Language, model), hardware=getattr(Hardware.Cloud, node),
                                      bytes_per_value=e)
    assert_matches_exact(flatten(s.evaluate()), exact_outputs(Declared.model, s._args))
