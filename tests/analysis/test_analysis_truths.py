"""Analysis says what is true: derivatives are total (an input that follows its default
moves with the inputs it follows), elasticities are never nan or inf (undefined ones are
explained), solve tells "every value" from "no value" and refuses non-finite targets."""

from __future__ import annotations

import math

import pytest
import sympy

from generated import Q_, ScenarioInputError, Scenarios
from symbolic.analysis import derive, solving
from symbolic.runtime.analysis import compare, flat_outputs, sensitivity
from symbolic.runtime.paths import leaves
from symbolic.runtime.validation import ListSpec

INSTANCES = [getattr(Scenarios, key) for key in Scenarios]


def _floored(scenario) -> set[str]:
    """Outputs whose closed form has a floor or a ceiling (their derivative is the trend, not the step)."""
    model = derive.model_of(type(scenario).__name__)
    return {q.name for q in model.quantities if q.kind == "scalar" and not q.hidden
            and derive.closed_form(model, q.name, simplify=False).has(sympy.floor, sympy.ceiling)}


@pytest.mark.parametrize("scenario", INSTANCES, ids=[i.name[:40] for i in INSTANCES])
def test_generated_gradient_is_the_total_derivative(scenario):
    """Every derivative equals a central finite difference of the evaluator, for every
    scalar input, including inputs the caller did not give and that follow a default
    (launches_per_block = ops_per_block used to be missed: d launch_ratio / d ops_per_block = 0)."""
    cls = type(scenario)
    args = scenario._args
    gradient = cls._gradient(**args)
    floored = _floored(scenario)
    base = dict(_flat(cls, cls._evaluate(**args)))
    numeric = [name for name, value in args.items() if isinstance(value, (int, float)) and value]
    list_names = {s.name for s in cls._specs if isinstance(s, ListSpec)}
    for name in numeric:
        if name in list_names:
            continue
        h = abs(args[name]) * 1e-6
        up = dict(_flat(cls, cls._evaluate(**{**args, name: args[name] + h})))
        down = dict(_flat(cls, cls._evaluate(**{**args, name: args[name] - h})))
        for path, value in base.items():
            if path in floored:
                continue
            finite = (up[path] - down[path]) / (2 * h)
            got = gradient.get(path, {}).get(name, 0.0)
            scale = max(abs(finite), abs(value) / abs(args[name]), 1e-300)
            if abs(up[path] - value) > 0 and abs((up[path] - value) - (value - down[path])) > 1e-3 * abs(up[path] - value):
                continue  # a kink (Min/Max) right here: one-sided slopes differ
            assert abs(got - finite) <= 1e-4 * scale, (path, name, got, finite)


def _flat(cls, result):
    for path, value, _, kind in leaves(cls, result):
        if kind == "number" and isinstance(value, (int, float)):
            yield path, value


@pytest.mark.parametrize("scenario", INSTANCES, ids=[i.name[:40] for i in INSTANCES])
def test_sensitivity_never_returns_nan_or_inf(scenario):
    for output in flat_outputs(scenario):
        for row in sensitivity(scenario, output):
            for number in (row.derivative, row.elasticity):
                assert number is None or math.isfinite(number), (output, row)
            if row.elasticity is None:
                assert row.note, row


def test_an_undefined_elasticity_is_explained():
    """host_time is 0 when nothing is dispatched: any change is an infinite relative change."""
    idle = Scenarios.SmallKernelDispatch.variant(ops_per_block=0)
    rows = {r.input: r for r in sensitivity(idle, "host_time")}
    assert rows["ops_per_block"].elasticity is None and "output is 0" in rows["ops_per_block"].note
    assert rows["ops_per_block"].derivative == 15.0  # (10 + 5) µs per operation


def test_compare_from_zero_has_no_nan():
    idle = Scenarios.SmallKernelDispatch.variant(ops_per_block=0)
    _, changes = compare(idle, Scenarios.SmallKernelDispatch)
    by_output = {c.output: c for c in changes}
    assert by_output["host_time"].relative is None  # from 0: no finite relative change
    for change in changes:
        assert change.relative is None or math.isfinite(change.relative)
        assert all(math.isfinite(share) for _, share in change.attribution)


def test_solve_holds_for_every_value():
    step = Scenarios.MnistTwoLayerTrainingStepOnH100
    every = solving.solve(step, "batch_size", "parameters", 101770)
    assert every.every_value and not every.values and "holds for every batch_size" in every.notes[0]
    same = solving.solve(step, "batch_size", "compute_time", "compute_time")
    assert same.every_value and "identically" in same.notes[0]
    assert solving.solve("HostDispatchScenario", "dispatch", "host_time", "host_time").every_value
    never = solving.solve(step, "batch_size", "parameters", 5)
    assert not never.every_value and not never.values and "does not depend on batch_size" in never.notes[0]
    assert "no real solution" not in " ".join(every.notes + never.notes)


@pytest.mark.parametrize("target", [math.nan, math.inf, -math.inf, Q_(math.nan, "GiB"), Q_(math.inf, "GiB"),
                                    None, [1], "nan GiB", "inf GiB", "1e999 GiB"])
def test_solve_refuses_non_finite_or_non_numeric_targets(target):
    with pytest.raises(derive.DerivationError):
        solving.solve(Scenarios.PhoneFullUpdateWorkingSet, "parameters", "total", target)


