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
