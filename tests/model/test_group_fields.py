"""Group fields named apart from their declaration: Echo(value, field=...) for an echoed output or input (the
reference's `result.payload` is the output `total_bytes`, its `result.bandwidths` the input `links`), and
Output(..., group=, field=) for a member whose field name is taken by an input (`result.compute_time`)."""

from __future__ import annotations

import pytest

from symbolic.scenarios.discover import ScenarioModule
from symbolic.codegen.render import render_all
from symbolic.model.functions import Len, index
from symbolic.model import Echo, Group, Input, ListInput, Output, PerItem, Scenario
from symbolic.runtime.errors import DeclarationError, DuplicateNameError

k = index("k", "link")


class Renamed(Scenario):
    """Bytes over named links, with group fields renamed."""

    size = Input("GB", positive=True, doc="One copy.")
    links = ListInput("GB/s", keyed=True, positive=True, min_length=0, doc="Bandwidths.")
    copies = Input(integer=True, positive=True, default=1, doc="Copies.")
    moved = Output(copies * size, "GB", doc="Bytes moved.")
    result = Group(Echo(moved, field="payload"), Echo(links, field="bandwidths"), copies, doc="The ladder.")
    times = PerItem(moved / links[k], (k, 0, Len(links) - 1), "ms", keys=links, group=result, doc="Times.")
    size_twice = Output(2 * size, "GB", group=result, field="size", doc="Twice the size, as result.size.")
    per_link = PerItem(size / links[k], (k, 0, Len(links) - 1), "ms", keys=links, group=result, field="each",
                       doc="One copy's time, as result.each.")


def test_renamed_fields_render_and_run():
    files = render_all([ScenarioModule("renamed", "distributed", Renamed.model, ())])
    namespace: dict = {}
    exec(compile(files["generated/renamed.py"], "generated/renamed.py", "exec"), namespace)  # noqa: S102
    s = namespace["Renamed"](size=2, links={"a": 4, "b": 8}, copies=3)
    assert s.moved.to("GB").magnitude == 6 and s.result.payload == s.moved
    assert {key: v.to("GB/s").magnitude for key, v in s.result.bandwidths.items()} == {"a": 4, "b": 8}
    assert s.result.copies == 3
    assert s.result.times["b"].to("ms").magnitude == pytest.approx(750)
    assert not hasattr(s.result, "moved") and not hasattr(s.result, "links")
    assert s.size.to("GB").magnitude == 2 and s.result.size.to("GB").magnitude == 4  # input and field apart
    assert s.result.each["a"].to("ms").magnitude == pytest.approx(500)
    assert "result.payload" in files["generated/docs/scenarios/Renamed.md"]


def test_bad_fields_are_refused():
    with pytest.raises(DeclarationError, match="not an identifier"):
        Echo(Renamed.model.quantities[0].symbol, field="two words")
    with pytest.raises(DuplicateNameError, match="field 'x' twice"):
        class _Twice(Scenario):
            a = Input(positive=True)
            result = Group(Echo(a, field="x"), doc="r")
            x = Output(2 * a, group=result)
    with pytest.raises(DeclarationError, match="give group= too"):
        Output(1, field="x")
    with pytest.raises(DuplicateNameError, match="field 'y' twice"):
        class _Clash(Scenario):
            a = Input(positive=True)
            result = Group(doc="r")
            y = Output(2 * a, group=result)
            z = Output(3 * a, group=result, field="y")
    with pytest.raises(DeclarationError, match="not a top-level scalar output or an input"):
        class _Member(Scenario):
            a = Input(positive=True)
            result = Group(doc="r")
            y = Output(2 * a, group=result)
            again = Group(Echo(y, field="z"), doc="an output inside a group is not echoed")
