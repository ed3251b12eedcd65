"""A ``Fits`` whose condition reads a method's argument (symbolic.model.feasibility, symbolic.runtime.methods):
it is a method itself, and every call of a method it guards checks it at that call's arguments: an
``InfeasibleError`` naming the argument, need and have for a number, NaN in the elements that fail for an
array. A small scenario declared here is rendered and its generated class run."""

from __future__ import annotations

import numpy as np
import pytest

from symbolic.codegen.render import render_all
from symbolic.model import Argument, Fits, Input, Output, Scenario
from symbolic.runtime.errors import InfeasibleError
from symbolic.scenarios.discover import ScenarioModule


class Shelf(Scenario):
    """Boxes on a shelf: the load of n boxes, the time to fill it, and whether they fit."""

    capacity = Input("kg", positive=True, symbol="C", doc="What the shelf holds.")
    bracket = Input("kg", positive=True, symbol="K", doc="What its brackets hold.")
    frame = Input("kg", positive=True, symbol="F", doc="The shelf's own weight.")
    box = Input("kg", positive=True, symbol="m", doc="One box.")
    rate = Input("kg/s", positive=True, symbol="r", doc="How fast boxes are loaded.")
    n = Argument(integer=True, nonnegative=True, example=3, symbol="n", doc="Boxes on the shelf.")
    load = Output(frame + n * box, "kg", doc="The frame and n boxes.")
    fill_time = Output(n * box / rate, "s", doc="Time to load n boxes.")
    per_second = Output(n / fill_time, "1/s", doc="Boxes loaded per second.")
    spare = Output(capacity - frame, "kg", doc="What the shelf holds beside its frame.")
    frame_fits = Fits(frame <= bracket, "the frame must fit on its brackets", unit="kg", guards=(spare,))
    boxes_fit = Fits(load <= capacity, "the frame and the boxes must fit on the shelf", unit="kg",
                     guards=(fill_time, spare))


def _shelf() -> type:
    files = render_all([ScenarioModule("shelf_boxes", "runs", Shelf.model, ())])
    namespace: dict = {}
    exec(compile(files["generated/shelf_boxes.py"], "generated/shelf_boxes.py", "exec"), namespace)  # noqa: S102
    return namespace["Shelf"]


def test_a_fits_of_an_argument_is_a_method_and_guards_per_call():
    cls = _shelf()
    # capacity 100 kg, frame 10 kg, boxes of 7 kg: 10 + 12·7 = 94 kg fits, 10 + 13·7 = 101 kg does not
    s = cls(capacity=100, bracket=50, frame=10, box=7, rate=2)
    assert "boxes_fit" in cls._methods and "boxes_fit_need" in cls._methods and "boxes_fit_have" in cls._outputs
    assert s.boxes_fit(12) is True and s.boxes_fit(13) is False
    assert s.boxes_fit_need(13).to("kg").magnitude == 101 and s.boxes_fit_have.to("kg").magnitude == 100
    assert s.fill_time(12).to("s").magnitude == pytest.approx(42.0, rel=1e-15)  # 12·7 kg at 2 kg/s
    assert s.per_second(12).to("1/s").magnitude == pytest.approx(12 / 42, rel=1e-15)  # reads fill_time: guarded
    assert s.load(13).to("kg").magnitude == 101  # the need side itself is not guarded
    for method in ("fill_time", "per_second"):
        with pytest.raises(InfeasibleError, match=rf"'{method}\(n=13\)' does not exist.*boxes must fit on the "
                                                  r"shelf, but it needs 101 kg and has 100 kg \(capacity=100 kg, "
                                                  r"frame=10 kg, box=7 kg\); 'boxes_fit' is False"):
            getattr(s, method)(13)
    assert s.spare.to("kg").magnitude == 90  # reads no argument: the instance has it, the per-call Fits skipped
    assert s.evaluate()["boxes_fit"] is None and s.evaluate()["frame_fits"] == 1


def test_an_array_argument_is_nan_where_it_does_not_fit():
    s = _shelf()(capacity=100, bracket=50, frame=10, box=7, rate=2)
    times = s.fill_time(np.array([1, 12, 13, 20])).to("s").magnitude  # n·7/2 s for n ≤ 12
    assert times[:2].tolist() == [3.5, 42.0] and np.isnan(times[2:]).all()
    assert s.boxes_fit([12, 13]).tolist() == [True, False]
    assert s.fill_time([1, 2]).to("s").magnitude.tolist() == [3.5, 7.0]  # all fit: nothing masked


def test_the_instance_fits_is_checked_before_the_argument():
    # a 60 kg frame on 50 kg brackets: refused whatever n, by the instance's Fits
    s = _shelf()(capacity=100, bracket=50, frame=60, box=7, rate=2)
    assert s.frame_fits is False and s.boxes_fit(1) is True
    with pytest.raises(InfeasibleError, match="'spare' does not exist.*brackets"):
        _ = s.spare
    with pytest.raises(InfeasibleError, match=r"'fill_time\(n=6\)' does not exist.*needs 102 kg"):  # 60 + 6·7
        s.fill_time(6)
    assert s.fill_time(5).to("s").magnitude == pytest.approx(17.5, rel=1e-15)  # 60 + 35 = 95 kg fits: 35/2 s


def test_a_fits_side_reads_no_guarded_output():
    from symbolic.model.feasibility import guarded_outputs
    from symbolic.runtime.errors import DeclarationError

    class _Loop(Scenario):
        capacity = Input("kg", positive=True)
        box = Input("kg", positive=True)
        n = Argument(integer=True, nonnegative=True, example=1)
        load = Output(n * box, "kg", doc="n boxes.")
        fits = Fits(load <= capacity, "boxes on the shelf", unit="kg", guards=(load,))

    with pytest.raises(DeclarationError, match="Fits fits reads fits_need, which exists only under fits"):
        guarded_outputs(_Loop.model)
