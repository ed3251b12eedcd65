"""Methods with an argument (symbolic.model.arguments, symbolic.runtime.methods): a small scenario
declared here is rendered and its generated class run; the declaration's refusals; the registry's
methods as values (pickling, arrays, Quantities in other units, the gradient in an argument)."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
import sympy

from generated import Q_, Scenarios
from symbolic.scenarios.discover import ScenarioModule
from symbolic.codegen.render import render_all
from symbolic.model import Argument, Input, ListInput, Output, PerItem, Require, Scenario
from symbolic.model import Len, index
from symbolic.runtime.errors import DeclarationError, InputTypeError, MissingInputError, ScenarioInputError

i = index("i", "link")


class Growth(Scenario):
    """A rectangle's growth over a base rectangle, and the time to read a table at named rates."""

    base_height = Input(integer=True, positive=True, symbol="H", doc="Base height.")
    base_width = Input(integer=True, positive=True, symbol="W", doc="Base width.")
    users = Input(integer=True, positive=True, default=None, symbol="n", doc="Users; optional.")
    size = Input("GB", positive=True, symbol="S", doc="Bytes to read.")
    rates = ListInput("GB/s", keyed=True, positive=True, symbol=r"\beta", doc="Rate of each named reader.")
    height = Argument(integer=True, positive=True, symbol="h", doc="Height.")
    width = Argument(integer=True, positive=True, example=3, symbol="w", doc="Width.")
    requests = Argument(integer=True, positive=True, default=users, symbol="k", doc="Requests (default: users).")
    reader = Argument(key_of=rates, symbol="r", doc="A reader, a key of `rates`.")
    area = Output(base_height * base_width, doc="Base area.")
    growth = Output(height * width / area, doc="A rectangle's area over the base area.")
    per_request = Output(area / requests, doc="Base area per request.")
    read_time = Output(size / rates[reader], "ms", doc="Time to read at the reader's rate.")


def _generated() -> tuple[type, dict[str, str]]:
    files = render_all([ScenarioModule("growth", "runs", Growth.model, ())])
    namespace: dict = {}
    exec(compile(files["generated/growth.py"], "generated/growth.py", "exec"), namespace)  # noqa: S102
    return namespace["Growth"], files


def test_methods_of_one_and_of_two_arguments():
    cls, files = _generated()
    s = cls(base_height=2, base_width=5, size=1, rates={"fast": 100, "slow": 10})
    assert s.area == 10 and "growth" not in s.outputs() and "area" in s.outputs()
    assert s.growth(4, 5) == 2 and s.growth(width=5, height=4) == 2  # 4·5/10
    assert s.read_time("slow").to("ms").magnitude == pytest.approx(100)  # 1 GB at 10 GB/s
    assert s.read_time(reader="fast").to("ms").magnitude == pytest.approx(10)
    with pytest.raises(MissingInputError, match=r"growth: argument 'width' was not given.*growth\(height, width\)"):
        s.growth(4)
    with pytest.raises(InputTypeError, match="takes 2 arguments"):
        s.growth(1, 2, 3)
    with pytest.raises(InputTypeError, match="unknown argument 'depth'"):
        s.growth(1, 2, depth=3)
    with pytest.raises(InputTypeError, match="argument 'height' given twice"):
        s.growth(1, height=2, width=3)
    with pytest.raises(ScenarioInputError, match="growth: argument 'height' got 0; expected an integer ≥ 1"):
        s.growth(0, 1)
    with pytest.raises(InputTypeError, match="argument 'height' got bool True"):
        s.growth(True, 1)
    with pytest.raises(ScenarioInputError, match="'medium', which is not a key of 'rates' \\('fast', 'slow'\\)"):
        s.read_time("medium")
    page = files["generated/docs/scenarios/Growth.md"]
    assert "## Arguments" in page and "method `growth(height, width)` → number" in page
    assert r"\mathrm{growth}\left(h, w\right) = \frac{h w}{\mathrm{area}}" in page
    assert "method `per_request(requests=None)`" in page and "when not given, users" in page
    js = files["generated/js/growth.mjs"]
    assert "height" in js and "requests" in js  # the JavaScript evaluator takes the arguments too


