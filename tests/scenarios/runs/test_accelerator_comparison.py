"""AcceleratorComparison: both reference entries by hand, precisions, a node without TDP, exact sympy."""

from __future__ import annotations

import pytest
from conftest import assert_matches_exact, exact_outputs, flatten
from hypothesis import given, settings
from hypothesis import strategies as st

from generated import AcceleratorComparison, Hardware, MissingInputError, Q_, ScenarioInputError, Scenarios
from symbolic.scenarios.runs.accelerator_comparison import AcceleratorComparison as Declared


def test_v100_to_b200_by_hand():
    """2250/125 = 18; 1000 W / 300 W = 3.333...; 18 / 3.333... = 5.4 (runs.md §10: 5.3999999999999995)."""
    s = Scenarios.V100ToB200
    assert s.peak_ratio == pytest.approx(2250 / 125, rel=1e-15) == pytest.approx(18.0)
    assert s.tdp_ratio == pytest.approx(1000 / 300, rel=1e-15)
    assert s.efficiency_ratio == pytest.approx(5.3999999999999995, rel=1e-12)
    with pytest.raises(MissingInputError, match="baseline_device_hours"):
        _ = s.candidate_device_hours


def test_v100_to_h100_by_hand():
    """989/125 = 7.912; 700/300; 7.912 / (7/3) = 3.3908571428571426; 10000 h / 7.912 = 1263.9029322548029 h."""
    s = Scenarios.V100ToH100
    assert s.peak_ratio == pytest.approx(989 / 125, rel=1e-15) == pytest.approx(7.912)
    assert s.tdp_ratio == pytest.approx(2.3333333333333335, rel=1e-12)
    assert s.efficiency_ratio == pytest.approx(3.3908571428571426, rel=1e-12)
    assert s.candidate_device_hours.to("h").magnitude == pytest.approx(1263.9029322548029, rel=1e-12)
    # the reference's equivalent_hours(h) is a variant here
    assert s.variant(baseline_device_hours=Q_(1, "d")).candidate_device_hours.to("h").magnitude == pytest.approx(24 / 7.912)


def test_precisions_and_missing_tdp():
    s = Scenarios.V100ToH100
    assert s.variant(precision=None).peak_ratio == s.peak_ratio
    assert s.variant(precision="fp32").peak_ratio == pytest.approx(67 / 15.7)  # V100 fp32 15.7 TFLOP/s
    with pytest.raises(ScenarioInputError, match="precision"):
        s.variant(precision="fp8")  # the V100 lists no fp8
    no_tdp = s.variant(candidate=Hardware.Cloud.Graphcore_GC200)
    assert no_tdp.peak_ratio > 0
    with pytest.raises(MissingInputError, match="tdp"):
        _ = no_tdp.tdp_ratio
    with pytest.raises(ScenarioInputError, match="baseline_device_hours"):
        s.variant(baseline_device_hours=-1)


def test_the_question_has_the_peak_ratio_in_it():
    from symbolic.analysis.solving import solve

    answer = solve(Scenarios.V100ToH100, "baseline_device_hours", "candidate_device_hours", Q_(1000, "h"))
    assert answer.values == [pytest.approx(7912, rel=1e-12)]


@settings(max_examples=40, deadline=None)
@given(hours=st.none() | st.floats(0, 1e9, allow_subnormal=False), pair=st.sampled_from([("V100", "H100"), ("A100", "B200"), ("H100", "A100")]))
def test_evaluator_equals_exact_sympy(hours, pair):
    s = AcceleratorComparison(baseline=getattr(Hardware.Cloud, pair[0]), candidate=getattr(Hardware.Cloud, pair[1]),
                              baseline_device_hours=hours)
    assert_matches_exact(flatten(s.evaluate()), exact_outputs(Declared.model, s._args), rel=1e-9)


def test_a_custom_node_states_its_tdp_in_any_power_unit():
    from generated import HardwareNode

    mine = HardwareNode(name="Mine", peak_flops=Q_(250, "TFLOP/s"), memory_bandwidth=Q_(1, "TB/s"), tdp=Q_(0.6, "kW"))
    s = Scenarios.V100ToH100.variant(candidate=mine)
    assert s.tdp_ratio == pytest.approx(600 / 300) and s.peak_ratio == pytest.approx(2)
