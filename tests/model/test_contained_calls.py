"""A public contained scenario (``Sub``) is called, not inlined: its generated evaluator runs once
per containing evaluation, and the container's gradient chains the contained gradient. A private
one is a step: only what the container reads is computed, shared between its copies."""

from __future__ import annotations

import pytest
from sympy import Sum

import generated.mlp_training_step
from generated import HostDispatchScenario, Scenarios
from symbolic.scenarios.discover import ScenarioModule
from symbolic.codegen.render import render_all
from symbolic.model.functions import Len, index
from symbolic.model import Input, ListInput, Output, PerItem, Scenario, Sub
from symbolic.runtime.errors import DeclarationError

k = index("k", "entry")


def _source(module: str) -> str:
    return open(f"generated/{module}.py", encoding="utf-8").read()


def test_the_container_calls_the_contained_evaluator_and_repeats_none_of_its_steps():
    source = _source("mlp_training_step")
    evaluate = source.split("def gradient(")[0].split("def evaluate(")[1]
    assert evaluate.count("host_dispatch_evaluate(") == 1
    assert "host__dispatch_time =" not in source and "host__host_time =" not in source  # no inlined step
    assert "from generated.host_dispatch import evaluate as host_dispatch_evaluate" in source
    assert "host_dispatch_gradient(" in source.split("def gradient(")[1]



def test_a_private_contained_scenario_computes_only_what_the_container_reads_once():
    """The epoch model reads the dense network's intensity, steps, FLOPs and layers at its batch
    and its intensity at batch 1: no per-layer list, no text, and the batch-independent steps
    (weights) once for both copies; no call of the whole network evaluator."""
    epoch = _source("epoch_overhead").split("def gradient(")[0].split("return {")[0]
    assert "dense_network_evaluate" not in epoch
    assert "weights_per_layer" not in epoch and "architecture" not in epoch
    assert "single__result__weights" not in epoch and "single__result__parameter_bytes" not in epoch
    assert "batched__result__parameter_bytes =" in epoch  # computed once, read by both copies


def test_the_call_receives_the_bound_inputs_and_its_result_is_what_the_container_returns(monkeypatch):
    calls = []
    original = generated.mlp_training_step.host_dispatch_evaluate

    def spy(**arguments):
        calls.append(arguments)
        return original(**arguments)

    monkeypatch.setattr(generated.mlp_training_step, "host_dispatch_evaluate", spy)
    step = Scenarios.MnistTwoLayerTrainingStepOnH100
    result = type(step)._evaluate(**step._args)
    (arguments,) = calls
    args = step._args
    # bound as declared: one Python entry per forward operator plus backward(), one kernel per operator
    assert arguments["ops_per_block"] == args["forward_ops"] + 1
    assert arguments["launches_per_block"] == args["forward_ops"] + args["backward_ops"]
    assert arguments["blocks"] == 1 and arguments["dispatch"] == args["dispatch"]
    assert arguments["device_time"] == result["compute_time"] + result["memory_time"]
    # and the contained scenario built on its own from those inputs gives the same outputs
    alone = HostDispatchScenario(**arguments)
    for name in ("host_time", "overhead_ratio", "host_share", "speedup_limit"):
        assert result["host"][name] == alone.evaluate()[name]



def test_the_chained_gradient_is_the_total_derivative_through_the_call():
    """d host.host_share / d batch_size moves only through device_time = compute + memory:
    the contained gradient's d share/d device_time times d device_time/d batch_size."""
    step = Scenarios.MnistTwoLayerTrainingStepOnH100
    cls = type(step)
    gradient = cls._gradient(**step._args)
    result = cls._evaluate(**step._args)
    host, device = result["host"]["host_time"], result["host"]["device_time"]
    d_device = gradient["compute_time"]["batch_size"] + gradient["memory_time"]["batch_size"]
    expected = -host / (host + device) ** 2 * d_device  # d/dT of H/(H + T), by hand
    assert gradient["host.host_share"]["batch_size"] == pytest.approx(expected, rel=1e-12)
    assert "batch_size" not in gradient["host.per_op_cost"]  # zero stays left out, as before


class CalledInner(Scenario):
    """A contained scenario for the declaration checks."""

    a = Input("s", positive=True, doc="A time.")
    w = ListInput(positive=True, min_length=1, doc="Some numbers.")
    twice = Output(2 * a, "s", doc="Twice a.")
    scaled = PerItem(a * w[k], (k, 0, Len(w) - 1), "s", doc="a times each number.")


