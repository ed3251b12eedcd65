"""ScalingOverheadScenario: the reference entry by hand, the fraction's domain, exact sympy."""

from __future__ import annotations

import pytest
from conftest import assert_matches_exact, exact_outputs, flatten
from hypothesis import given, settings
from hypothesis import strategies as st

from generated import ScalingOverheadScenario, ScenarioInputError, Scenarios
from symbolic.scenarios.runs.scaling_overhead import ScalingOverheadScenario as Declared


def test_coordination_overhead_by_hand():
    """s = 3, f = 0.4: 3 × (1 − 0.4) = 1.8 (runs.md §6: 1.7999999999999998)."""
    s = Scenarios.CoordinationOverheadExample
    assert s.realized_speedup == pytest.approx(1.7999999999999998, rel=1e-12)
    assert s.planned_speedup == 3.0 and s.overhead_fraction == 0.40


def test_fraction_stays_within_zero_and_one():
    base = Scenarios.CoordinationOverheadExample
    assert base.variant(overhead_fraction=1).realized_speedup == 0
    assert base.variant(overhead_fraction=0).realized_speedup == 3.0
    with pytest.raises(ScenarioInputError, match=r"overhead_fraction.*≤ 1"):
        base.variant(overhead_fraction=1.5)  # the reference returns a negative speedup
    with pytest.raises(ScenarioInputError, match="planned_speedup"):
        base.variant(planned_speedup=0)


@settings(max_examples=40, deadline=None)
@given(speedup=st.floats(1e-3, 1e6), fraction=st.floats(0, 1, allow_subnormal=False))
def test_evaluator_equals_exact_sympy(speedup, fraction):
    s = ScalingOverheadScenario(planned_speedup=speedup, overhead_fraction=fraction)
    assert_matches_exact(flatten(s.evaluate()), exact_outputs(Declared.model, s._args), rel=1e-9)


def test_the_page_declares_every_tightened_domain():
    from pathlib import Path

    page = (Path(__file__).resolve().parents[3] / "generated/docs/scenarios/ScalingOverheadScenario.md").read_text()
    section = page.split("## Differs from the reference library", 1)[1].split("\n## ", 1)[0]
    for name in ("overhead_fraction", "planned_speedup"):
        assert f"- `{name}`:" in section
