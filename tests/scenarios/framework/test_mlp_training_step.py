"""MlpTrainingStepScenario: reference values, hand formulas, and exact agreement on random inputs."""

from __future__ import annotations

import math

import pytest
from conftest import exact_outputs, flatten, table_paths
from hypothesis import given, settings
from hypothesis import strategies as st

from generated import Hardware, HardwareNode, MlpTrainingStepScenario, Q_, Scenarios
from generated.mlp_training_step import evaluate
from symbolic.catalog import hardware_records
from symbolic.scenarios.framework.mlp_training_step import MlpTrainingStepScenario as Declared

REL = 1e-9

# Every (node path, precision) pair in the catalog: the training step must work on each.
NODE_PRECISIONS = [(r.path, p) for r in hardware_records() for p in r.precision_flops]


def test_mnist_on_h100_reference_values():
    """REFERENCE §9.1, computed by hand from b=32, i=784, h=128, o=10, v=4 B, y=8 B, c=3, m=7.

    matmul1 = 2·32·784·128 = 6,422,528; total_flops = 4bih + 6bho + 2bh + (c+2)bo
    = 12,845,056 + 245,760 + 8,192 + 1,600 = 13,100,608; total_bytes =
    v(2bi + 2ih + 10bh + 3ho + 7bo) + by = 4·(50,176 + 200,704 + 40,960 + 3,840 + 2,240)
    + 256 = 1,191,936; parameters = ih + h + ho + o = 101,770.
    """
    s = Scenarios.MnistTwoLayerTrainingStepOnH100
    assert s.op_flops["matmul1"] == Q_(6422528, "flop")
    assert s.op_flops["matmul1"].magnitude == 6422528 and isinstance(s.op_flops["matmul1"].magnitude, int)
    assert s.total_flops.to("flop").magnitude == 13100608
    assert s.total_bytes.to("byte").magnitude == 1191936
    assert s.parameters == 101770 and isinstance(s.parameters, int)
    assert s.optimizer_step_bytes.to("byte").magnitude == 101770 * 7 * 4 == 2849560
    assert s.peak_rate.to("flop/s").magnitude == pytest.approx(67e12, rel=REL)
    assert s.peak_rate.units == Q_(1, "TFLOP/s").units and f"{s.peak_rate:~P}" == "67.0 Tflop/s"
    assert s.compute_time.to("µs").magnitude == pytest.approx(0.19553146268656715, rel=REL)
    assert s.memory_time.to("µs").magnitude == pytest.approx(0.3558017910447761, rel=REL)
    assert s.dense_training_ratio == pytest.approx(2.0125944584382873, rel=REL)
    assert s.dense_training_ratio == pytest.approx((2 * 784 + 3 * 10) / (784 + 10), rel=1e-15)
    host = s.host
    assert (host.ops_per_block, host.launches_per_block, host.blocks) == (5, 9, 1)
    assert host.host_time.to("µs").magnitude == 95
    assert host.device_time.to("µs").magnitude == pytest.approx(0.5513332537313432, rel=REL)
    assert host.overhead_ratio == pytest.approx(172.30957747796606, rel=REL)
    assert host.name == "Host work of: " + s.name
    assert host.description == "Python entries and kernel launches of the step."


def test_every_reference_attribute_is_exposed():
    names = {
        "backward_bytes", "backward_flops", "backward_ops", "batch_size", "bytes_per_value", "compute_time",
        "dense_training_ratio", "dispatch", "forward_bytes", "forward_flops", "forward_ops", "hardware",
        "hidden_width", "host", "input_width", "label_bytes", "launch", "loss_flops_per_logit", "memory_time",
        "op_bytes", "op_flops", "optimizer_step_bytes", "optimizer_values_moved", "output_width", "parameters",
        "peak_rate", "precision", "total_bytes", "total_flops",
    }
    s = Scenarios.MnistTwoLayerTrainingStepOnH100
    for name in names:
        assert getattr(s, name) is not None, name
    assert list(s.op_flops) == ["matmul1", "relu", "matmul2", "loss", "grad_w2", "grad_h", "grad_w1",
                                "relu_backward", "loss_backward"]
    assert list(s.op_bytes) == list(s.op_flops)


