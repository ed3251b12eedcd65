"""expm1: one declaration module (symbolic/model/functions/expm1.py): e^x − 1 with every digit near 0."""

from __future__ import annotations

import pytest

from function_support import rendered_class
from symbolic.model import Input, Output, Scenario, expm1


class Growth(Scenario):
    """Growth over a period at a continuous rate."""

    rate = Input("1/s", positive=True, doc="Continuous growth rate.")
    period = Input("s", positive=True, doc="Period.")
    gained = Output(expm1(rate * period), doc="Share gained over the period.")
    per_gain = Output(rate * period / gained, doc="Rate·period over the share gained (defined: expm1 of a positive "
                                                  "number is positive).")


def test_expm1_keeps_every_digit_near_zero():
    cls, files = rendered_class(Growth)
    s = cls(rate=1e-10, period=1)
    # e^x − 1 = x + x²/2 + ... = 1e-10 + 5e-21 = 1.00000000005e-10 (exp(x) − 1 in doubles gives 1.000000082740371e-10)
    assert s.gained == pytest.approx(1.00000000005e-10, rel=1e-15)
    assert s.per_gain == pytest.approx(1 / 1.00000000005, rel=1e-15)
    assert "Math.expm1(" in files["generated/js/growth.mjs"]
    assert r"\left(e^{" in files["generated/docs/scenarios/Growth.md"]
