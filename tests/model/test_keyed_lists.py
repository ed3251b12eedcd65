"""Keyed list inputs (dicts of names to numbers), aligned inputs, unique lists and keyed outputs,
on a small scenario declared here and generated in memory."""

from __future__ import annotations

import pytest
import sympy

from generated import InputTypeError, Q_, ScenarioInputError
from symbolic.scenarios.discover import ScenarioModule
from symbolic.codegen.render import _model_context, environment, header
from symbolic.model.functions import CeilLog2, Len, index
from symbolic.model import Group, Input, ListInput, PerItem, Scenario
from symbolic.runtime.errors import DeclarationError

k = index("k", "path")


class KeyedPaths(Scenario):
    """A message over named paths, each with a startup latency and a bandwidth."""

    message = Input("MB", nonnegative=True, doc="Message.")
    alphas = ListInput("µs", keyed=True, nonnegative=True, min_length=0, doc="Latency per path.")
    bandwidths = ListInput("GB/s", aligned_to=alphas, positive=True, min_length=0, doc="Bandwidth per path.")
    sizes = ListInput(integer=True, minimum=2, unique=True, min_length=0, doc="Group sizes.")
    result = Group(alphas, doc="The echoed latencies and the times.")
    times = PerItem(alphas[k] + message / bandwidths[k], (k, 0, Len(alphas) - 1), "ms", keys=alphas, group=result,
                    doc="Time per path.")
    depth = PerItem(CeilLog2(sizes[k]), (k, 0, Len(sizes) - 1), keys=sizes, doc="Tree depth per size.")


@pytest.fixture(scope="module")
def cls():
    module = ScenarioModule("keyed_paths", "distributed", KeyedPaths.model, ())
    source = environment().get_template("evaluator.py.j2").render(
        header=header("tests", "evaluator.py.j2"), **_model_context(module))
    namespace: dict = {}
    exec(compile(source, "keyed_paths", "exec"), namespace)  # noqa: S102 - our own generated source
    return namespace["KeyedPaths"]


def build(cls, **changes):
    inputs = {"message": Q_(1, "MB"), "alphas": {"NVLink": Q_(1.5, "µs"), "IB": 5},
              "bandwidths": {"IB": Q_(400, "Gbps"), "NVLink": 450}, "sizes": [2, 3, 1024, 3]}
    return cls(**{**inputs, **changes})


def test_results_are_dicts_in_the_key_order_of_the_input(cls):
    s = build(cls)
    times = s.result.times
    assert list(times) == ["NVLink", "IB"]
    # 1.5 µs + 1e6 B / 450e9 B/s = 1.5e-6 + 2.2222e-6 s; 5 µs + 1e6 / 5e10 s = 5e-6 + 2e-5 s
    assert times["NVLink"].to("s").magnitude == pytest.approx(1.5e-6 + 1e6 / 450e9, rel=1e-12)
    assert times["IB"].to("s").magnitude == pytest.approx(5e-6 + 1e6 / 5e10, rel=1e-12)
    assert s.result.alphas == {"NVLink": Q_(1.5, "µs"), "IB": Q_(5, "µs")}
    assert s.bandwidths["NVLink"] == Q_(450, "GB/s") and s.alphas["IB"] == Q_(5, "µs")
    assert s.sizes == [2, 3, 1024]  # repeats collapse, first occurrence kept
    assert s.depth == {2: 1, 3: 2, 1024: 10}
    assert s.variant(message=0).result.times["IB"].to("µs").magnitude == pytest.approx(5)


def test_empty_keyed_inputs_give_empty_dicts(cls):
    s = build(cls, alphas={}, bandwidths={}, sizes=[])
    assert s.result.times == {} and s.depth == {}


@pytest.mark.parametrize(("changes", "error", "match"), [
    ({"bandwidths": {"NVLink": 450}}, ScenarioInputError, "'bandwidths' has no entry for 'IB'; it must have an entry"),
    ({"alphas": [1, 2]}, InputTypeError, "expected a dict of names"),
    ({"alphas": {1: 2}}, InputTypeError, "has the key 1"),
    ({"alphas": {"IB": -1}}, ScenarioInputError, r"entry \['IB'\] got -1"),
    ({"bandwidths": {"IB": 0, "NVLink": 1}}, ScenarioInputError, r"entry \['IB'\] got 0"),
    ({"bandwidths": {"IB": Q_(1, "s"), "NVLink": 1}}, ScenarioInputError, "IB"),
    ({"sizes": [1]}, ScenarioInputError, "expected an integer ≥ 2"),
    # a key the aligned input lacks would be kept and read by nothing: refused (issue 24)
    ({"bandwidths": {"IB": 1, "NVLink": 1, "unused": 1}}, ScenarioInputError,
     "'bandwidths' has an entry for 'unused', which no output reads"),
])
def test_bad_entries_name_the_input_and_key(cls, changes, error, match):
    with pytest.raises(error, match=match):
        build(cls, **changes)