def test_solve_and_scaling_accept_an_instance_a_class_or_a_name():
    phone = Scenarios.PhoneFullUpdateWorkingSet
    by_instance = solving.solve(phone, "parameters", "total", Q_(8, "GiB")).values
    assert by_instance == [pytest.approx(2**33 / 36)]
    assert solving.solve(phone, "parameters", "total", Q_(8, "GiB"), symbolic=False).values == by_instance
    for subject in (phone, type(phone), "UpdateWorkingSetScenario"):
        assert derive.scaling(subject, "total").per_input["parameters"] == 1
    with pytest.raises(derive.DerivationError):
        derive.scaling(42, "total")


def test_compare_sees_no_change_in_a_keyed_input_given_in_another_key_order():
    """The same links in another order are the same inputs (the instances are equal), so
    compare lists no changed input, though the evaluator reads the entries in key order."""
    links = Scenarios.AlphaBetaHdrNdrSmallMessage
    reordered = links.variant(alphas=dict(reversed(list(links.alphas.items()))))
    assert reordered == links
    assert compare(links, reordered) == ({}, [])
    slower = links.variant(bandwidths={"NDR": 400, "HDR": 100})
    changed, _ = compare(links, slower)
    assert list(changed) == ["bandwidths"]


def test_compare_across_double_range_has_no_infinite_relative_change():
    """1e-300 µs -> 1e300 µs of dispatch: the ratio overflows; relative is None, as from 0, never inf."""
    step = Scenarios.MnistTwoLayerTrainingStepOnH100
    _, changes = compare(step.variant(dispatch=1e-300, launch=0), step.variant(dispatch=1e300, launch=0))
    by_output = {c.output: c for c in changes}
    assert by_output["host.dispatch_time"].relative is None
    for change in changes:
        assert change.relative is None or math.isfinite(change.relative)


def test_an_entry_of_a_list_output_is_named_as_such_by_sensitivity_and_explain():
    from generated import Scenarios
    from symbolic.analysis.derive import DerivationError, quantity
    from symbolic.analysis.derive import model_of
    from symbolic.runtime.analysis import sensitivity
    from symbolic.runtime.errors import ScenarioInputError

    with pytest.raises(ScenarioInputError, match=r"'result.crossovers' is a list output, and this takes one scalar "
                                                 r"output; it has no scalar numeric output"):
        sensitivity(Scenarios.AlphaBetaHdrNdrSmallMessage, "result.crossovers[NDR]")
    with pytest.raises(DerivationError, match=r"'result.times' is a list output"):
        quantity(model_of("AlphaBetaScenario"), "result.times[NDR][small]")
    with pytest.raises(ScenarioInputError, match="its numeric outputs: .*compute_time"):
        sensitivity(Scenarios.MnistTwoLayerTrainingStepOnH100, "zzz")


def test_compare_lists_list_outputs_unavailable_outputs_and_labels_that_changed():
    """compare read only scalar numbers: doubling every link listed no changed output though
    every transfer time halved, an output that became available (egress_rate given) was left
    out, the reverse was a KeyError, and a label was a number (bottleneck Memory -> Compute
    was 1 -> 0, "-100%")."""
    transfer = Scenarios.BufferTransfer10GB
    faster = transfer.variant(links={key: 2 * value for key, value in transfer._given["links"].items()})
    _, changes = compare(transfer, faster)
    by_output = {c.output: c for c in changes}
    times = by_output["result.times"]
    assert times.relative is None and times.attribution == ()
    assert times.before == {"HBM": pytest.approx(10 / 3350 * 1e3), "NVLink": pytest.approx(10 / 450 * 1e3),
                            "InfiniBand": pytest.approx(200.0), "PCIe": pytest.approx(156.25)}  # 10 GB / link, ms
    assert times.after == {key: pytest.approx(value / 2) for key, value in times.before.items()}
    priced = transfer.variant(egress_rate=Q_(0.09, "dollar/GB"))
    for a, b, before, after in ((transfer, priced, None, 0.9), (priced, transfer, 0.9, None)):
        (cost,) = [c for c in compare(a, b)[1] if c.output == "egress_cost"]
        assert (cost.before, cost.after, cost.relative) == (pytest.approx(before), pytest.approx(after), None)
    decode = Scenarios.Llama2_70B_DecodeTwoH100  # 70 GB of weights per device: it fits, its bottleneck exists
    (bottleneck,) = [c for c in compare(decode, decode.variant(batch_size=4096))[1] if c.output == "result.bottleneck"]
    assert (bottleneck.before, bottleneck.after, bottleneck.relative) == ("Memory", "Compute", None)


def test_sensitivity_of_an_unavailable_or_whole_list_output_says_which_it_is():
    """egress_cost needs egress_rate, not given in BufferTransfer10GB: it was 'no numeric output
    egress_cost', as if misspelt; a whole list output was not named as one either."""
    transfer = Scenarios.BufferTransfer10GB
    with pytest.raises(ScenarioInputError, match="output 'egress_cost' is unavailable at this instance"):
        sensitivity(transfer, "egress_cost")
    with pytest.raises(ScenarioInputError, match="'result.times' is a list output, and this takes one scalar output"):
        sensitivity(transfer, "result.times")
    priced = transfer.variant(egress_rate=Q_(0.09, "dollar/GB"))
    rows = {r.input: r for r in sensitivity(priced, "egress_cost")}  # c·r·S: elasticity 1 in each
    assert rows["egress_rate"].elasticity == pytest.approx(1.0) and rows["payload"].elasticity == pytest.approx(1.0)
