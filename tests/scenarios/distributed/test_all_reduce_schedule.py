"""AllReduceScheduleScenario: ring, tree and star by hand, keyed results, domains, exact sympy."""

from __future__ import annotations

import math

import pytest
from conftest import assert_matches_exact, exact_outputs, flatten
from hypothesis import given, settings
from hypothesis import strategies as st

from generated import AllReduceScheduleScenario, InputTypeError, Q_, ScenarioInputError, Scenarios
from symbolic.scenarios.distributed.all_reduce_schedule import AllReduceScheduleScenario as Declared


def test_ring_vs_tree_small_buffer_by_hand():
    """M = 1 MB, N = 64, α = 10 µs, β = 10 GB/s (distributed.md §10).

    Ring: f = 2·63/64 = 1.96875, R = 126; bytes 1.96875 · 1e6/1e10 = 196.875 µs, startup
    126 · 10 µs = 1260 µs, total 1456.875 µs. Tree: T = 2·⌈log₂ 64⌉ = 12; bytes 12 · 100 µs =
    1200 µs, startup 120 µs, total 1320 µs. Star: 64 · 100 µs = 6.4 ms. Crossovers:
    64·10e-6·1e10/6 = 1066666.67 B; (126 − 12)·1e5/(12 − 1.96875) = 1136448.598... B."""
    r = Scenarios.RingVsTreeSmallBuffer.result
    assert r.ring_factor == {64: 1.96875} and r.ring_rounds == {64: 126} and r.tree_rounds == {64: 12}
    assert type(r.ring_rounds[64]) is int and type(r.tree_rounds[64]) is int
    assert r.chunk[64].to("byte").magnitude == pytest.approx(15625, rel=1e-12)
    assert r.ring_byte_time[64].to("µs").magnitude == pytest.approx(196.875, rel=1e-12)
    assert r.ring_startup_time[64].to("µs").magnitude == pytest.approx(1260, rel=1e-12)
    assert r.ring_time[64].to("s").magnitude == pytest.approx(0.001456875, rel=1e-9)
    assert r.tree_byte_time[64].to("µs").magnitude == pytest.approx(1200, rel=1e-12)
    assert r.tree_startup_time[64].to("µs").magnitude == pytest.approx(120, rel=1e-12)
    assert r.tree_time[64].to("s").magnitude == pytest.approx(0.00132, rel=1e-9)
    assert r.star_byte_time[64].to("s").magnitude == pytest.approx(0.0064, rel=1e-12)
    assert r.star_ring_limit[64] == 32
    assert r.crossover_estimate[64].to("byte").magnitude == pytest.approx(1066666.6666666665, rel=1e-9)
    assert r.crossover_exact[64].to("byte").magnitude == pytest.approx(1136448.5981308413, rel=1e-9)
    assert r.crossover_exact[64].to("byte").magnitude == pytest.approx(114 * 1e5 / (12 - 1.96875), rel=1e-12)
    s = Scenarios.RingVsTreeSmallBuffer
    assert s.saved_time(64).magnitude == 0 and s.saved_device_hours(64).magnitude == 0
    assert r.message == Q_(1, "MB") and r.alpha == Q_(10, "µs") and r.bandwidth == Q_(10, "GB/s")


NDR = 400e9 / 8  # InfiniBand NDR, 400 Gbps in B/s
ALPHA_NDR = 1.5e-6  # SwitchFabric.AlphaNdr, s


def ring_by_hand(message: float, n: int) -> float:
    return 2 * (n - 1) / n * message / NDR + 2 * (n - 1) * ALPHA_NDR


def tree_by_hand(message: float, n: int) -> float:
    rounds = 2 * math.ceil(math.log2(n))
    return rounds * message / NDR + rounds * ALPHA_NDR


