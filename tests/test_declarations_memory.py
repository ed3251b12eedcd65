"""Declarations added for the training-memory group, each rendered from a small scenario declared
here and its generated class run: a table whose entries need an absent optional input."""

from __future__ import annotations

import pytest

from symbolic.codegen.discover import ScenarioModule
from symbolic.codegen.render import render_all
from symbolic.model import Input, Output, Scenario, Table
from symbolic.runtime.errors import MissingInputError


def _generated(scenario: type[Scenario], module: str) -> type:
    files = render_all([ScenarioModule(module, "training_memory", scenario.model, ())])
    namespace: dict = {}
    exec(compile(files[f"generated/{module}.py"], f"generated/{module}.py", "exec"), namespace)  # noqa: S102
    return namespace[scenario.__name__]


class Strategies(Scenario):
    """Bytes per strategy for values of `count` bytes, `length` of them (optional)."""

    count = Input("byte", positive=True, doc="Bytes of one value.")
    length = Input(integer=True, positive=True, default=None, doc="An optional length.")
    per_strategy = Table({"short": count * 2, "long": count * length}, "byte", doc="Bytes per strategy.")
    fixed = Table({"a": count, "b": 2 * count}, "byte", doc="Needs nothing optional.")
    longest = Output(per_strategy["long"], "byte", doc="The long strategy.")


def test_a_table_needing_an_absent_optional_input_raises_naming_it():
    cls = _generated(Strategies, "strategies")
    given = cls(count=3, length=5)
    assert {k: v.to("byte").magnitude for k, v in given.per_strategy.items()} == {"short": 6, "long": 15}
    absent = cls(count=3)
    assert absent.fixed["b"].to("byte").magnitude == 6  # a table needing nothing optional is unaffected
    with pytest.raises(MissingInputError, match="output 'per_strategy' needs input 'length'"):
        _ = absent.per_strategy
    with pytest.raises(MissingInputError, match="'longest' needs input 'length'"):
        _ = absent.longest
