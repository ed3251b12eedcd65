"""The division proof reads what the author wrote: a division inside a Piecewise branch is proven under
that branch's condition, and declared function facts (exp, expm1) feed it. A division left unproven, or a
function used outside its domain, still stops generation naming what to declare."""

from __future__ import annotations

import pytest
import sympy

from function_support import rendered_class
from symbolic.model import Input, Output, Piecewise, Scenario, exp
from symbolic.runtime.errors import UndefinedOutputError, UnsupportedNodeError


class Geometric(Scenario):
    """The sum of K terms of a geometric series of ratio r, written as its closed form where r < 1."""

    r = Input(nonnegative=True, doc="Ratio.")
    terms = Input(integer=True, positive=True, symbol="K", doc="Number of terms.")
    total = Output(Piecewise(((1 - r**terms) / (1 - r), r < 1), (terms, True)),
                   doc="1 + r + ... + r^(K−1): (1 − r^K)/(1 − r) below 1 (K at r = 1).")


def test_a_division_inside_a_branch_is_proven_under_its_condition():
    cls, _ = rendered_class(Geometric)
    assert cls(r=0.5, terms=3).total == pytest.approx(1.75)  # 1 + 0.5 + 0.25
    assert cls(r=1, terms=3).total == 3


def test_a_division_its_branch_does_not_guard_is_refused_naming_the_fix():
    class Unguarded(Scenario):
        """The same closed form, guarded by a condition that does not keep r from 1."""

        r = Input(nonnegative=True)
        terms = Input(integer=True, positive=True, symbol="K")
        total = Output(Piecewise(((1 - r**terms) / (1 - r), r > 0), (terms, True)))

    with pytest.raises(UndefinedOutputError, match=r"Unguarded.total: divides by 1 - r.*Piecewise branch"):
        rendered_class(Unguarded)


def test_exp_facts_prove_one_minus_a_decay_positive():
    """1 − e^(−s) > 0 for s > 0: the prover saw a plain real e^(−s) before exp was declared with its facts."""

    class Saturation(Scenario):
        """Work done over a saturating ramp."""

        work = Input("J", positive=True)
        s = Input(positive=True)
        per_saturation = Output(work / (1 - exp(-s)), "J")

    cls, _ = rendered_class(Saturation)
    # 1/(1 − e^(−1)) = 1/0.6321205588285577 = 1.5819767068693265
    assert cls(work=1, s=1).per_saturation.magnitude == pytest.approx(1.5819767068693265, rel=1e-15)


def test_a_scenario_with_an_undeclared_function_fails_at_generation_naming_the_declaration():
    class Hyperbolic(Scenario):
        """Uses cosh, which no module declares."""

        x = Input(positive=True)
        y = Output(sympy.cosh(x))

    with pytest.raises(UnsupportedNodeError, match=r"Hyperbolic.y: uses cosh.*add symbolic/model/functions/cosh\.py"):
        rendered_class(Hyperbolic)


class Producer(Scenario):
    """A rate that is positive on every valid input."""

    work = Input("flop", positive=True)
    time = Input("s", positive=True)
    rate = Output(work / time, "flop/s")


def test_an_output_read_from_another_instance_keeps_its_proven_sign():
    """Producer proves rate > 0; a scenario reading it through a ScenarioInput may divide by it (it was a plain
    real symbol there, so the division was refused and had to be re-required)."""
    from symbolic.analysis.domains import unproven_divisions
    from symbolic.model import ScenarioInput

    class Consumer(Scenario):
        """Time to do more work at the producer's rate."""

        producer = ScenarioInput(Producer)
        more = Input("flop", positive=True)
        more_time = Output(more / producer.output("rate"), "s")

    closed = {"more_time": Consumer.model.quantities[-1].expr}
    assert unproven_divisions(Consumer.model, closed) == {}
