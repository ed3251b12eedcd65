"""The evaluators' helpers: ceilings by floor division, exact for floats and element-wise for arrays."""

from __future__ import annotations

import numpy as np
import sympy
from hypothesis import given
from hypothesis import strategies as st

from symbolic.runtime.mathops import ceiling_division


def test_whole_ratios_do_not_round_up():
    """7.416e12 B on 1 GB devices is 7416 devices (a float n / d first can give 7417)."""
    assert ceiling_division(7.416e12, 1e9) == 7416 and isinstance(ceiling_division(7.416e12, 1e9), int)
    assert ceiling_division(1.494e12, 8e10) == 19
    assert ceiling_division(7, 2) == 4 and ceiling_division(8, 2) == 4 and ceiling_division(0, 3) == 0


def test_arrays_element_wise():
    assert ceiling_division(np.array([1.0, 2.0, 2.5]), 1.0).tolist() == [1.0, 2.0, 3.0]


@given(n=st.integers(0, 10**15), d=st.integers(1, 10**12))
def test_equals_the_exact_ceiling(n, d):
    assert ceiling_division(n, d) == sympy.ceiling(sympy.Rational(n, d))
    assert ceiling_division(float(n), float(d)) == sympy.ceiling(sympy.Rational(n, d)) or abs(n / d) > 2**52


def test_a_declared_ceiling_prints_as_the_helper_and_is_proven_at_least_one():
    from symbolic.codegen.pyprint import EvaluatorPrinter
    from symbolic.analysis.domains import unproven_divisions
    from symbolic.model import Input, Output, Scenario

    class Devices(Scenario):
        """Fewest devices holding a state."""

        state = Input("byte", positive=True)
        memory = Input("GB", positive=True)
        devices = Output(sympy.ceiling(state / memory))
        share = Output(state / sympy.ceiling(state / memory))

    state, memory = (d.symbol for d in Devices.model.inputs)
    printer = EvaluatorPrinter({state: "state", memory: "memory"}, {})
    code = printer.doprint(sympy.ceiling(state / memory))
    assert code == "ceiling_division(state, memory)" and printer.helpers_used == {"ceiling_division"}
    assert eval(code, {"ceiling_division": ceiling_division, "state": 1.494e12, "memory": 8e10}) == 19  # noqa: S307
    closed = {q.name: q.expr.xreplace({Devices.model.quantities[0].symbol: Devices.model.quantities[0].expr})
              for q in Devices.model.quantities}
    assert unproven_divisions(Devices.model, closed) == {}