def hand_outputs(b, i, h, o, v, y, c, m, peak, bw, f, g, d, ell):
    """REFERENCE §3 closed forms, typed in by hand (bytes in byte, times in µs, peak in flop/s)."""
    total_flops = 4 * b * i * h + 6 * b * h * o + 2 * b * h + (c + 2) * b * o
    total_bytes = v * (2 * b * i + 2 * i * h + 10 * b * h + 3 * h * o + 7 * b * o) + b * y
    compute = total_flops / peak * 1e6
    memory = total_bytes / bw * 1e6
    host_time = (f + 1) * d + (f + g) * ell
    return {
        "op_flops.matmul1": 2 * b * i * h,
        "op_bytes.loss_backward": 2 * b * o * v + b * y,
        "forward_flops": 2 * b * i * h + b * h + 2 * b * h * o + c * b * o,
        "backward_flops": 2 * h * b * o + 2 * b * o * h + 2 * i * b * h + b * h + 2 * b * o,
        "forward_bytes": v * (b * i + i * h + 4 * b * h + h * o + 3 * b * o),
        "backward_bytes": v * (b * i + i * h + 6 * b * h + 2 * h * o + 4 * b * o) + b * y,
        "total_flops": total_flops,
        "total_bytes": total_bytes,
        "parameters": i * h + h + h * o + o,
        "optimizer_step_bytes": (i * h + h + h * o + o) * m * v,
        "compute_time": compute,
        "memory_time": memory,
        "dense_training_ratio": (2 * i * h + 3 * h * o) / (i * h + h * o),
        "host.host_time": host_time,
        "host.overhead_ratio": host_time / (compute + memory),
        "host.host_share": host_time / (host_time + compute + memory),
    }


widths = st.integers(min_value=1, max_value=100_000)
counts = st.integers(min_value=0, max_value=64)
times = st.floats(min_value=0, max_value=1e4, allow_nan=False, allow_infinity=False, allow_subnormal=False)


@settings(max_examples=150, deadline=None)
@given(
    node_precision=st.sampled_from(NODE_PRECISIONS),
    b=widths, i=widths, h=widths, o=widths,
    v=st.sampled_from([0.5, 1, 2, 4, 8]), y=st.sampled_from([0, 1, 4, 8]),
    c=counts, m=counts, f=counts, g=counts, d=times, ell=times,
)
def test_evaluator_matches_hand_formulas_and_exact_sympy(node_precision, b, i, h, o, v, y, c, m, f, g, d, ell):
    path, precision = node_precision
    tier, key = path.split(".")
    node = getattr(getattr(Hardware, tier), key)
    scenario = MlpTrainingStepScenario(
        batch_size=b, input_width=i, hidden_width=h, output_width=o, bytes_per_value=v, label_bytes=y,
        loss_flops_per_logit=c, optimizer_values_moved=m, hardware=node, precision=precision,
        forward_ops=f, backward_ops=g, dispatch=d, launch=ell,
    )
    peak, bw = node.peak_flops_per_second(precision), node.bandwidth_bytes_per_second
    got = flatten(scenario.evaluate())
    for name, expected in hand_outputs(b, i, h, o, v, y, c, m, peak, bw, f, g, d, ell).items():
        assert got[name] == pytest.approx(expected, rel=1e-12, abs=0), name

    exact = exact_outputs(Declared.model, {**scenario._args})
    flat = table_paths(got, {"op_flops", "op_bytes", "op_time", "op_efficiency"})
    assert set(flat) == set(exact)
    for name, value in exact.items():
        if value.is_Integer and isinstance(flat[name], int):
            assert flat[name] == int(value), name  # counts are exact
        else:
            assert math.isclose(flat[name], float(value), rel_tol=1e-12), name


def test_counts_stay_exact_ints_at_llm_scale():
    s = Scenarios.MnistTwoLayerTrainingStepOnH100.variant(batch_size=10**6, input_width=10**6, hidden_width=10**6)
    assert s.op_flops["matmul1"].magnitude == 2 * 10**18
    assert isinstance(s.total_flops.magnitude, int)
    assert s.parameters == 10**12 + 10**6 + 10**6 * 10 + 10


def test_numpy_arrays_broadcast_through_the_evaluator():
    import numpy as np

    base = dict(Scenarios.MnistTwoLayerTrainingStepOnH100._args)
    batches = np.array([1, 32, 1024])
    out = evaluate(**{**base, "batch_size": batches})
    assert out["op_flops"]["matmul1"].tolist() == [2 * int(b) * 784 * 128 for b in batches]
    scalar = evaluate(**{**base, "batch_size": 1024})
    assert out["host"]["overhead_ratio"][2] == pytest.approx(scalar["host"]["overhead_ratio"], rel=1e-15)


