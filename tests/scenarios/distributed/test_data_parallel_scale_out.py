"""DataParallelScaleOutScenario: the three GPT-2 XL entries by hand, the inter-node link rule, the efficiency
question, domains, exact sympy."""

from __future__ import annotations

import pytest
from conftest import assert_matches_exact, exact_outputs, flatten
from hypothesis import given, settings
from hypothesis import strategies as st

from generated import MissingInputError, Models, Q_, ScenarioInputError, Scenarios
from generated.data_parallel_scale_out import evaluate
from symbolic.analysis.solving import solve
from symbolic.scenarios.distributed.data_parallel_scale_out import DataParallelScaleOutScenario as Declared

G = 1.5e9 * 2  # GPT-2 XL gradients at fp16, byte
NVLINK, TEN_GBE = 450e9, 10e9 / 8  # byte/s
STEP_MS, RUN_H, RATE = 1800.0, 25.0, 32.0  # one local step, the one-device run, dollars per node-hour

# entry, K, a; distributed.md §12: inter ms, speedup, global batch, training time h, cost
ENTRIES = [
    ("Gpt2DataParallelOneNode", 1, 1, 0.0, 7.948482060717571, 128, 3.1452546296296298, 100.64814814814815),
    ("Gpt2DataParallelFourNodes10GbE", 4, 1, 4650.0, 8.914108847046686, 512, 2.804542824074074, 358.98148148148147),
    ("Gpt2GradientAccumulationOneNode", 1, 4, 0.0, 7.987058007857637, 512, 3.130063657407408, 100.16203703703705),
]


@pytest.mark.parametrize(("entry", "nodes", "a", "inter_ms", "speedup", "batch", "hours", "cost"), ENTRIES)
def test_entries_by_hand(entry, nodes, a, inter_ms, speedup, batch, hours, cost):
    """intra = 2·7/8·G/β_i; inter = 2(N − 1)/N·G/β_o across nodes; speedup N·compute/(compute + comm)."""
    r = getattr(Scenarios, entry).result
    n = 8 * nodes
    intra_ms = 2 * 7 / 8 * G / NVLINK * 1e3
    inter = (2 * (n - 1) / n * G / TEN_GBE * 1e3) if nodes > 1 else 0.0
    compute = a * STEP_MS
    update = compute + intra_ms + inter
    assert r.n_devices == n and type(r.n_devices) is int
    assert r.gradient_bytes.to("byte").magnitude == pytest.approx(G, rel=1e-15)
    assert r.intra_bytes.to("byte").magnitude == pytest.approx(5.25e9, rel=1e-12)
    assert r.intra_time.to("ms").magnitude == pytest.approx(intra_ms, rel=1e-12)
    assert r.intra_time.to("ms").magnitude == pytest.approx(11.666666666666668, rel=1e-12)
    assert r.inter_time.to("ms").magnitude == pytest.approx(inter, rel=1e-12)
    assert r.inter_time.to("ms").magnitude == pytest.approx(inter_ms, rel=1e-12)
    assert r.compute_time.to("ms").magnitude == pytest.approx(compute, rel=1e-12)
    assert r.update_time.to("ms").magnitude == pytest.approx(update, rel=1e-12)
    assert r.communication_overhead == pytest.approx((intra_ms + inter) / compute, rel=1e-12)
    assert r.compute_share == pytest.approx(compute / update, rel=1e-12) == pytest.approx(r.efficiency, rel=1e-12)
    assert r.communication_share == pytest.approx((intra_ms + inter) / update, rel=1e-12)
    assert r.speedup == pytest.approx(n * compute / update, rel=1e-12)
    assert r.speedup == pytest.approx(speedup, rel=1e-12)
    assert r.global_batch == batch == 16 * n * a and type(r.global_batch) is int
    assert r.training_time.to("h").magnitude == pytest.approx(RUN_H / speedup, rel=1e-12)
    assert r.training_time.to("h").magnitude == pytest.approx(hours, rel=1e-12)
    assert r.cost.to("dollar").magnitude == pytest.approx(hours * nodes * RATE, rel=1e-12)
    assert r.cost.to("dollar").magnitude == pytest.approx(cost, rel=1e-12)


