"""PipelineScheduleScenario: both registry entries by hand, the question, domains, exact sympy."""

from __future__ import annotations

from fractions import Fraction

import pytest
from conftest import assert_matches_exact, exact_outputs, flatten
from hypothesis import given, settings
from hypothesis import strategies as st

from generated import PipelineScheduleScenario, ScenarioInputError, Scenarios
from symbolic.analysis.solving import solve
from symbolic.scenarios.distributed.pipeline_schedule import PipelineScheduleScenario as Declared


@pytest.mark.parametrize(("entry", "p", "m", "bubble", "for_bubble"), [
    # p = 4, m = 4: 3/(4 + 3) = 0.428571...; (p - 1)(1 - 0.1)/0.1 = 3·9 = 27 (distributed.md §8)
    ("GPipeFourStageWalkthrough", 4, 4, 0.42857142857142855, 27.0),
    # p = 8, m = 32: 7/39; 7·0.9/0.1 = 63 (the reference prints 62.99999999999999)
    ("Pipeline8Stage32Micro", 8, 32, 0.1794871794871795, 62.99999999999999),
])
def test_registry_entries_by_hand(entry, p, m, bubble, for_bubble):
    s = getattr(Scenarios, entry)
    assert (s.stages, s.microbatches) == (p, m)
    assert s.bubble == pytest.approx(bubble, rel=1e-12)
    assert s.bubble == pytest.approx(float(Fraction(p - 1, m + p - 1)), rel=1e-15)
    # counts exactly, as ints: slots 2(m + p - 1), idle 2(p - 1), fill p - 1, phase m + p - 1
    assert (s.slots, s.idle_slots, s.fill_slots, s.phase_slots) == (2 * (m + p - 1), 2 * (p - 1), p - 1, m + p - 1)
    assert all(type(v) is int for v in (s.slots, s.idle_slots, s.fill_slots, s.phase_slots))
    assert s.microbatches_for_bubble == pytest.approx(for_bubble, rel=1e-12)
    # b/(1 + b) for Narayanan's ratio b = (p - 1)/m
    assert s.bubble == pytest.approx(s.bubble_ratio / (1 + s.bubble_ratio), rel=1e-12)


def test_listed_values_of_the_reference():
    assert Scenarios.GPipeFourStageWalkthrough.slots == 14 and Scenarios.GPipeFourStageWalkthrough.idle_slots == 6
    assert Scenarios.Pipeline8Stage32Micro.slots == 78 and Scenarios.Pipeline8Stage32Micro.phase_slots == 39


def test_microbatches_for_bubble_hits_its_target():
    s = Scenarios.Pipeline8Stage32Micro.variant(bubble_target=0.05)
    assert s.microbatches_for_bubble == pytest.approx(133.0)  # 7·0.95/0.05
    at = s.variant(microbatches=133)
    assert at.bubble == pytest.approx(0.05, rel=1e-12)


def test_question_bubble_under_five_percent():
    """m = 19(p - 1): 57 micro-batches for 4 stages, 133 for 8."""
    from generated import Q_

    for entry, expected in (("GPipeFourStageWalkthrough", 57.0), ("Pipeline8Stage32Micro", 133.0)):
        solution = solve(Declared.model, "microbatches", "bubble", Q_(0.05), args=getattr(Scenarios, entry)._args)
        assert solution.values == [pytest.approx(expected, rel=1e-12)]
    ((form, _),) = solve(Declared.model, "microbatches", "bubble", Q_(0.05)).expressions
    p = Declared.model.inputs[0].symbol
    assert form.subs(p, 4) == 57 and form.subs(p, 8) == 133


def test_one_stage_has_no_bubble():
    s = PipelineScheduleScenario(stages=1, microbatches=1)
    assert s.bubble == 0 and s.idle_slots == 0 and s.slots == 2 and s.microbatches_for_bubble == 0


@pytest.mark.parametrize(("changes", "match"), [
    ({"stages": 0}, "'stages' got 0; expected an integer ≥ 1"),
    ({"microbatches": 0}, "'microbatches' got 0; expected an integer ≥ 1"),
    ({"microbatches": 2.5}, "not a whole number"),
    ({"bubble_target": 0}, "'bubble_target' got 0"),
    ({"bubble_target": 1.5}, "bubble_target must be at most 1"),
])
def test_domains(changes, match):
    with pytest.raises(ScenarioInputError, match=match):
        Scenarios.GPipeFourStageWalkthrough.variant(**changes)


def test_target_of_one_is_allowed():
    assert Scenarios.GPipeFourStageWalkthrough.variant(bubble_target=1).microbatches_for_bubble == 0


@settings(max_examples=100, deadline=None)
@given(p=st.integers(1, 10**6), m=st.integers(1, 10**6), target=st.floats(1e-6, 1.0))
def test_evaluator_equals_exact_sympy(p, m, target):
    s = PipelineScheduleScenario(stages=p, microbatches=m, bubble_target=target)
    assert_matches_exact(flatten(s.evaluate()), exact_outputs(Declared.model, s._args))