def _render(cls: type) -> None:
    render_all([ScenarioModule(cls.model.name.lower(), "framework", cls.model, ())])


def test_a_contained_scenario_bound_to_an_optional_input_is_refused_by_name():
    class GuardedOuter(Scenario):
        """Binds the contained input to an optional one."""

        maybe = Input("s", positive=True, default=None, doc="Optional.")
        numbers = ListInput(positive=True, min_length=1, doc="Numbers.")
        inner = Sub(CalledInner, a=maybe, w=numbers)
        out = Output(inner.twice, "s", if_missing="none", doc="Through the call.")

    with pytest.raises(DeclarationError, match=r"Sub inner binds an input to a value that needs the optional input\(s\) "
                                               r"maybe; a contained scenario is called with every input given"):
        _render(GuardedOuter)


def test_a_derivative_through_a_contained_list_output_is_refused():
    class ListOuter(Scenario):
        """Sums a list the contained scenario returns."""

        b = Input("s", positive=True, doc="B.")
        numbers = ListInput(positive=True, min_length=1, doc="Numbers.")
        inner = Sub(CalledInner, a=b, w=numbers)
        total = Output(Sum(inner.scaled[k], (k, 0, Len(numbers) - 1)), "s", doc="The sum.")

    with pytest.raises(DeclarationError, match="total: reads a list output of a contained scenario"):
        _render(ListOuter)


def test_reading_a_step_the_contained_evaluator_does_not_return_is_refused():
    class Middle(Scenario):
        """Contains CalledInner privately: its steps are not among Middle's outputs."""

        c = Input("s", positive=True, doc="C.")
        numbers = ListInput(positive=True, min_length=1, doc="Numbers.")
        inner = Sub(CalledInner, public=False, a=c, w=numbers)
        out = Output(inner.twice + c, "s", doc="Through the call.")

    class Outer(Scenario):
        """Reads a hidden step of Middle."""

        d = Input("s", positive=True, doc="D.")
        numbers = ListInput(positive=True, min_length=1, doc="Numbers.")
        middle = Sub(Middle, c=d, numbers=numbers)
        out = Output(getattr(middle, "inner.twice") * 3, "s", doc="A hidden step of the contained one.")

    with pytest.raises(DeclarationError, match=r"reads middle\.inner\.twice, a hidden step of the contained scenario middle"):
        _render(Outer)


class Leaf(Scenario):
    """The innermost of two levels of public containment."""

    x = Input("ms", positive=True, doc="A time.")
    doubled = Output(2 * x, "s", doc="Twice x, in seconds.")


class Branch(Scenario):
    """Contains Leaf publicly, at 3 times its own input."""

    y = Input("ms", positive=True, doc="A time.")
    leaf = Sub(Leaf, x=3 * y)
    total = Output(leaf.doubled + y, "s", doc="The leaf's value plus y.")


class Tree(Scenario):
    """Contains Branch publicly: two levels of calls."""

    z = Input("s", positive=True, doc="A time.")
    branch = Sub(Branch, y=z)
    scaled = Output(branch.total * 10, "min", doc="Ten times the branch total.")


def test_two_levels_of_calls_evaluate_and_differentiate_exactly():
    """Tree calls Branch, which calls Leaf: values and chained derivatives by hand."""
    from symbolic.codegen.python import evaluator_of
    from symbolic.codegen.render import _compiled_contained

    source = evaluator_of(Tree.model)
    assert [function for _, function in source.calls] == ["evaluate", "gradient"]  # Branch's, by module name
    functions = _compiled_contained(Tree.model)
    z = 0.5  # s
    result = functions["evaluate"](z=z)
    # y = z = 500 ms; leaf.x = 1500 ms; doubled = 3 s; total = 3.5 s; scaled = 35 s = 7/12 min
    assert result["branch"]["leaf"]["doubled"] == pytest.approx(3.0, rel=1e-15)
    assert result["branch"]["total"] == pytest.approx(3.5, rel=1e-15)
    assert result["scaled"] == pytest.approx(35 / 60, rel=1e-15)
    gradient = functions["gradient"](z=z)
    # d total [s] / d z [s] = 6 + 1 = 7; d scaled [min] / d z [s] = 70/60; d doubled [s] / d z [s] = 6
    assert gradient["branch.total"]["z"] == pytest.approx(7, rel=1e-15)
    assert gradient["scaled"]["z"] == pytest.approx(70 / 60, rel=1e-15)
    assert gradient["branch.leaf.doubled"]["z"] == pytest.approx(6, rel=1e-15)
