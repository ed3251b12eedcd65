"""Abs: one declaration module (symbolic/model/functions/abs.py): a magnitude, in its argument's unit."""

from __future__ import annotations

import pytest

from function_support import rendered_class
from symbolic.model import Abs, Input, Output, Scenario


class Error(Scenario):
    """The error of a prediction."""

    predicted = Input("s", positive=True, doc="Predicted time.")
    measured = Input("s", positive=True, doc="Measured time.")
    error = Output(Abs(predicted - measured), "ms", doc="Magnitude of the difference.")


def test_abs_is_a_magnitude_in_its_unit():
    cls, files = rendered_class(Error)
    assert cls(predicted=1, measured=1.25).error.to("ms").magnitude == pytest.approx(250)  # |1 − 1.25| s = 250 ms
    assert "Math.abs(" in files["generated/js/error.mjs"]
