"""Echo(value, field=...): a group field named apart from the output or input it echoes (the reference's
`result.payload` is the output `total_bytes`, its `result.bandwidths` the input `links`)."""

from __future__ import annotations

import pytest

from symbolic.codegen.discover import ScenarioModule
from symbolic.codegen.render import render_all
from symbolic.functions import Len, index
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
    assert "result.payload" in files["generated/docs/scenarios/Renamed.md"]


def test_bad_fields_are_refused():
    with pytest.raises(DeclarationError, match="not an identifier"):
        Echo(Renamed.model.quantities[0].symbol, field="two words")
    with pytest.raises(DuplicateNameError, match="field 'x' twice"):
        class _Twice(Scenario):
            a = Input(positive=True)
            result = Group(Echo(a, field="x"), doc="r")
            x = Output(2 * a, group=result)
    with pytest.raises(DeclarationError, match="not a top-level scalar output or an input"):
        class _Member(Scenario):
            a = Input(positive=True)
            result = Group(doc="r")
            y = Output(2 * a, group=result)
            again = Group(Echo(y, field="z"), doc="an output inside a group is not echoed")
