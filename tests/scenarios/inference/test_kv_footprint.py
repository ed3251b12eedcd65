"""KvFootprintScenario: the GPT-2 XL and Llama-2-7B entries by hand, the memory share, exact sympy."""

from __future__ import annotations

import pytest
from conftest import assert_matches_exact, exact_outputs, flatten
from hypothesis import given, settings
from hypothesis import strategies as st

from generated import Hardware, KvFootprintScenario, MissingInputError, Models, Q_, ScenarioInputError, Scenarios
from symbolic.scenarios.inference.kv_footprint import KvFootprintScenario as Declared


@pytest.mark.parametrize(("entry", "tokens", "per_token", "total_gb", "weights_gb"), [
    # 2·48 layers·25 heads·64 wide·2 B = 307,200 B; × 1024 tokens; 1.5e9 × 2 B
    ("Gpt2XlKvFullWindow", 1024, 2 * 48 * 25 * 64 * 2, 0.31457280000000004, 3.0),
    # 2·32·32·128·2 B = 524,288 B; × 2048 tokens; 7e9 × 2 B
    ("Llama2_7BKvAt2048Tokens", 2048, 2 * 32 * 32 * 128 * 2, 1.073741824, 14.0),
])
def test_entries_by_hand(entry, tokens, per_token, total_gb, weights_gb):
    s = getattr(Scenarios, entry)
    assert s.tokens == tokens
    assert s.per_token.to("byte").magnitude == per_token
    assert s.total.to("GB").magnitude == pytest.approx(total_gb, rel=1e-12)
    assert s.total.to("byte").magnitude == pytest.approx(per_token * tokens, rel=1e-15)
    assert s.weights.to("GB").magnitude == pytest.approx(weights_gb, rel=1e-12)
    for name in ("kv_budget", "tokens_in_budget", "requests"):
        with pytest.raises(MissingInputError, match="hardware|kv_share"):
            getattr(s, name)


def test_requests_in_a_share_of_the_labeled_device_memory():
    """Half of an H100 counted as 80 GB (labeled): 40e9 B / 314,572,800 B = 127.16 requests."""
    s = Scenarios.Gpt2XlKvFullWindow.variant(hardware=Hardware.Cloud.H100, kv_share=0.5)
    assert s.kv_budget.to("GB").magnitude == pytest.approx(40.0, rel=1e-15)
    assert s.tokens_in_budget == pytest.approx(40e9 / 307200, rel=1e-12)
    assert s.requests == pytest.approx(40e9 / (307200 * 1024), rel=1e-12)
    # a device without a share, or a share without a device, is read by no output: refused (issue 24)
    with pytest.raises(ScenarioInputError, match="input 'hardware' must be given with 'kv_share'"):
        s.variant(kv_share=None)
    with pytest.raises(ScenarioInputError, match="input 'kv_share' must be given with 'hardware'"):
        s.variant(hardware=None)


def test_grouped_query_latent_attention_and_width_factor():
    """Llama-3-70B: 8 KV heads, 2·80·8·128·2 B; DeepSeek-V3's latent cache: 61·(512 + 64)·2 B (catalog §A.3)."""
    base = Scenarios.Gpt2XlKvFullWindow
    assert base.variant(workload=Models.Language.Llama3_70B).per_token.to("byte").magnitude == 327680
    assert base.variant(workload=Models.Language.DeepSeek_V3).per_token.to("byte").magnitude == 70272
    assert base.variant(workload=Models.Language.PaLM_540B).per_token.to("byte").magnitude == 120832
    assert base.variant(kv_width_factor=0.5).per_token.to("byte").magnitude == pytest.approx(153600, rel=1e-15)


def test_widths_are_data_and_shares_at_most_one():
    s = Scenarios.Gpt2XlKvFullWindow
    assert s.variant(bytes_per_value=Q_(16, "bit")).per_token.to("byte").magnitude == 307200
    with pytest.raises(ScenarioInputError, match="bytes_per_value"):
        s.variant(bytes_per_value=Q_(2, "flop"))
    with pytest.raises(ScenarioInputError, match="kv_share"):
        s.variant(hardware=Hardware.Cloud.H100, kv_share=1.5)


def test_tokens_at_which_the_cache_equals_the_weights():
    """307,200 B · T = 3e9 B at T = 9765.625."""
    from symbolic.analysis.solving import solve

    solution = solve(Declared.model, "tokens", "total", "weights", Scenarios.Gpt2XlKvFullWindow._args)
    assert solution.values == [pytest.approx(9765.625, rel=1e-12)]


@settings(max_examples=40, deadline=None)
@given(t=st.integers(1, 10**6), e=st.sampled_from([0.5, 1, 2, 4]), phi=st.floats(0.01, 4),
       share=st.none() | st.floats(0.01, 1), model=st.sampled_from(["GPT2", "Llama3_8B", "DeepSeek_V3", "PaLM_540B"]))
def test_evaluator_equals_exact_sympy(t, e, phi, share, model):
    s = KvFootprintScenario(workload=getattr(Models.Language, model), tokens=t, bytes_per_value=e,
                            kv_width_factor=phi, hardware=None if share is None else Hardware.Cloud.H100,
                            kv_share=share)
    assert_matches_exact(flatten(s.evaluate()), exact_outputs(Declared.model, s._args))