def test_an_argument_defaulting_to_an_input():
    """context_fit(requests=None) in the reference: the argument, else the input `users`."""
    cls, _ = _generated()
    s = cls(base_height=2, base_width=5, size=1, rates={"a": 1}, users=4)
    assert s.per_request() == 2.5 and s.per_request(5) == 2 and s.per_request(requests=2) == 5
    with pytest.raises(MissingInputError, match="users"):
        s.variant(users=None).per_request()
    assert s.variant(users=None).per_request(10) == 1


def test_numpy_numbers_arrays_and_other_units():
    s = Scenarios.Gpt2XlChatDecodeBatchesH100
    assert s.step_time(np.int64(8)) == s.step_time(8)
    assert s.max_batch_within(np.float64(20.0)) == s.max_batch_within(Q_(20_000, "µs")) == 203
    times = s.step_time([1, 8]).to("ms").magnitude  # a list is an array of arguments
    assert times.tolist() == pytest.approx([s.step_time(1).magnitude, s.step_time(8).magnitude], rel=1e-15)
    grid = s.step_bytes(np.array([[1, 2], [3, 4]]))
    assert grid.shape == (2, 2)
    with pytest.raises(ScenarioInputError, match="'b'"):
        s.step_bytes(np.array([1, -1]))
    with pytest.raises(ScenarioInputError, match=r"argument 'tpot' got 20 B \(\[data\]\); expected a quantity of \[time\]"):
        s.max_batch_within(Q_(20, "byte"))
    with pytest.raises(ScenarioInputError, match="not a whole number"):
        s.step_bytes(2.5)


def test_bound_methods_are_values():
    s = Scenarios.TensorParallelExchange1GB
    method = s.transfer_time
    assert pickle.loads(pickle.dumps(method))("NVLink") == method("NVLink")
    assert method == Scenarios.TensorParallelExchange1GB.transfer_time and hash(method) == hash(s.transfer_time)
    assert "transfer_time(link)" in repr(method) and "a key of 'links'" in method.__doc__


def test_the_gradient_in_an_argument():
    """d/db* of (p − 1)(1 − b*)/b* = −(p − 1)/b*²: −300 for p = 4 at b* = 0.1."""
    from generated.pipeline_schedule import gradient

    d = gradient(**Scenarios.GPipeFourStageWalkthrough._args, target=0.1)["microbatches_for_bubble"]
    assert d["target"] == pytest.approx(-300, rel=1e-12) and d["stages"] == pytest.approx(9, rel=1e-12)


def test_declaration_refusals():
    def scenario(**outputs):
        namespace = type(Scenario).__prepare__("Bad", (Scenario,))
        namespace["__module__"] = __name__
        for name, value in outputs.items():
            namespace[name] = value(namespace) if callable(value) else value
        return type(Scenario)("Bad", (Scenario,), namespace)

    with pytest.raises(DeclarationError, match="argument x is read by no output"):
        scenario(x=Argument(positive=True), y=Input(positive=True), z=lambda n: Output(n["y"] * 2))
    with pytest.raises(DeclarationError, match="only a top-level scalar output can be a method"):
        scenario(xs=ListInput(positive=True), x=Argument(positive=True),
                 y=lambda n: PerItem(n["xs"][i] * n["x"], (i, 0, Len(n["xs"]) - 1)))
    with pytest.raises(DeclarationError, match="reads a method argument"):
        scenario(x=Argument(positive=True), y=lambda n: Output(n["x"] * 2),
                 r=lambda n: Require(n["x"] < 3, "x below 3"))
    with pytest.raises(DeclarationError, match="not a keyed ListInput"):
        scenario(xs=ListInput(positive=True), k=lambda n: Argument(key_of=n["xs"]))
    with pytest.raises(DeclarationError, match="a key has no unit or domain"):
        Argument("s", key_of=sympy.IndexedBase("links"))
