"""Products over a list (running and total), for everyone: rendered from a small declaration and run."""

from __future__ import annotations

import pytest
from sympy import Product

from symbolic.scenarios.discover import ScenarioModule
from symbolic.codegen.render import render_all
from symbolic.model.functions import Len, index
from symbolic.model import Input, ListInput, Output, PerItem, Scenario
from symbolic.runtime.errors import UnitMismatchError

j, i = index("j", "step"), index("i", "step")


class Compounding(Scenario):
    """A start value grown by each rate in turn."""

    start = Input("h", positive=True, doc="The value before any growth.")
    rates = ListInput(nonnegative=True, keyed=True, min_length=0, doc="Growth rates by name, in order.")
    running = PerItem(start * Product(1 + rates[i], (i, 0, j)), (j, 0, Len(rates) - 1), "h", keys=rates,
                      doc="The value after each rate.")
    final = Output(start * Product(1 + rates[i], (i, 0, Len(rates) - 1)), "h", doc="The value after every rate.")
    share = Output(start / final, doc="Start over final (defined: an empty or nonnegative product is positive).")


def test_products_render_run_and_show_their_factors():
    files = render_all([ScenarioModule("compounding", "runs", Compounding.model, ())])
    namespace: dict = {}
    exec(compile(files["generated/compounding.py"], "generated/compounding.py", "exec"), namespace)  # noqa: S102
    cls = next(v for k, v in namespace.items() if k.startswith("Compounding"))
    s = cls(start=10, rates={"a": 0.5, "b": 1.0})
    assert s.running["a"].magnitude == pytest.approx(15) and s.running["b"].magnitude == pytest.approx(30)
    assert s.final.magnitude == pytest.approx(30) and s.share == pytest.approx(1 / 3)
    empty = cls(start=10, rates={})
    assert empty.running == {} and empty.final.magnitude == 10 and empty.share == 1
    assert r"\prod" in files["generated/docs/scenarios/Compounding.md"]


def test_a_product_of_dimensioned_factors_is_refused():
    class Bad(Scenario):
        """Times multiplied: the dimension would depend on the list's length."""

        times = ListInput("s", positive=True, doc="Times.")
        total = Output(Product(times[i], (i, 0, Len(times) - 1)), "s", doc="A product of times.")

    with pytest.raises(UnitMismatchError):
        render_all([ScenarioModule("bad", "runs", Bad.model, ())])