def test_peak_rate_is_a_rate_whatever_the_catalog_unit():
    s = Scenarios.MnistTwoLayerTrainingStepOnH100.variant(precision="int8")  # stored as 1979 TOPS
    assert s.peak_rate.to("flop/s").magnitude == pytest.approx(1.979e15)
    assert s.peak_rate.dimensionality == Q_(1, "flop/s").dimensionality


def test_user_built_node():
    node = HardwareNode(name="My GPU", precision_flops={"fp32": Q_(67, "TFLOP/s")}, memory_bandwidth=Q_(3.35, "TB/s"))
    s = Scenarios.MnistTwoLayerTrainingStepOnH100.variant(hardware=node)
    assert s.compute_time.magnitude == pytest.approx(Scenarios.MnistTwoLayerTrainingStepOnH100.compute_time.magnitude)
    assert node.memory_capacity is None


def test_measured_host_terms_cache_level_and_allocation_by_hand():
    """A tiny 4-2-2 step on a 1 GFLOP/s, 1 GB/s node with a 40-byte cache level at 4 GB/s (so 1 flop
    and 1 DRAM byte cost 1 ns, 1 cache byte 0.25 ns), eager counts and backward() costs as measured.

    Operator FLOPs (b=1, i=4, h=2, o=2): 16, 2, 8, 0, 8, 8, 16, 2, 4; bytes (v=4, no labels): 56, 16,
    32, 16, 32, 32, 56, 24, 16. Only the 56-byte matrix multiplies miss the cache, so memory times are
    56, 4, 8, 4, 8, 8, 56, 6, 4 ns and the roofline maxima 56 + 4 + 8 + 4 + 8 + 8 + 56 + 6 + 4 = 154 ns;
    with DRAM alone each operator is its byte count, 56 + 16 + 32 + 16 + 32 + 32 + 56 + 24 + 16 = 280 ns.
    Host: 10 Python entries (9 forward + backward()) at 1 µs, no launches, backward() 15 µs + 24 x 6 µs:
    169 µs. Fresh memory: 2 MB at 0.5 µs/MB = 1 µs. Step: 169 + 0.154 + 1 = 170.154 µs.
    """
    from symbolic.runtime.hardware import HardwareNode

    node = HardwareNode(name="Test CPU", precision_flops={"fp32": 1e9}, memory_bandwidth=1e9)
    step = MlpTrainingStepScenario(
        batch_size=1, input_width=4, hidden_width=2, output_width=2, bytes_per_value=4, label_bytes=0,
        loss_flops_per_logit=0, optimizer_values_moved=0, hardware=node, forward_ops=9, backward_ops=5,
        dispatch=1, launch=0, autograd_nodes=24, backward_fixed=15, backward_per_node=6,
        cache_capacity=40, cache_bandwidth=4, fresh_bytes=2e6, allocation_cost=0.5,
    )
    assert step.roofline_time.to("ns").magnitude == pytest.approx(154)
    assert sum(t.to("ns").magnitude for t in step.op_time.values()) == pytest.approx(280)
    assert step.host.host_time.to("µs").magnitude == pytest.approx(169)
    assert step.host.backward_time.to("µs").magnitude == pytest.approx(159)
    assert step.allocation_time.to("µs").magnitude == pytest.approx(1)
    assert step.step_time.to("µs").magnitude == pytest.approx(170.154)
    without_cache = step.variant(cache_capacity=None, cache_bandwidth=None)
    assert without_cache.roofline_time.to("ns").magnitude == pytest.approx(280)
    # the defaults are the reference's: 4 forward, 5 backward operators, no autograd engine cost
    plain = MlpTrainingStepScenario(
        batch_size=1, input_width=4, hidden_width=2, output_width=2, bytes_per_value=4, label_bytes=0,
        loss_flops_per_logit=0, optimizer_values_moved=0, hardware=node, dispatch=1, launch=0)
    assert plain.host.host_time.to("µs").magnitude == pytest.approx(5)  # (4 + 1) entries at 1 µs
    assert plain.host.backward_time.magnitude == 0


