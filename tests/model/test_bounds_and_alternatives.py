"""Declaration features: upper bounds, inputs computed from optional ones, outputs echoed into a group, differs."""

from __future__ import annotations

import numpy as np
import pytest

from generated import Scenarios
from symbolic.model import Echo, Group, Input, Output, Scenario
from symbolic.runtime.errors import DeclarationError, ScenarioInputError
from symbolic.runtime.sweep import sweep
from symbolic.runtime.validation import InputSpec, coerce_number


def test_upper_bounds_in_words_and_checks():
    at_most = InputSpec("f", minimum=0, maximum=1)
    below = InputSpec("r", minimum=0, strict=True, maximum=1, strict_maximum=True)
    assert at_most.domain == "a number ≥ 0 and ≤ 1" and below.domain == "a number > 0 and < 1"
    assert coerce_number("S", at_most, 1) == 1 and coerce_number("S", below, 0.5) == 0.5
    for spec, bad in ((at_most, 1.01), (below, 1), (below, 1.0), (below, 0)):
        with pytest.raises(ScenarioInputError, match=f"input '{spec.name}' got"):
            coerce_number("S", spec, bad)


def test_sweeps_check_upper_bounds():
    base = Scenarios.CoordinationOverheadExample
    assert sweep(base, {"overhead_fraction": np.array([0.0, 1.0])})["realized_speedup"].tolist() == [3.0, 0.0]
    with pytest.raises(ScenarioInputError, match="overhead_fraction"):
        sweep(base, {"overhead_fraction": np.array([0.5, 1.5])})


def test_declaration_errors():
    with pytest.raises(DeclarationError, match="at_most or below"):
        Input(at_most=1, below=1)
    with pytest.raises(DeclarationError, match="differs names nothing_here"):
        class _Bad(Scenario):
            differs = {"nothing_here": "why"}
            x = Input(positive=True)
    with pytest.raises(DeclarationError, match="not a top-level scalar output"):
        class _Echo(Scenario):
            x = Input(positive=True)
            result = Group(doc="r")
            y = Output(2 * x, group=result)
            again = Group(Echo(y), doc="an output inside a group is not echoed")


def test_an_input_computed_from_optional_inputs_is_optional_too():
    law = Scenarios.IronLawMemoryBoundExample
    assert law.memory_time_stated is None  # not given: computed by the evaluator from the volume and bandwidth
    assert law.memory_time.to("ms").magnitude == pytest.approx(20)
    assert law.result.memory_time == law.memory_time  # echoed into the group, kept at the top level
    assert "memory_time" not in law.variant(bandwidth=None).outputs()