def test_four_nodes_listed_values():
    r = Scenarios.Gpt2DataParallelFourNodes10GbE.result
    assert r.inter_bytes.to("byte").magnitude == pytest.approx(5.8125e9, rel=1e-12)
    assert r.communication_time.to("ms").magnitude == pytest.approx(4661.666666666667, rel=1e-12)


def test_inter_node_link_needed_only_across_nodes():
    one = Scenarios.Gpt2DataParallelOneNode
    assert one.inter_bandwidth is None
    ignored = one.variant(inter_bandwidth=Q_(1, "Gbps")).result  # given at one node: not read
    assert ignored.update_time == one.result.update_time
    with pytest.raises(MissingInputError, match="inter_bandwidth must be given with more than one node"):
        one.variant(nodes=2)
    with pytest.raises(ScenarioInputError, match="'inter_bandwidth' got 0"):
        one.variant(nodes=2, inter_bandwidth=0)


def test_no_price_no_cost_and_one_device_per_node():
    s = Scenarios.Gpt2DataParallelOneNode
    assert s.variant(node_hour_rate=None).result.cost is None
    single = s.variant(devices_per_node=1).result
    assert single.intra_time.magnitude == 0 and single.speedup == 1
    with pytest.raises(MissingInputError, match="precision must be fp16 or bf16"):  # differs: a 16-bit size only
        s.variant(workload=Models.Recommendation.DLRM, precision="fp32")


def test_question_inter_node_bandwidth_for_ninety_percent_efficiency():
    """compute/(compute + intra + inter) = 0.9 ⇒ inter = 1800/9 − 11.667 ms = 188.333 ms for the four-node ring
    of 2·31/32·3e9 B: β_o = 5.8125e9 B / 0.188333 s = 30.863 GB/s."""
    inter_s = (STEP_MS / 9 - 2 * 7 / 8 * G / NVLINK * 1e3) / 1e3
    expected = 2 * 31 / 32 * G / inter_s / 1e9
    solution = solve(Scenarios.Gpt2DataParallelFourNodes10GbE, "inter_bandwidth", "result.efficiency", 0.9)
    assert solution.values == [pytest.approx(expected, rel=1e-12)]
    at = Scenarios.Gpt2DataParallelFourNodes10GbE.variant(inter_bandwidth=expected)
    assert at.result.efficiency == pytest.approx(0.9, rel=1e-12)


@pytest.mark.parametrize(("changes", "match"), [
    ({"step_time": 0}, "'step_time' got 0"),
    ({"training_time": -1}, "'training_time' got -1"),
    ({"per_device_batch": 0}, "'per_device_batch' got 0"),
    ({"devices_per_node": 0}, "'devices_per_node' got 0"),
    ({"nodes": 0}, "'nodes' got 0"),
    ({"accumulation_steps": 0}, "'accumulation_steps' got 0"),
    ({"intra_bandwidth": 0}, "'intra_bandwidth' got 0"),
    ({"node_hour_rate": 32}, None),  # a bare number is read in dollar/h
    ({"node_hour_rate": Q_(1, "h")}, "node_hour_rate"),
    ({"precision": "fp16_dense"}, "fp16_dense"),
])
def test_domains(changes, match):
    if match is None:
        assert Scenarios.Gpt2DataParallelOneNode.variant(**changes).result.cost is not None
        return
    with pytest.raises(ScenarioInputError, match=match):
        Scenarios.Gpt2DataParallelOneNode.variant(**changes)


@settings(max_examples=40, deadline=None)
@given(g=st.integers(1, 64), k=st.integers(1, 512), a=st.integers(1, 64), b=st.integers(1, 1024),
       step=st.floats(1e-3, 1e3), run=st.just(0.0) | st.floats(1e-3, 1e5), bi=st.floats(1e-2, 1e4),
       bo=st.floats(1e-3, 1e4), rate=st.none() | st.floats(0, 1e3, allow_subnormal=False), p=st.floats(1e6, 1e13))
def test_evaluator_equals_exact_sympy(g, k, a, b, step, run, bi, bo, rate, p):
    args = {**Scenarios.Gpt2DataParallelOneNode._args, "devices_per_node": g, "nodes": k, "accumulation_steps": a,
            "per_device_batch": b, "step_time": step, "training_time": run, "intra_bandwidth": bi,
            "inter_bandwidth": bo, "node_hour_rate": rate, "workload_parameters": p}
    assert_matches_exact(flatten(evaluate(**args)), exact_outputs(Declared.model, args), rel=1e-11)
