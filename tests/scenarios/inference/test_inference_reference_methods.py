"""The inference group's methods with an argument, called as the reference's users call them.

Gpt2XlChatDecodeBatchesH100 (inference.md §12.6) is rebuilt from the spec's inputs with the
reference's keywords (no time-per-token budgets: the reference has none), and every method is
called at the spec's arguments; the expected values are the spec's table.
"""

from __future__ import annotations

import pytest

from generated import Hardware, KvDecodeBatchScenario, Models, Q_, Scenarios


def rebuilt():
    return KvDecodeBatchScenario(name="rebuilt", description="", workload=Models.Language.GPT2,
                                 hardware=Hardware.Cloud.H100, weight_bytes_per_param=Q_(2, "byte"),
                                 kv_bytes_per_value=Q_(2, "byte"), context_tokens=1024,
                                 batch_sizes=[1, 8, 32, 64, 128], prompt_tokens=512, prefill_efficiency=0.4,
                                 peak_precision="fp16_dense")


@pytest.mark.parametrize(("b", "gb", "ms", "rate", "share"), [
    # W = 3e9 B, m = 307,200 B · 1024 = 314,572,800 B, β = 3.35e12 B/s: (W + b·m), /β, b/t, b·m/(W + b·m)
    (1, 3.3145728, 0.9894247164179105, 1010.6883155500461, 0.09490598607458553),
    (8, 5.5165824, 1.6467410149253732, 4858.080249104953, 0.45618504674198285),
    (32, 13.0663296, 3.900396895522388, 8204.293269932514, 0.7704022405802468),
    (64, 23.1326592, 6.905271402985075, 9268.281616321914, 0.870313223652212),
    (128, 43.2653184, 12.915020417910448, 9910.940583763277, 0.9306603970352383),
])
def test_per_batch_methods(b, gb, ms, rate, share):
    s = rebuilt()
    assert s.step_bytes(b).to("GB").magnitude == pytest.approx(gb, rel=1e-12)
    assert s.step_time(b).to("ms").magnitude == pytest.approx(ms, rel=1e-12)
    assert s.token_rate(b).to("1/s").magnitude == pytest.approx(rate, rel=1e-12)
    assert s.cache_share(b) == pytest.approx(share, rel=1e-12)


def test_max_batch_within():
    """⌊(τ·β − W)/m⌋: (5e-3·3.35e12 − 3e9)/314,572,800 = 43.7 → 43; 20 ms → 203; 50 ms → 522."""
    s = rebuilt()
    assert s == Scenarios.Gpt2XlChatDecodeBatchesH100
    assert [s.max_batch_within(Q_(t, "ms")) for t in (5, 20, 50)] == [43, 203, 522]
    assert s.max_batch_within(tpot=Q_(0.005, "s")) == 43
