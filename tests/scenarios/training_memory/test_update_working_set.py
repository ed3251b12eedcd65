"""UpdateWorkingSetScenario: the phone entry by hand, the optional bandwidth, exact sympy."""

from __future__ import annotations

import pytest
from conftest import assert_matches_exact, exact_outputs, flatten
from hypothesis import given, settings
from hypothesis import strategies as st

from generated import MissingInputError, Q_, ScenarioInputError, Scenarios, UpdateWorkingSetScenario
from symbolic.scenarios.training_memory.update_working_set import UpdateWorkingSetScenario as Declared


def test_phone_entry_by_hand():
    """W = 1e7 × 4 B = 40 MB; m = 2, a = 5, a_hi = 8; traffic (6 + 2m + 2a)·W = 20·W = 800 MB;
    at 51.2 GB/s that is 800e6 / 51.2e9 s = 15.625 ms (REFERENCE §9.3)."""
    s = Scenarios.PhoneFullUpdateWorkingSet
    expected_mb = {"weights": 40, "gradients": 40, "optimizer_state": 80, "activations": 200, "persistent": 160,
                   "total": 360, "step_traffic": 800, "weight_reads": 120}
    for name, value in expected_mb.items():
        assert getattr(s, name).to("MB").magnitude == pytest.approx(value, rel=1e-12), name
        assert str(getattr(s, name).units) == "MB"
    assert s.amplification == pytest.approx(9.0) and s.floor == pytest.approx(4.0) and s.ceiling == pytest.approx(12.0)
    assert s.traffic_ratio == pytest.approx(20.0) and s.weight_read_share == pytest.approx(0.15)
    assert s.step_floor.to("ms").magnitude == pytest.approx(15.625, rel=1e-12)
    assert s.parameters == 1e7 and s.bandwidth == Q_(51.2, "GB/s")


def test_step_floor_needs_bandwidth():
    s = Scenarios.PhoneFullUpdateWorkingSet.variant(bandwidth=None)
    assert s.total.to("MB").magnitude == pytest.approx(360)
    with pytest.raises(MissingInputError, match="'step_floor' needs input 'bandwidth'"):
        _ = s.step_floor
    assert "step_floor" not in s.outputs()


def test_high_factor_must_bound_the_nominal_one():
    with pytest.raises(ScenarioInputError, match="activation_factor_high must be at least activation_factor"):
        Scenarios.PhoneFullUpdateWorkingSet.variant(activation_factor_high=4.0)


@settings(max_examples=150, deadline=None)
@given(
    n=st.floats(1, 1e13), v=st.sampled_from([0.5, 1, 2, 4, 16]), m=st.integers(0, 4),
    a=st.floats(0, 50, allow_subnormal=False), extra=st.floats(0, 50, allow_subnormal=False), bw=st.none() | st.floats(0.01, 1e5),
)
def test_evaluator_equals_exact_sympy(n, v, m, a, extra, bw):
    s = UpdateWorkingSetScenario(parameters=n, bytes_per_param=v, optimizer_moments=m, activation_factor=a,
                                 activation_factor_high=a + extra, bandwidth=bw)
    assert_matches_exact(flatten(s.evaluate()), exact_outputs(Declared.model, s._args))
    assert s.amplification == pytest.approx(2 + m + a, rel=1e-12)
    assert s.traffic_ratio == pytest.approx(6 + 2 * m + 2 * a, rel=1e-12)


def test_optimizer_implementation_by_hand():
    """1e7 FP32 parameters (40 MB of weights) stepped by a for-loop Adam that moves 18 values per
    parameter in 7 operations at 5 µs, 2 of them fresh parameter-sized results faulted in at
    0.5 µs/MB, at 20 GB/s: 18 x 40 MB = 720 MB, 720 MB / 20 GB/s = 36 ms, 7 x 5 µs = 0.035 ms,
    2 x 40 MB x 0.5 µs/MB = 0.04 ms; 36.075 ms in all. The defaults are the fused floor: 7 values,
    the 280 MB the optimizer traffic already counts, one operation and no fresh memory."""
    base = Scenarios.PhoneFullUpdateWorkingSet.variant(bandwidth=Q_(20, "GB/s"))
    loop = base.variant(optimizer_values_moved=18, optimizer_ops=7, dispatch=5, temporaries=2, allocation_cost=0.5)
    assert loop.implementation_traffic.to("MB").magnitude == pytest.approx(720)
    assert loop.optimizer_time.to("ms").magnitude == pytest.approx(36.075)
    assert base.implementation_traffic.to("MB").magnitude == pytest.approx(280)
    assert base.optimizer_traffic.to("MB").magnitude == pytest.approx(280)
    assert base.optimizer_time.to("ms").magnitude == pytest.approx(14)  # 280 MB at 20 GB/s


def test_this_machines_adam_entries_by_hand():
    """The for-loop Adam on this machine: 19 values x 40 MB = 760 MB at the measured triad bandwidth,
    11 operations at the measured eager-op cost, 2 fresh 40 MB temporaries at the measured fresh-memory
    cost; the fused one moves 8 values in 4 operations, no temporaries (counts traced by validate --here)."""
    from generated import Constants

    cpu = Constants.MeasuredCpu
    triad, op, fresh = (cpu.StreamTriad.to("GB/s").magnitude, cpu.EagerTorchOp.to("ms").magnitude,
                        cpu.FreshAllocation.to("ms/MB").magnitude)
    loop, fused = Scenarios.AdamForLoopOnThisCpu, Scenarios.AdamFusedOnThisCpu
    assert loop.implementation_traffic.to("MB").magnitude == pytest.approx(760)
    assert loop.optimizer_time.to("ms").magnitude == pytest.approx(760 / triad + 11 * op + 2 * 40 * fresh)
    assert fused.optimizer_time.to("ms").magnitude == pytest.approx(320 / triad + 4 * op)


def test_the_optimizer_reads_the_cache_level_its_state_fits_in():
    """1e7 FP32 parameters: weights, gradients and two moments are 4 x 40 MB = 160 MB. In a 200 MB level at
    100 GB/s the fused step's 280 MB take 2.8 ms; a 100 MB level is too small, so 280 MB at 20 GB/s = 14 ms."""
    base = Scenarios.PhoneFullUpdateWorkingSet.variant(bandwidth=Q_(20, "GB/s"))
    fits = base.variant(cache_capacity=Q_(200, "MB"), cache_bandwidth=Q_(100, "GB/s"))
    assert fits.optimizer_bandwidth.to("GB/s").magnitude == pytest.approx(100)
    assert fits.optimizer_time.to("ms").magnitude == pytest.approx(2.8)
    spills = base.variant(cache_capacity=Q_(100, "MB"), cache_bandwidth=Q_(100, "GB/s"))
    assert spills.optimizer_time.to("ms").magnitude == pytest.approx(14)
    assert base.optimizer_bandwidth.to("GB/s").magnitude == pytest.approx(20)