def test_a_small_matrix_dimension_lowers_the_attained_rate():
    """The registry step (784-128-10 at batch 32) on this machine's CPU-like figures: 100 GFLOP/s, 20 GB/s,
    no cache, gemm_half_rows 30. matmul1 (32 x 784 x 128) has smallest dimension 32: 32 / 62 of the peak;
    its 6,422,528 flop take 6,422,528 / (100e9 x 32/62) = 124.4365 µs (its 518,144 bytes 25.91 µs). grad_w2
    (128 x 32 x 10) has 10: a quarter, 81,920 flop in 3.2768 µs (its 22,784 bytes in 1.1392 µs). Default 0: the
    peak, 64.22528 µs for matmul1."""
    from generated import HardwareNode

    node = HardwareNode("cpu", peak_flops=Q_(100, "GFLOP/s"), memory_bandwidth=Q_(20, "GB/s"))
    base = Scenarios.MnistTwoLayerTrainingStepOnH100.variant(hardware=node, precision="peak", launch=0)
    slow = base.variant(gemm_half_rows=30)
    assert slow.op_efficiency["matmul1"] == pytest.approx(32 / 62)
    assert slow.op_efficiency["grad_w2"] == pytest.approx(0.25) and slow.op_efficiency["relu"] == 1
    assert slow.op_time["matmul1"].to("µs").magnitude == pytest.approx(124.4365, rel=1e-6)
    assert slow.op_time["grad_w2"].to("µs").magnitude == pytest.approx(3.2768)
    assert base.op_time["matmul1"].to("µs").magnitude == pytest.approx(64.22528)


def test_an_outer_product_runs_at_its_own_efficiency():
    """At batch 1 the weight gradient of the first layer is a (784, 1) x (1, 128) outer product: 200,704 flop.
    On 100 GFLOP/s at a rank-one efficiency of 0.01 that is 200,704 / 1e9 = 200.704 µs (its (784 + 128 +
    100,352) x 4 = 405,056 bytes take 20.25 µs at 20 GB/s); matmul1, a (1, 784) x (784, 128) product, keeps
    the curve: 1 / 31 of the peak at gemm_half_rows 30. Without the input the outer product reads the curve
    at 1, also 1 / 31."""
    from generated import HardwareNode

    node = HardwareNode("cpu", peak_flops=Q_(100, "GFLOP/s"), memory_bandwidth=Q_(20, "GB/s"))
    base = Scenarios.MnistTwoLayerTrainingStepOnH100.variant(hardware=node, precision="peak", launch=0,
                                                             batch_size=1, gemm_half_rows=30)
    outer = base.variant(rank_one_efficiency=0.01)
    assert outer.op_efficiency["grad_w1"] == pytest.approx(0.01)
    assert outer.op_time["grad_w1"].to("µs").magnitude == pytest.approx(200.704)
    assert outer.op_efficiency["matmul1"] == pytest.approx(1 / 31)
    assert base.op_efficiency["grad_w1"] == pytest.approx(1 / 31)


def test_a_short_inner_dimension_has_its_own_curve():
    """Weight gradients multiply over the batch: at batch 4 grad_w1 (784 x 4 x 128) is limited by its inner
    dimension, 4 / (4 + 60) = 1/16 of the peak with gemm_half_inner 60, where its 128 columns allow
    128 / (128 + 30); on 100 GFLOP/s its 2 x 784 x 4 x 128 = 802,816 flop take 802,816 / 6.25e9 = 128.45 µs.
    The forward matmul1 (4 x 784 x 128) reads its rows: 4 / 34. By default the inner curve is the rows' one
    (4 / 34 for grad_w1 too) and an outer product sits on it: 1 / (1 + 60) at batch 1."""
    from generated import HardwareNode

    node = HardwareNode("cpu", peak_flops=Q_(100, "GFLOP/s"), memory_bandwidth=Q_(20, "GB/s"))
    base = Scenarios.MnistTwoLayerTrainingStepOnH100.variant(hardware=node, precision="peak", launch=0,
                                                             gemm_half_rows=30, batch_size=4)
    inner = base.variant(gemm_half_inner=60)
    assert inner.op_efficiency["grad_w1"] == pytest.approx(1 / 16)
    assert inner.op_efficiency["matmul1"] == pytest.approx(4 / 34)
    assert inner.op_time["grad_w1"].to("µs").magnitude == pytest.approx(128.45056, rel=1e-9)
    assert base.op_efficiency["grad_w1"] == pytest.approx(4 / 34)
    assert inner.variant(batch_size=1).op_efficiency["grad_w1"] == pytest.approx(1 / 61)
