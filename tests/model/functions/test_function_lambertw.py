"""LambertW: one declaration module (symbolic/model/functions/lambertw.py): the principal branch, allowed
only where the input domains prove its argument at least −1/e."""

from __future__ import annotations

import math

import pytest

from function_support import javascript_result, python_function, rendered_class
from symbolic.model import Input, LambertW, Output, Scenario
from symbolic.runtime.errors import UndefinedOutputError


class Omega(Scenario):
    """The w with w·e^w = x."""

    x = Input(nonnegative=True, doc="The product w·e^w.")
    w = Output(LambertW(x), doc="Its principal solution.")


def test_lambert_w_solves_w_e_to_the_w():
    cls, files = rendered_class(Omega)
    assert cls(x=1).w == pytest.approx(0.5671432904097838, rel=1e-15)  # the omega constant, Ω·e^Ω = 1
    assert cls(x=math.e).w == pytest.approx(1.0, rel=1e-15)  # 1·e^1 = e
    w = cls(x=1e300).w
    assert w + math.log(w) == pytest.approx(300 * math.log(10), rel=1e-15)  # ln(w·e^w) = ln x
    assert "function lambert_w(" in files["generated/js/omega.mjs"]
    assert "def lambert_w(" in files["generated/omega.py"]
    assert javascript_result(files, "omega", {"x": 1})["w"] == pytest.approx(0.5671432904097838, rel=1e-15)
    assert javascript_result(files, "omega", {"x": 1e300}, floats=("x",))["w"] == pytest.approx(w, rel=1e-15)


def test_lambert_w_near_its_branch_point_and_beyond_double_range():
    x = Omega.model.inputs[0].symbol
    f = python_function(LambertW(x), [x])
    assert f(-1 / math.e) == -1.0
    assert f(-0.3) * math.exp(f(-0.3)) == pytest.approx(-0.3, rel=1e-14)
    assert f(math.inf) == math.inf and math.isnan(f(math.nan)) and math.isnan(f(-1.0))


def test_lambert_w_of_an_argument_not_proven_in_range_is_refused():
    class Anywhere(Scenario):
        """W of any real number."""

        x = Input(doc="Any real.")
        w = Output(LambertW(x))

    with pytest.raises(UndefinedOutputError, match=r"Anywhere.w: LambertW\(x\) is real only for an argument of at "
                                                   r"least −1/e.*Require"):
        rendered_class(Anywhere)
