"""Declarations added for the training-memory group, each rendered from a small scenario declared
here and its generated class run: a table whose entries need an absent optional input, an output
with a fallback (``otherwise=``), an optional scenario input read through its outputs, and table
keys such as ``ZeRO-3``."""

from __future__ import annotations

import functools
import re

import pytest

from symbolic.scenarios.discover import ScenarioModule
from symbolic.codegen.render import render_all
import sympy

from symbolic.analysis.solving import solve
from symbolic.model import Input, Output, Scenario, ScenarioInput, Table
from symbolic.runtime.errors import DeclarationError, MissingInputError


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


class Shelf(Scenario):
    """Bytes on a shelf: `count` items of `size`, and a stated `extra` (optional) with a fallback."""

    count = Input(integer=True, positive=True, doc="Items.")
    size = Input("byte", positive=True, doc="Bytes per item.")
    extra = Input("byte", nonnegative=True, default=None, doc="Extra bytes; none when left out.")
    total = Output(count * size, "byte", doc="All items.")
    stated = Output(extra, "byte", otherwise=0, doc="The extra bytes, 0 without them.")
    with_extra = Output(total + extra, "byte", otherwise=total, doc="Items and extra.")
    per_item = Output(with_extra / count, "byte", doc="Reads an output that has a fallback.")
    stages = Table({"ZeRO-1": total, "ZeRO-3": total / count}, "byte", doc="Keys with hyphens.")


def test_otherwise_gives_the_fallback_and_downstream_outputs_follow():
    cls = _shelf()
    given = cls(count=4, size=10, extra=6)
    assert (given.stated.to("byte").magnitude, given.with_extra.to("byte").magnitude) == (6, 46)
    assert given.per_item.to("byte").magnitude == 46 / 4
    absent = cls(count=4, size=10)
    assert (absent.stated.to("byte").magnitude, absent.with_extra.to("byte").magnitude) == (0, 40)
    assert absent.per_item.to("byte").magnitude == 10
    assert absent.stages["ZeRO-3"].to("byte").magnitude == 10 and "ZeRO-1" in absent.stages
    # derivatives: with respect to extra only where it is given
    assert cls._gradient(count=4, size=10, extra=6)["per_item"]["extra"] == 0.25
    assert "extra" not in cls._gradient(count=4, size=10, extra=None)["per_item"]
    assert cls._gradient(count=4, size=10, extra=None)["per_item"]["size"] == 1


def test_solve_takes_the_branch_the_instance_is_in():
    absent = _shelf()(count=4, size=10)
    assert solve(Shelf.model, "size", "with_extra", 100, args=absent._args).values == [25]  # 4·size = 100
    given = absent.variant(extra=20)
    assert solve(Shelf.model, "size", "with_extra", 100, args=given._args).values == [20]  # 4·size + 20 = 100


def test_otherwise_must_read_an_optional_input_directly():
    with pytest.raises(DeclarationError, match="reads no optional input directly"):
        class Wrong(Scenario):
            """Nothing optional."""

            count = Input(positive=True, doc="Items.")
            doubled = Output(2 * count, otherwise=0, doc="Never absent.")
    with pytest.raises(DeclarationError, match="otherwise"):
        Output(sympy.Integer(1), if_missing="none", otherwise=0)


class Box(Scenario):
    """A box holding a shelf, if any."""

    shelf = ScenarioInput(Shelf, optional=True, doc="The shelf inside, if any.")
    wall = Input("byte", positive=True, doc="Bytes of the box itself.")
    held = Output(shelf.output("with_extra") + wall, "byte", otherwise=wall, doc="Box and shelf.")


@functools.cache
def _shelf_and_box() -> dict[str, str]:
    return render_all([ScenarioModule("shelf", "training_memory", Shelf.model, ()),
                       ScenarioModule("box", "training_memory", Box.model, ())])


@functools.cache
def _shelf() -> type:
    namespace: dict = {}
    exec(compile(_shelf_and_box()["generated/shelf.py"], "generated/shelf.py", "exec"), namespace)  # noqa: S102
    return namespace["Shelf"]


def test_an_optional_scenario_input_read_through_its_outputs():
    shelf_cls = _shelf()
    files = _shelf_and_box()
    namespace: dict = {"Shelf": shelf_cls}
    source = re.sub(r"from generated\.\w+ import Shelf\n", "", files["generated/box.py"])
    exec(compile(source, "generated/box.py", "exec"), namespace)  # noqa: S102
    box = namespace["Box"]
    assert box(wall=3).held.to("byte").magnitude == 3
    assert box(wall=3, shelf=shelf_cls(count=2, size=5, extra=1)).held.to("byte").magnitude == 14
    assert "None (optional)" in files["generated/docs/scenarios/Box.md"]
