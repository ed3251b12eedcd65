"""SustainedThroughputScenario: the reference entry by hand, hours as a time, exact sympy."""

from __future__ import annotations

import pytest
from conftest import assert_matches_exact, exact_outputs, flatten
from hypothesis import given, settings
from hypothesis import strategies as st

from generated import Q_, ScenarioInputError, Scenarios, SustainedThroughputScenario
from symbolic.scenarios.runs.sustained_throughput import SustainedThroughputScenario as Declared


def test_peak_planned_budget_by_hand():
    """H = 1000 h, σ = 0.4: 1000 / 0.4 = 2500 device-hours, stretch 1 / 0.4 = 2.5 (runs.md §7)."""
    s = Scenarios.PeakPlannedTrainingBudget
    assert s.required_device_hours == Q_(2500.0, "h")
    assert s.stretch == pytest.approx(2.5, rel=1e-15)


def test_hours_in_other_units_and_domain():
    base = Scenarios.PeakPlannedTrainingBudget
    assert base.variant(planned_device_hours=Q_(2, "day")).required_device_hours.to("h").magnitude == pytest.approx(120)
    assert base.variant(sustained_fraction=1).stretch == 1
    for bad in (0, 1.2, -0.1):
        with pytest.raises(ScenarioInputError, match="sustained_fraction"):
            base.variant(sustained_fraction=bad)  # the reference divides by zero at 0


@settings(max_examples=40, deadline=None)
@given(hours=st.floats(0, 1e9, allow_subnormal=False), fraction=st.floats(1e-6, 1))
def test_evaluator_equals_exact_sympy(hours, fraction):
    s = SustainedThroughputScenario(planned_device_hours=hours, sustained_fraction=fraction)
    assert_matches_exact(flatten(s.evaluate()), exact_outputs(Declared.model, s._args))