def test_ddp_bucket_by_hand():
    """25 MB over 64 and 1024 NDR ranks (distributed.md §10). At 64: ring 1.96875 · 25e6/5e10 + 126 · 1.5 µs =
    984.375 + 189 µs; tree 12 · 500 µs + 12 · 1.5 µs = 6.018 ms. At 1024: 2046/1024 · 500 µs + 2046 · 1.5 µs;
    tree 20 · 500 µs + 30 µs = 10.03 ms."""
    s = Scenarios.DdpBucketRingNdr
    r = s.result
    assert s.group_sizes == [64, 1024] and s.run_steps == 1 and s.time_saved_fraction == 0
    expected = {64: (0.001173375, 0.006018, 852336.4485981308), 1024: (0.0040680234375, 0.01003, 8440750.786589997)}
    for n, (ring, tree, crossover) in expected.items():
        assert r.ring_time[n].to("s").magnitude == pytest.approx(ring, rel=1e-9), n
        assert r.ring_time[n].to("s").magnitude == pytest.approx(ring_by_hand(25e6, n), rel=1e-12), n
        assert r.tree_time[n].to("s").magnitude == pytest.approx(tree, rel=1e-9), n
        assert r.tree_time[n].to("s").magnitude == pytest.approx(tree_by_hand(25e6, n), rel=1e-12), n
        assert r.crossover_exact[n].to("byte").magnitude == pytest.approx(crossover, rel=1e-9), n
    # (R − T)·α·β/(T − f) at 1024: (2046 − 20) · 1.5e-6 · 5e10 / (20 − 2046/1024)
    assert r.crossover_exact[1024].to("byte").magnitude == pytest.approx(2026 * 75000 / (20 - 2046 / 1024), rel=1e-12)
    assert r.ring_startup_time[1024].to("µs").magnitude == pytest.approx(3069, rel=1e-12)


def test_gradient_buffer_by_hand():
    """GradientBufferAllReduceNdr: 1 GB, α 1.5 µs, 400 Gbps = 5e10 B/s. Ring at 8: 1.75 · 1e9/5e10 + 14 · 1.5e-6 =
    0.035 + 2.1e-5 s; star N · M/β = 0.02 N s; crossover at 8: (14 − 6) · 75000/(6 − 1.75) = 141176.47 B."""
    s = Scenarios.GradientBufferAllReduceNdr
    r = s.result
    assert s.run_steps == 100000 and type(s.run_steps) is int
    expected_ring = {8: 0.035021000000000004, 64: 0.039564, 1024: 0.0430299375}
    expected_tree = {8: 0.120009, 64: 0.240018, 1024: 0.40003}
    expected_star = {8: 0.16, 64: 1.28, 1024: 20.48}
    for n in (8, 64, 1024):
        assert r.ring_time[n].to("s").magnitude == pytest.approx(expected_ring[n], rel=1e-9), n
        assert r.ring_time[n].to("s").magnitude == pytest.approx(ring_by_hand(1e9, n), rel=1e-12), n
        assert r.tree_time[n].to("s").magnitude == pytest.approx(expected_tree[n], rel=1e-9), n
        assert r.tree_time[n].to("s").magnitude == pytest.approx(tree_by_hand(1e9, n), rel=1e-12), n
        assert r.star_byte_time[n].to("s").magnitude == pytest.approx(expected_star[n], rel=1e-9), n
        assert r.star_byte_time[n].to("s").magnitude == pytest.approx(n * 0.02, rel=1e-12), n
    assert r.crossover_exact[8].to("byte").magnitude == pytest.approx(141176.4705882353, rel=1e-9)
    assert r.crossover_exact[8].to("byte").magnitude == pytest.approx(8 * 75000 / 4.25, rel=1e-12)
    assert list(r.ring_time) == [8, 64, 1024]  # the order of group_sizes


def test_llama2_70b_saved_time_and_device_hours():
    """Llama2_70BGradientRing64Ndr: M = 7e10 params × 2 B = 1.4e11 B at 5e10 B/s over 64 ranks, half the ring saved:
    ring 1.96875 · 2.8 + 126 · 1.5e-6 = 5.512689 s; tree 12 · 2.8 + 12 · 1.5e-6 = 33.600018 s; saved 2.7563445 s;
    × 1e5 steps × 64 / 3600 = 4900.168 h."""
    s = Scenarios.Llama2_70BGradientRing64Ndr
    r = s.result
    assert s.message.to("byte").magnitude == pytest.approx(1.4e11, rel=1e-12)
    assert r.ring_time[64].to("s").magnitude == pytest.approx(5.512689, rel=1e-9)
    assert r.ring_time[64].to("s").magnitude == pytest.approx(1.96875 * 2.8 + 126 * 1.5e-6, rel=1e-12)
    assert r.tree_time[64].to("s").magnitude == pytest.approx(33.600018, rel=1e-9)
    assert s.saved_time(64).to("s").magnitude == pytest.approx(2.7563445, rel=1e-9)
    assert s.saved_device_hours(64).to("h").magnitude == pytest.approx(4900.168000000001, rel=1e-9)
    assert s.saved_device_hours(n=64).to("h").magnitude == pytest.approx(2.7563445 * 1e5 * 64 / 3600, rel=1e-12)