def test_keyed_outputs_must_run_over_their_keys():
    with pytest.raises(DeclarationError, match="must be a list input and the range must run over it"):
        class Wrong(Scenario):  # noqa: F841 - the declaration itself raises
            xs = ListInput(keyed=True, positive=True)
            ys = PerItem(xs[k], (k, 1, Len(xs)), keys=xs)


def test_ceil_log2_is_exact_and_differentiates_as_its_trend():
    n = sympy.Symbol("n", positive=True)
    assert [CeilLog2(sympy.Integer(v)) for v in (1, 2, 3, 4, 5, 1024, 1025)] == [0, 1, 2, 2, 3, 10, 11]
    assert sympy.diff(CeilLog2(n), n) == 1 / (n * sympy.log(2))


def test_ceil_log2_helper_on_numbers_and_arrays():
    import numpy

    from symbolic.runtime.mathops import ceil_log2

    assert [ceil_log2(v) for v in (1, 2, 3, 4, 5, 1024, 1025, 2**60 + 1)] == [0, 1, 2, 2, 3, 10, 11, 61]
    assert ceil_log2(4.0) == 2 and ceil_log2(4.5) == 3 and ceil_log2(1.5) == 1
    assert list(ceil_log2(numpy.array([1.0, 2.0, 3.0, 1024.0]))) == [0, 1, 2, 10]


# -- grids: PerItem over two keyed lists --------------------------------------------------------
def test_a_grid_is_a_dict_of_dicts_row_by_row():
    """PerItem over two ranges: the evaluator returns one flat list, row by row; the class a dict of dicts."""
    from symbolic.codegen.render import render_all

    r, c = index("r", "row"), index("c", "column")

    class Grid(Scenario):
        """Sums of every pair."""

        rows = ListInput("s", keyed=True, nonnegative=True, min_length=0, doc="Rows.")
        columns = ListInput("ms", keyed=True, nonnegative=True, min_length=0, doc="Columns.")
        result = Group(doc="r")
        total = PerItem(rows[r] + columns[c], ((r, 0, Len(rows) - 1), (c, 0, Len(columns) - 1)), "s",
                        keys=(rows, columns), group=result, doc="Pairwise sums.")

    files = render_all([ScenarioModule("grid", "distributed", Grid.model, ())])
    namespace: dict = {}
    exec(compile(files["generated/grid.py"], "generated/grid.py", "exec"), namespace)  # noqa: S102
    s = namespace["Grid"](rows={"a": 1, "b": 2}, columns={"x": 10, "y": 20, "z": 30})
    assert s.evaluate()["result"]["total"] == pytest.approx([1.01, 1.02, 1.03, 2.01, 2.02, 2.03])
    total = {row: {col: v.to("s").magnitude for col, v in d.items()} for row, d in s.result.total.items()}
    assert total == {"a": {"x": pytest.approx(1.01), "y": pytest.approx(1.02), "z": pytest.approx(1.03)},
                     "b": {"x": pytest.approx(2.01), "y": pytest.approx(2.02), "z": pytest.approx(2.03)}}
    assert namespace["Grid"](rows={"a": 1}, columns={}).result.total == {"a": {}}
    page = files["generated/docs/scenarios/Grid.md"]
    assert r"\mathrm{total}_{r,c}" in page and "dict by the keys of `rows` of dicts of Quantity" in page


def test_grid_declarations_are_checked():
    r, c = index("r", "row"), index("c", "column")
    with pytest.raises(DeclarationError, match=r"keys=\(rows, columns\)"):
        PerItem(r + c, ((r, 0, 1), (c, 0, 1)))
    with pytest.raises(DeclarationError, match="must be a keyed list input"):
        class _Plain(Scenario):
            rows = ListInput(keyed=True, positive=True, doc="Rows.")
            sizes = ListInput(positive=True, doc="A plain list.")
            total = PerItem(rows[r] + sizes[c], ((r, 0, Len(rows) - 1), (c, 0, Len(sizes) - 1)),
                            keys=(rows, sizes), doc="Sums.")
