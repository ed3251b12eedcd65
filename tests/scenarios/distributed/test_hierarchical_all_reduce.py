"""HierarchicalAllReduceScenario: the three registry configurations by hand, edges, domains, exact sympy."""

from __future__ import annotations

import pytest
from conftest import assert_matches_exact, exact_outputs, flatten
from hypothesis import given, settings
from hypothesis import strategies as st

from generated import HierarchicalAllReduceScenario, Q_, ScenarioInputError, Scenarios
from symbolic.scenarios.distributed.hierarchical_all_reduce import HierarchicalAllReduceScenario as Declared

NDR = 400e9 / 8  # 400 Gbps in B/s
NVLINK = 450e9  # H100 NVLink per direction, B/s
ALPHA = 1.5e-6  # SwitchFabric.AlphaNdr, s


def hand(message: float, nodes: int, gpus: int) -> dict[str, float]:
    """distributed.md §11 written out: ReduceScatter, inter-node ring of the shard, AllGather; flat ring."""
    rs = message * (gpus - 1) / gpus / NVLINK
    inter = 2 * (nodes - 1) / nodes * (message / gpus) / NDR + 2 * (nodes - 1) * ALPHA
    total = rs + inter + rs
    n = nodes * gpus
    flat = 2 * (n - 1) / n * message / NDR + 2 * (n - 1) * ALPHA
    return {"total": total, "flat": flat, "bound": 2 * message / NDR, "rs": rs}


@pytest.mark.parametrize(("entry", "message", "nodes", "total", "flat", "vs_ring", "vs_bound"), [
    ("HierarchicalAllReduce8x8DgxH100", 1e9, 8, 0.00828488888888889, 0.039564, 4.775441231693578, 4.828067163778766),
    ("HierarchicalAllReduceBucket100MB", 1e8, 8, 0.000847388888888889, 0.0041265, 4.869664983937586,
     4.720382875499902),
    ("HierarchicalAllReduceReferenceCluster", 3.5e11, 128, 3.0978202361111107, 13.989397125, 4.515884092280891,
     4.519306781201443),
])
def test_registry_entries_by_hand(entry, message, nodes, total, flat, vs_ring, vs_bound):
    s = getattr(Scenarios, entry)
    r = s.result
    assert s.n_devices == nodes * 8
    expected = hand(message, nodes, 8)
    assert r.total_time.to("s").magnitude == pytest.approx(expected["total"], rel=1e-12)
    assert r.total_time.to("s").magnitude == pytest.approx(total, rel=1e-9)
    assert r.flat_ring_time.to("s").magnitude == pytest.approx(expected["flat"], rel=1e-12)
    assert r.flat_ring_time.to("s").magnitude == pytest.approx(flat, rel=1e-9)
    assert r.flat_bound_time.to("s").magnitude == pytest.approx(expected["bound"], rel=1e-12)
    assert r.speedup_vs_flat_ring == pytest.approx(vs_ring, rel=1e-9)
    assert r.speedup_vs_flat_bound == pytest.approx(vs_bound, rel=1e-9)


def test_eight_by_eight_phases():
    """1 GB over 8 × 8: 0.875 GB ReduceScatter at 450 GB/s = 1.9444 ms; shard 0.125 GB; its ring over 8 nodes
    1.75 · 0.125e9/5e10 = 4.375 ms plus 14 · 1.5 µs = 21 µs; flat bound 2e9/5e10 = 40 ms."""
    r = Scenarios.HierarchicalAllReduce8x8DgxH100.result
    assert r.intra_bytes.to("GB").magnitude == pytest.approx(0.875, rel=1e-12)
    assert r.reduce_scatter_time.to("s").magnitude == pytest.approx(0.0019444444444444444, rel=1e-12)
    assert r.all_gather_time == r.reduce_scatter_time
    assert r.shard.to("GB").magnitude == pytest.approx(0.125, rel=1e-12)
    assert r.inter_byte_time.to("s").magnitude == pytest.approx(0.004375, rel=1e-12)
    assert r.inter_startup_time.to("s").magnitude == pytest.approx(2.1000000000000002e-05, rel=1e-12)
    assert r.inter_time.to("s").magnitude == pytest.approx(0.004375 + 2.1e-5, rel=1e-12)
    assert r.flat_bound_time.to("s").magnitude == pytest.approx(0.04, rel=1e-12)


def test_one_gpu_per_node_is_the_flat_ring():
    s = Scenarios.HierarchicalAllReduce8x8DgxH100.variant(gpus_per_node=1)
    assert s.result.reduce_scatter_time.magnitude == 0 and s.result.intra_bytes.magnitude == 0
    assert s.result.speedup_vs_flat_ring == pytest.approx(1.0, rel=1e-12)


def test_one_node_has_no_inter_node_phase():
    s = Scenarios.HierarchicalAllReduce8x8DgxH100.variant(n_nodes=1)
    assert s.result.inter_time.magnitude == 0
    assert s.result.total_time.to("s").magnitude == pytest.approx(2 * 0.875e9 / NVLINK, rel=1e-12)


def test_question_message_where_bandwidth_equals_startup():
    """2(K − 1)/K · M/(g·β_o) = 2(K − 1)·α  ⇒  M = K·g·α·β_o = 64 · 1.5e-6 · 5e10 = 4.8 MB."""
    from symbolic.analysis.solving import solve

    s = Scenarios.HierarchicalAllReduce8x8DgxH100
    solution = solve(Declared.model, "message", "result.inter_byte_time", "result.inter_startup_time", args=s._args)
    assert solution.values == [pytest.approx(4.8e-3, rel=1e-12)]  # in GB, the input's unit
    at = s.variant(message=Q_(4.8, "MB"))
    assert at.result.inter_byte_time.to("s").magnitude == pytest.approx(at.result.inter_startup_time.to("s").magnitude)


@pytest.mark.parametrize(("changes", "match"), [
    ({"n_nodes": 1, "gpus_per_node": 1}, "an AllReduce needs at least two devices"),
    ({"n_nodes": 0}, "'n_nodes' got 0"),
    ({"gpus_per_node": 0}, "'gpus_per_node' got 0"),
    ({"message": 0}, "'message' got 0"),
    ({"intra_bandwidth": 0}, "'intra_bandwidth' got 0"),
    ({"inter_bandwidth": Q_(1, "s")}, "'inter_bandwidth'"),
    ({"inter_alpha": Q_(-1, "µs")}, "'inter_alpha' got -1"),
])
def test_domains(changes, match):
    with pytest.raises(ScenarioInputError, match=match):
        Scenarios.HierarchicalAllReduce8x8DgxH100.variant(**changes)


@settings(max_examples=60, deadline=None)
@given(m=st.floats(1e-6, 1e6), k=st.integers(1, 4096), g=st.integers(1, 64), bi=st.floats(1e-3, 1e4),
       bo=st.floats(1e-3, 1e5), a=st.floats(0, 1e3, allow_subnormal=False))
def test_evaluator_equals_exact_sympy(m, k, g, bi, bo, a):
    if k * g < 2:
        return
    s = HierarchicalAllReduceScenario(message=m, n_nodes=k, gpus_per_node=g, intra_bandwidth=bi, inter_bandwidth=bo,
                                      inter_alpha=a)
    assert_matches_exact(flatten(s.evaluate()), exact_outputs(Declared.model, s._args), rel=1e-11)