def test_saved_time_at_a_group_size_not_listed():
    """A method of n, not a lookup in group_sizes (the reference raises KeyError for n = 8 here):
    ring at 8 ranks = 2·7/8 · 2.8 s + 14 · 1.5e-6 s = 4.900021 s, half saved 2.4500105 s;
    × 1e5 steps × 8 ranks / 3600 = 544.44677... h."""
    s = Scenarios.Llama2_70BGradientRing64Ndr
    assert s.saved_time(8).to("s").magnitude == pytest.approx(2.4500105, rel=1e-12)
    assert s.saved_device_hours(8).to("h").magnitude == pytest.approx(2.4500105 * 1e5 * 8 / 3600, rel=1e-12)
    with pytest.raises(ScenarioInputError, match="saved_time: argument 'n' got 1; expected an integer ≥ 2"):
        s.saved_time(1)
    with pytest.raises(ScenarioInputError, match="not a whole number"):
        s.saved_time(2.5)


def test_small_groups_and_duplicates():
    """N = 2 and 3: R = T, so the exact crossover is 0; ⌈log₂ 3⌉ = 2, ⌈log₂ 5⌉ = 3; repeats collapse."""
    s = Scenarios.RingVsTreeSmallBuffer.variant(group_sizes=[2, 3, 5, 3, 2])
    assert s.group_sizes == [2, 3, 5]
    assert s.result.tree_rounds == {2: 2, 3: 4, 5: 6}
    assert s.result.crossover_exact[2].magnitude == 0 and s.result.crossover_exact[3].magnitude == 0
    assert s.result.crossover_estimate[2].to("byte").magnitude == pytest.approx(2 * 1e-5 * 1e10 / 1, rel=1e-12)
    assert s.result.crossover_estimate[5].to("byte").magnitude == pytest.approx(5 * 1e5 / math.log2(5), rel=1e-12)


def test_empty_group_list_and_zero_message():
    assert Scenarios.RingVsTreeSmallBuffer.variant(group_sizes=[]).result.ring_time == {}
    r = Scenarios.RingVsTreeSmallBuffer.variant(message=0).result
    assert r.ring_byte_time[64].magnitude == 0 and r.ring_time[64].to("µs").magnitude == pytest.approx(1260)


@pytest.mark.parametrize(("changes", "error", "match"), [
    ({"group_sizes": [64, 1]}, ScenarioInputError, r"entry \[1\] got 1; expected an integer ≥ 2"),
    ({"group_sizes": [2.5]}, ScenarioInputError, "not a whole number"),
    ({"group_sizes": 64}, InputTypeError, "expected a list"),
    ({"alpha": Q_(-1, "µs")}, ScenarioInputError, "'alpha' got -1"),
    ({"bandwidth": 0}, ScenarioInputError, "'bandwidth' got 0"),
    ({"message": Q_(8e6)}, ScenarioInputError, "'message' got 8000000.0"),  # a bare count is not bytes
    ({"time_saved_fraction": 1.5}, ScenarioInputError, "time_saved_fraction must be at most 1"),
    ({"run_steps": -1}, ScenarioInputError, "'run_steps' got -1"),
])
def test_domains(changes, error, match):
    with pytest.raises(error, match=match):
        Scenarios.RingVsTreeSmallBuffer.variant(**changes)


@settings(max_examples=60, deadline=None)
@given(m=st.just(0.0) | st.floats(1e-6, 1e12), sizes=st.lists(st.integers(2, 5000), max_size=4), a=st.just(0.0) | st.floats(1e-6, 1e3),
       b=st.floats(1e-3, 1e4), steps=st.integers(0, 10**6), f=st.just(0.0) | st.floats(1e-6, 1))
def test_evaluator_equals_exact_sympy(m, sizes, a, b, steps, f):
    s = AllReduceScheduleScenario(message=m, group_sizes=sizes, alpha=a, bandwidth=b, run_steps=steps,
                                  time_saved_fraction=f)
    assert_matches_exact(flatten(s.evaluate()), exact_outputs(Declared.model, s._args), rel=1e-11)
    for n in sizes[:1]:  # the methods at a group size: the evaluator with its argument, against exact sympy
        from generated.all_reduce_schedule import evaluate

        values = evaluate(**s._args, n=n)
        assert s.saved_time(n).magnitude == values["saved_time"]
        assert_matches_exact(flatten(values), exact_outputs(Declared.model, {**s._args, "n": n}), rel=1e-11)
