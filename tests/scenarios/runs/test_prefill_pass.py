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
    # every weight (each layer's, its two RMSNorms, the final norm, embedding and output layer), the prompt's K and V
    need = (L * (W + 2 * h) + h + 2 * h * V) * 2 + L * 128 * 2 * 1024 * 2
    assert one.fits_need.to("byte").magnitude == pytest.approx(need, rel=1e-12)
    assert not one.fits and need > 80 * 2**30
    with pytest.raises(InfeasibleError, match="must fit"):
        _ = one.ttft
    assert Scenarios.Llama70BPrefill128Tp4.fits


DATA = __import__("pathlib").Path(__file__).resolve().parents[2] / "data"


def _config(name):
    import mlsysym

    return mlsysym.workload_from_config(DATA / f"{name}.json")


def test_a_mixture_of_experts_computes_at_its_active_weights_and_holds_all_of_them():
    """Mixtral-8x7B from its config.json on four A100s, 2,048 tokens: 2 of 8 experts work on a token."""
    s = Scenarios.Llama70BPrefill2048Tp4.variant(workload=_config("mixtral-8x7b"))
    h, f, a, kv, dh, L, V, E, k, n, t = 4096, 14336, 32, 8, 128, 32, 32000, 8, 2, 2048, 4
    attention = (2 * a + 2 * kv) * dh * h  # 41,943,040
    active = attention + k * 3 * h * f + h * E  # + two experts + the router: 394,297,344
    assert s.layer_weights == active == 394_297_344
    rate = 312e12 * 0.8 * n / (n + M_HALF)
    # GEMMs over the active weights, the attention core 2·a·(d_h + d_h) per token and position
    flops = (2 * n * active + n * 2 * a * 2 * dh * n) / t
    assert s.layer_compute_time.to("s").magnitude == pytest.approx(flops / rate, rel=1e-12)
    # memory: every expert, the norms, embeddings and output layer (46,702,792,704 weights), and the cache
    total = L * (attention + E * 3 * h * f + h * E + 2 * h) + h + 2 * V * h
    assert total == 46_702_792_704
    need = (total * 2 + n * L * 2 * kv * dh * 2) / t
    assert s.memory_per_gpu.to("B").magnitude == pytest.approx(need, rel=1e-12)


def test_a_sliding_window_caps_the_attention_core_and_the_cache():
    """Mistral-7B v0.1 (window 4,096 in all 32 blocks), one prompt of 8,192 tokens: each token attends to at
    most 4,096 positions (the full-square assumption, capped), and the cache keeps 4,096 of them."""
    s = Scenarios.Llama7BPrefill2048.variant(workload=_config("mistral-7b-v0.1"), input_tokens=8192)
    h, f, a, kv, dh, L, n = 4096, 14336, 32, 8, 128, 32, 8192
    W = (2 * a + 2 * kv) * dh * h + 3 * h * f  # 218,103,808
    assert s.layer_weights == W
    assert s.layer_flops.to("flop").magnitude == 2 * n * W + n * (2 * a * 2 * dh) * 4096
    weights = L * (W + 2 * h) + h + 2 * 32000 * h  # 7,241,732,096
    assert s.memory_per_gpu.to("B").magnitude == weights * 2 + L * 2 * kv * dh * 2 * 4096


def test_head_width_comes_from_the_record():
    """Gemma-2-9B: 16 heads of 256 on a width of 3,584 (not 3,584/16 = 224)."""
    s = Scenarios.Llama7BPrefill128.variant(workload=_config("gemma-2-9b"))
    h, a, kv, dh, f = 3584, 16, 8, 256, 14336
    assert s.layer_weights == (2 * a + 2 * kv) * dh * h + 3 * h * f  # 44,040,192 + 154,140,672


def test_the_command_line_takes_a_config(capsys):
    from symbolic.cli import main

    assert main(["eval", "PrefillPassScenario", "--from", "Llama7BPrefill2048",
                 "--set", f"workload=@{DATA / 'mixtral-8x7b.json'}", "--set", "tp=4", "--json"]) == 0
    out = __import__("json").loads(capsys.readouterr().out)
    assert out["outputs"]["layer_weights"]["value"] == 394_297_344
