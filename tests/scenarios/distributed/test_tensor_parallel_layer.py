"""TensorParallelLayerScenario: the registry entry by hand, the break-even question, domains, exact sympy."""

from __future__ import annotations

import pytest
from conftest import assert_matches_exact, exact_outputs, flatten
from hypothesis import given, settings
from hypothesis import strategies as st

from generated import Hardware, InputTypeError, Models, Q_, ScenarioInputError, Scenarios
from generated.tensor_parallel_layer import evaluate
from symbolic.analysis.solving import solve
from symbolic.scenarios.distributed.tensor_parallel_layer import TensorParallelLayerScenario as Declared

P, L, H, T = 1.75e11, 96, 12288, 2048  # GPT-3, its context
RATE = 989e12 * 0.5  # H100 fp16_dense at η = 0.5
NVLINK, NDR = 450e9, 400e9 / 8  # byte/s


def test_gpt3_layer_tp8_by_hand():
    """Φ = 2·(1.75e11/96)·2048 = 7.4667e12 flop; compute Φ/8/(989e12·0.5) = 1.8874 ms;
    bytes 2·2048·12288·2·(2·7/8) = 176160768 B; over NVLink 0.39147 ms, over NDR 3.52322 ms (distributed.md §7)."""
    r = Scenarios.Gpt3TensorParallelLayerTp8.result
    flops = 2 * (P / L) * T
    assert r.layer_flops.to("flop").magnitude == pytest.approx(flops, rel=1e-15)
    assert r.layer_flops.to("flop").magnitude == pytest.approx(7466666666666.667, rel=1e-12)
    assert r.compute_time.to("ms").magnitude == pytest.approx(flops / 8 / RATE * 1e3, rel=1e-12)
    assert r.compute_time.to("ms").magnitude == pytest.approx(1.887428378833839, rel=1e-12)
    layer_bytes = 2 * T * H * 2 * 1.75
    assert r.layer_bytes.to("byte").magnitude == pytest.approx(layer_bytes, rel=1e-15) == pytest.approx(176160768.0)
    times = r.transfer_times
    assert list(times) == ["NVLink", "InfiniBand NDR"]
    assert times["NVLink"].to("ms").magnitude == pytest.approx(layer_bytes / NVLINK * 1e3, rel=1e-12)
    assert times["NVLink"].to("ms").magnitude == pytest.approx(0.3914683733333334, rel=1e-12)
    assert times["InfiniBand NDR"].to("ms").magnitude == pytest.approx(3.5232153600000005, rel=1e-12)
    assert r.breakeven_bandwidth.to("byte/s").magnitude == pytest.approx(layer_bytes / (flops / 8 / RATE), rel=1e-12)


def test_question_width_at_which_ndr_keeps_up():
    """Φ/(t·R·η) = k·T·h·2·2(t − 1)/t / β  ⇒  t = 1 + Φ·β/(4·k·T·h·R·η) = 4.74998 for NDR."""
    flops = 2 * (P / L) * T
    expected = 1 + flops * NDR / (4 * 2 * T * H * RATE)
    solution = solve(Scenarios.Gpt3TensorParallelLayerTp8, "tp_size", "result.breakeven_bandwidth", Q_(400, "Gbps"))
    assert solution.values == [pytest.approx(expected, rel=1e-12)]
    assert 4 < expected < 5
    s = Scenarios.Gpt3TensorParallelLayerTp8
    r4, r5 = s.variant(tp_size=4).result, s.variant(tp_size=5).result
    assert r4.transfer_times["InfiniBand NDR"] < r4.compute_time and r5.transfer_times["InfiniBand NDR"] > r5.compute_time


def test_one_device_sends_nothing_and_other_precisions():
    s = Scenarios.Gpt3TensorParallelLayerTp8
    r = s.variant(tp_size=1).result
    assert r.layer_bytes.magnitude == 0 and r.transfer_times["NVLink"].magnitude == 0
    fp8 = s.variant(precision="fp8").result  # 1979 TFLOP/s: half the compute time
    assert fp8.compute_time.to("ms").magnitude == pytest.approx(2 * (P / L) * T / 8 / (1979e12 * 0.5) * 1e3, rel=1e-12)


@pytest.mark.parametrize(("changes", "error", "match"), [
    ({"tp_size": 0}, ScenarioInputError, "'tp_size' got 0"),
    ({"tokens": 0}, ScenarioInputError, "'tokens' got 0"),
    ({"local_efficiency": 0}, ScenarioInputError, "'local_efficiency' got 0"),
    ({"local_efficiency": 1.5}, ScenarioInputError, "'local_efficiency' got 1.5"),
    ({"links": {"NVLink": 0}}, ScenarioInputError, r"\['NVLink'\] got 0"),
    ({"links": [450]}, InputTypeError, "expected a dict of at least 1 names"),
    ({"links": {}}, ScenarioInputError, "links"),
    ({"precision": "fp4"}, ScenarioInputError, "fp4"),
    ({"workload": Models.Vision.ResNet50}, InputTypeError, "TransformerWorkload"),
    ({"accelerator": Hardware.Cloud.H100, "collectives_per_layer": -1}, ScenarioInputError, "collectives_per_layer"),
])
def test_domains(changes, error, match):
    with pytest.raises(error, match=match):
        Scenarios.Gpt3TensorParallelLayerTp8.variant(**changes)


@settings(max_examples=40, deadline=None)
@given(t=st.integers(1, 1024), tokens=st.integers(1, 10**6), eta=st.floats(1e-3, 1), k=st.integers(0, 8),
       links=st.lists(st.floats(1e-3, 1e5), min_size=1, max_size=3), p=st.floats(1e6, 1e13),
       layers=st.integers(1, 200), h=st.integers(1, 10**5), rate=st.floats(1e9, 1e18))
def test_evaluator_equals_exact_sympy(t, tokens, eta, k, links, p, layers, h, rate):
    args = {"tp_size": t, "tokens": tokens, "local_efficiency": eta, "links": links, "collectives_per_layer": k,
            "workload_forward_flops_per_token": 2 * p, "workload_layers": layers, "workload_hidden_dim": h,
            "accelerator_peak": rate}
    assert_matches_exact(flatten(evaluate(**args)), exact_outputs(Declared.model, args), rel=1e-11)
