"""PrefillPassScenario: Llama 7B and 70B prefill by hand (weights, FLOPs, traffic, all-reduces), exact sympy."""

from __future__ import annotations

import pytest
from conftest import assert_matches_exact, exact_outputs, flatten
from hypothesis import given, settings
from hypothesis import strategies as st

from generated import Scenarios
from symbolic.scenarios.runs.prefill_pass import PrefillPassScenario as Declared

M_HALF = 161  # EfficiencyA100.GemmHalfRows


def test_llama7b_2048_by_hand():
    """32 layers of 4·h² + 3·h·f weights; 2·n·W + 4·n²·h FLOPs per layer at 312e12·0.8·n/(n + M½)."""
    s = Scenarios.Llama7BPrefill2048
    h, f, n, L, V = 4096, 11008, 2048, 32, 32000
    W = 4 * h * h + 3 * h * f
    assert s.layer_weights == W == 202375168
    rate = 312e12 * 0.8 * n / (n + M_HALF)
    compute = (2 * n * W + 4 * n * n * h) / rate
    traffic = (W + 2 * n * h) * 2 / (2039e9 * 0.85)
    assert s.layer_compute_time.to("s").magnitude == pytest.approx(compute, rel=1e-12)
    assert s.layer_traffic_time.to("s").magnitude == pytest.approx(traffic, rel=1e-12)
    assert s.compute_bound_layers == 1 and s.layer_tp_time.magnitude == 0
    head = max(2 * h * V / rate, h * V * 2 / (2039e9 * 0.85))
    assert s.ttft.to("s").magnitude == pytest.approx(L * (compute + 12 * 5e-6) + head, rel=1e-12)


def test_llama70b_tp4_128_by_hand():
    """Grouped-query attention (8 of 64 heads for K and V), four GPUs: each reads a quarter of the weights and
    all-reduces the layer's output twice."""
    s = Scenarios.Llama70BPrefill128Tp4
    h, f, n, t, kv, a = 8192, 28672, 128, 4, 8, 64
    W = 2 * h * h + 2 * h * kv * (h // a) + 3 * h * f
    assert s.layer_weights == W
    traffic = (W + 2 * n * kv * h // a) * 2 / t / (2039e9 * 0.85)
    compute = (2 * n * W + 4 * n * n * h) / t / (312e12 * 0.8 * n / (n + M_HALF))
    assert s.layer_traffic_time.to("s").magnitude == pytest.approx(traffic, rel=1e-12)
    assert s.compute_bound_layers == int(compute > traffic)
    ring = 2 * 3 / 4 * n * h * 2
    assert s.layer_tp_time.to("s").magnitude == pytest.approx(2 * ring / (300e9 * 0.7), rel=1e-12)
    layer = max(compute, traffic) + 2 * ring / (300e9 * 0.7) + 12 * 5e-6
    assert s.layer_time.to("s").magnitude == pytest.approx(layer, rel=1e-12)


@settings(max_examples=25, deadline=None)
@given(n=st.integers(1, 8192), tp=st.sampled_from([1, 2, 4, 8]), batch=st.integers(1, 8))
def test_evaluator_equals_exact_sympy(n, tp, batch):
    s = Scenarios.Llama70BPrefill2048Tp4.variant(input_tokens=n, tp=tp, batch=batch)
    got, exact = flatten(s.evaluate()), exact_outputs(Declared.model, s._args)
    absent = {name for name, value in got.items() if value is None}  # 70B on one GPU does not fit: no TTFT
    assert not absent or (not got["fits"] and absent == {"ttft"})
    assert_matches_exact({k: v for k, v in got.items() if k not in absent},
                         {k: v for k, v in exact.items() if k not in absent}, rel=1e-9)


def test_the_weights_must_fit():
    """Llama 70B in FP16 is 141 GB of weights: over 80 GiB on one A100, so no time to first token there."""
    from symbolic.runtime.errors import InfeasibleError

    one = Scenarios.Llama70BPrefill128Tp4.variant(tp=1)
    h, f, L, V = 8192, 28672, 80, 32000
    W = 2 * h * h + 2 * h * 1024 + 3 * h * f  # 8 KV heads of 128
    need = (L * (W + 2 * 128 * 1024) + 2 * h * V) * 2  # layers, the prompt's K and V, embedding and output layer
    assert one.fits_need.to("byte").magnitude == pytest.approx(need, rel=1e-12)
    assert not one.fits and need > 80 * 2**30
    with pytest.raises(InfeasibleError, match="must fit"):
        _ = one.ttft
    assert Scenarios.Llama70BPrefill128Tp4.fits
