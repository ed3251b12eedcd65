"""PublishedRunScenario: GPT-3 as trained by hand, stated hours, the 6PD fallback, energy, exact sympy."""

from __future__ import annotations

import pytest
from conftest import assert_matches_exact, exact_outputs, flatten
from hypothesis import given, settings
from hypothesis import strategies as st

from generated import Hardware, MissingInputError, Models, PublishedRunScenario, Q_, ScenarioInputError, Scenarios
from symbolic.scenarios.runs.published_run import PublishedRunScenario as Declared


def test_gpt3_as_trained_by_hand():
    """C = 3.14e23 flop over 10,000 V100s × 14.8 days = 1.27872e10 s: 24.5558... TFLOP/s each, of 125 TFLOP/s."""
    s = Scenarios.Gpt3PublishedRun
    seconds = 10000 * 14.8 * 86400
    assert s.training_operations.to("flop").magnitude == 3.14e23
    assert s.achieved_rate.to("TFLOP/s").magnitude == pytest.approx(3.14e23 / seconds / 1e12, rel=1e-12)
    assert s.achieved_rate.to("TFLOP/s").magnitude == pytest.approx(24.555805805805804, rel=1e-12)
    assert s.peak_fraction == pytest.approx(0.19644644644644643, rel=1e-12)
    with pytest.raises(MissingInputError, match="device_power"):
        _ = s.energy


def test_stated_hours_power_and_the_6pd_fallback():
    s = Scenarios.Gpt3PublishedRun.variant(accelerator_hours=Q_(1e6, "d"), device_power=Q_(300, "W"))
    assert s.achieved_rate.to("TFLOP/s").magnitude == pytest.approx(3.14e23 / (1e6 * 86400) / 1e12, rel=1e-12)
    assert s.energy.to("GWh").magnitude == pytest.approx(1e6 * 24 * 300 / 1e9, rel=1e-12)
    llama = Scenarios.Gpt3PublishedRun.variant(workload=Models.Language.Llama2_7B, accelerator_hours=Q_(1e5, "h"))
    assert llama.training_operations.to("flop").magnitude == pytest.approx(6 * 7e9 * 2e12, rel=1e-12)  # 6PD
    with pytest.raises(MissingInputError, match="accelerator_hours"):
        _ = Scenarios.Gpt3PublishedRun.variant(workload=Models.Language.Llama2_7B).achieved_rate
    for name, bad in (("accelerator_hours", 0), ("device_power", -1)):
        with pytest.raises(ScenarioInputError, match=name):
            Scenarios.Gpt3PublishedRun.variant(**{name: bad})


def test_the_half_peak_question():
    """3.14e23 flop at half of 125 TFLOP/s: 3.14e23 / 62.5e12 s = 1395555.6 accelerator-hours."""
    from symbolic.analysis.solving import solve

    answer = solve(Scenarios.Gpt3PublishedRun, "accelerator_hours", "peak_fraction", 0.5)
    assert answer.values == [pytest.approx(3.14e23 / 62.5e12 / 3600, rel=1e-12)]


@settings(max_examples=40, deadline=None)
@given(hours=st.none() | st.floats(1, 1e9), power=st.none() | st.floats(1, 1e4),
       node=st.sampled_from(["V100", "A100", "H100"]))
def test_evaluator_equals_exact_sympy(hours, power, node):
    s = PublishedRunScenario(workload=Models.Language.GPT3, accelerator=getattr(Hardware.Cloud, node),
                             accelerator_hours=hours, device_power=power)
    assert_matches_exact(flatten(s.evaluate()), exact_outputs(Declared.model, s._args), rel=1e-9)
