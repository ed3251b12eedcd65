"""Every input of every scenario against every bad value that applies: the right error, naming it.

The matrix is built from the generated classes' own specs, so a new scenario or input is
covered without editing this file.
"""

from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest

import generated
from generated import (
    DatasetProfile,
    Hardware,
    InputTypeError,
    MissingInputError,
    MlsysymError,
    Q_,
    ScenarioInputError,
    Scenarios,
)
from symbolic.runtime.validation import REQUIRED, ListSpec

# A valid instance of each class to vary one input at a time.
BASES = {}
for _key in Scenarios:
    BASES.setdefault(type(getattr(Scenarios, _key)), getattr(Scenarios, _key))


def _wrong_dimension(unit: str):
    """A Quantity of another dimension than ``unit``'s: a byte, or a flop where a byte would fit."""
    return Q_(1, "flop") if Q_(1, unit or "count").dimensionality in (Q_(1, "byte").dimensionality, {}) else Q_(1, "byte")


def bad_values(cls):
    """(input, bad value, expected error class) for every input of ``cls``."""
    rows = [("bogus_input", 1, ScenarioInputError)]
    for spec in cls._specs:
        if isinstance(spec, ListSpec) and spec.keyed:
            rows += [
                (spec.name, {"a": 0}, ScenarioInputError) if spec.strict else (spec.name, {"a": -5}, ScenarioInputError),
                (spec.name, {"a": math.nan}, ScenarioInputError),
                (spec.name, {"a": _wrong_dimension(spec.unit)}, ScenarioInputError),
                (spec.name, {"a": "3"}, InputTypeError),
                (spec.name, {1: 2}, InputTypeError),  # names are strings
                (spec.name, [1, 2], InputTypeError),
                (spec.name, None, MissingInputError),
            ]
            continue
        if isinstance(spec, ListSpec):
            rows += [] if spec.min_length == 0 else [(spec.name, [1] * (spec.min_length - 1), ScenarioInputError)]
            # entries are checked against the list's own domain: positive, nonnegative, integer
            rows += [(spec.name, [1] * spec.min_length + [0], ScenarioInputError)] if spec.strict else []
            rows += [(spec.name, [1] * spec.min_length + [-5], ScenarioInputError)] if spec.minimum is not None else []
            rows += [(spec.name, [1] * spec.min_length + [2.5], ScenarioInputError)] if spec.integer else []
            rows += [
                (spec.name, [1] * spec.min_length + [math.nan], ScenarioInputError),
                (spec.name, [1] * spec.min_length + ["3"], InputTypeError),
                (spec.name, "784,10", InputTypeError),
                (spec.name, b"\x10\x0a", InputTypeError),  # bytes are a sequence of ints, not a list input
                (spec.name, set(range(1, spec.min_length + 2)), InputTypeError),  # a set has no order
                (spec.name, frozenset({3}), InputTypeError),
                (spec.name, {784: 1, 10: 2}, InputTypeError),
                (spec.name, (n for n in [784, 10]), InputTypeError),  # a generator: read once, no length
                (spec.name, np.ones((2, 2)), InputTypeError),  # a 2-d array is not a list
                (spec.name, [1] * spec.min_length + [10**400], ScenarioInputError),
                (spec.name, 784, InputTypeError),
                (spec.name, None, MissingInputError),
            ]
            continue
        rows += [
            (spec.name, "12", InputTypeError),  # a string for a number
            (spec.name, True, InputTypeError),  # a bool for a number
            (spec.name, [1, 2], InputTypeError),
            (spec.name, math.nan, ScenarioInputError),
            (spec.name, math.inf, ScenarioInputError),
            (spec.name, -math.inf, ScenarioInputError),
            (spec.name, _wrong_dimension(spec.unit), ScenarioInputError),
            # beyond double range, in every numeric type: refused at the boundary, never OverflowError
            (spec.name, 10**400, ScenarioInputError),
            (spec.name, -(10**400), ScenarioInputError),
            (spec.name, Fraction(10**400, 3), ScenarioInputError),
            (spec.name, Decimal("1e400"), ScenarioInputError),
            (spec.name, Decimal("NaN"), ScenarioInputError),
            (spec.name, np.float64("nan"), ScenarioInputError),
            (spec.name, np.float32("inf"), ScenarioInputError),
            (spec.name, Q_(10**400, spec.unit or "count"), ScenarioInputError),
            (spec.name, Q_(float("nan"), spec.unit or "count"), ScenarioInputError),
            (spec.name, 1j, InputTypeError),
        ]
        if spec.default is REQUIRED:
            rows.append((spec.name, None, MissingInputError))
        if spec.integer:
            rows.append((spec.name, 2.5, ScenarioInputError))
        if spec.minimum is not None:
            rows.append((spec.name, spec.minimum - 1, ScenarioInputError))
            if spec.strict:
                rows.append((spec.name, spec.minimum, ScenarioInputError))
        if spec.maximum is not None:
            rows.append((spec.name, spec.maximum + 1, ScenarioInputError))
            if spec.strict_maximum:
                rows.append((spec.name, spec.maximum, ScenarioInputError))
    for node in cls._nodes:
        rows += [(node.name, "H100", InputTypeError), (node.name, Datasets_MNIST, InputTypeError)]
        if not node.optional:
            rows.append((node.name, None, MissingInputError))
    for precision in cls._precisions:
        rows += [(precision.name, 16, InputTypeError), (precision.name, "FP4", ScenarioInputError),
                 (precision.name, "no-such-precision", ScenarioInputError)]
    for choice in cls._choices:
        rows += [(choice.name, 16, InputTypeError), (choice.name, "no-such-option", ScenarioInputError)]
        if choice.default is REQUIRED:
            rows.append((choice.name, None, MissingInputError))
    for workload in cls._workloads:  # a name, another record type, nothing
        rows += [(workload.name, "Llama3_70B", InputTypeError), (workload.name, Hardware.Cloud.H100, InputTypeError),
                 (workload.name, None, MissingInputError)]
    for dataset in cls._datasets:
        rows += [(dataset.name, "MNIST", InputTypeError), (dataset.name, Hardware.Cloud.H100, InputTypeError)]
    for inner in cls._scenarios:
        rows += [(inner.name, Scenarios.SmallKernelDispatch, InputTypeError),
                 (inner.name, {"layer_widths": [1, 2]}, InputTypeError)]
        if not inner.optional:
            rows.append((inner.name, None, MissingInputError))
    return rows


Datasets_MNIST = generated.Datasets.MNIST
MATRIX = [(cls, *row) for cls in generated.SCENARIO_CLASSES for row in bad_values(cls)]


@pytest.mark.parametrize("cls", generated.SCENARIO_CLASSES, ids=lambda cls: cls.__name__)
def test_bad_value_raises_the_right_error_naming_the_input(cls):
    """Each row of the class's matrix, through variant() and the constructor; one test per class (a test
    per row cost pytest more than the checks: 5,586 of the suite's 9,490 tests), every failing row listed."""
    base = BASES[cls]
    failures = []
    for _, name, value, error in (row for row in MATRIX if row[0] is cls):
        for path, build in (("variant", lambda: base.variant(**{name: value})),  # noqa: B023 - called at once
                            ("constructor", lambda: cls(**{**base._given, name: value}))):  # noqa: B023
            row = f"{cls.__name__}.{name}={value!r} through {path}"[:120]
            try:
                build()
            except error as caught:
                message = str(caught)
                if cls.__name__ not in message or name not in message:
                    failures.append(f"{row}: the message does not name the class and input: {message}")
                elif not (isinstance(caught, MlsysymError) and isinstance(caught, ValueError)):
                    failures.append(f"{row}: {type(caught).__name__} is not an MlsysymError and a ValueError")
            except Exception as other:  # noqa: BLE001 - the wrong error is the finding
                failures.append(f"{row}: raised {type(other).__name__} ({other}), expected {error.__name__}")
            else:
                failures.append(f"{row}: accepted, expected {error.__name__}")
    assert not failures, "\n".join(failures)


def test_matrix_covers_every_input_of_every_scenario():
    covered = {(cls, name) for cls, name, _, _ in MATRIX}
    for cls in generated.SCENARIO_CLASSES:
        for name in cls.input_names():
            assert (cls, name) in covered, (cls.__name__, name)
    print(f"\n{len(MATRIX)} bad values over {len(covered)} inputs of {len(generated.SCENARIO_CLASSES)} scenarios")


def _required(cls):
    return ([s.name for s in cls._specs if s.default is REQUIRED]
            + [p.name for p in cls._precisions if p.default is REQUIRED]
            + [n.name for n in cls._nodes if not n.optional] + [s.name for s in cls._scenarios if not s.optional]
            + [w.name for w in cls._workloads] + [c.name for c in cls._choices if c.default is REQUIRED])


def test_missing_required_input_at_construction():
    for cls in generated.SCENARIO_CLASSES:
        base = BASES[cls]
        for name in _required(cls):
            kept = {k: v for k, v in base._given.items() if k != name}
            with pytest.raises(MissingInputError, match=f"required input was not given: '{name}'"):
                cls(**kept)


def test_a_missing_inputs_error_lists_every_missing_input():
    for cls in generated.SCENARIO_CLASSES:
        with pytest.raises(MissingInputError) as caught:
            cls()
        message = str(caught.value)
        for name in _required(cls):
            assert f"'{name}'" in message, (name, message)
        assert f"{len(_required(cls))} required inputs" in message or len(_required(cls)) == 1


def test_dataset_profile_and_node_validation():
    with pytest.raises(ScenarioInputError, match="training_examples"):
        DatasetProfile(name="x", training_examples=-1)
    with pytest.raises(InputTypeError, match="name"):
        DatasetProfile(name="", training_examples=1)


def test_none_for_an_input_with_a_numeric_default_names_the_default():
    from generated import Scenarios
    from symbolic.runtime.errors import MissingInputError

    with pytest.raises(MissingInputError) as refused:
        Scenarios.Gpt2XlBatch32ActivationsFp32.variant(ffn_multiple=None)
    assert str(refused.value) == ("ActivationMemoryScenario: input 'ffn_multiple' is None; expected an integer ≥ 1 "
                                  "(None is not its default, which is 4)")


def test_a_number_below_the_normal_double_range_is_refused_on_every_path():
    """5e-324 keeps one significant digit: an evaluator fed it returns a silently imprecise number."""
    import numpy as np

    from generated import Q_, Scenarios
    from symbolic.runtime.errors import ScenarioInputError
    from symbolic.runtime.search import search
    from symbolic.runtime.sweep import sweep

    base = Scenarios.AlphaBetaHdrNdrSmallMessage
    with pytest.raises(ScenarioInputError, match=r"got 5e-324, below the normal range of double precision"):
        base.variant(alphas={"HDR": 5e-324, "NDR": Q_(1.5, "µs")})
    step = Scenarios.MnistTwoLayerTrainingStepOnH100
    with pytest.raises(ScenarioInputError, match="dispatch"):
        step.variant(dispatch=Q_(1e-310, "s"))
    assert step.variant(dispatch=0).dispatch.magnitude == 0  # zero itself is exact
    with pytest.raises(ScenarioInputError, match="below the normal range"):
        sweep(step, {"dispatch": np.array([1.0, 1e-320])})
    found = search(step, {"dispatch": [1e-320, 1.0, 2.0]}, minimize="compute_time", top=1)
    assert (found.size, found.invalid) == (3, 1)  # skipped and counted, like any value outside the domain


def test_a_nonzero_number_that_would_become_zero_or_infinite_is_refused_on_every_path():
    """Decimal('1e-400'), a tiny Fraction, or a Quantity whose conversion to the declared unit
    under- or overflows would be read as 0 or inf: refused naming the input and the value."""
    from decimal import Decimal
    from fractions import Fraction

    import numpy as np

    from generated import Q_, Scenarios
    from symbolic.runtime.errors import ScenarioInputError
    from symbolic.runtime.sweep import sweep

    step = Scenarios.MnistTwoLayerTrainingStepOnH100
    budget = Scenarios.PeakPlannedTrainingBudget
    for value in (Decimal("1e-400"), Fraction(1, 10**400), Q_(Decimal("1e-400"), "µs")):
        with pytest.raises(ScenarioInputError, match="'dispatch' got .*below the normal range"):
            step.variant(dispatch=value)
        with pytest.raises(ScenarioInputError, match="below the normal range"):
            sweep(step, {"dispatch": [value]})
    hours = "'planned_device_hours' got 2.3×10⁻³⁰⁸ fs, which is below the range of double precision in h"
    with pytest.raises(ScenarioInputError, match=hours):
        budget.variant(planned_device_hours=Q_(2.3e-308, "fs"))  # 6e-327 h: no double but 0
    with pytest.raises(ScenarioInputError, match=hours):
        sweep(budget, {"planned_device_hours": Q_(np.array([1.0, 2.3e-308]), "fs")})
    beyond = "'dispatch' got 1×10³⁰⁵ h, which is beyond the range of double precision in µs"
    with pytest.raises(ScenarioInputError, match=beyond):
        step.variant(dispatch=Q_(1e305, "h"))
    with pytest.raises(ScenarioInputError, match=beyond):
        sweep(step, {"dispatch": Q_(np.array([1.0, 1e305]), "h")})
    assert budget.variant(planned_device_hours=Q_(0.0, "fs")).planned_device_hours.magnitude == 0
    from symbolic.runtime.search import search

    found = search(budget, {"planned_device_hours": [Q_(2.3e-308, "fs"), Q_(1, "h"), Q_(0, "fs")]},
                   minimize="planned_device_hours")  # in a search, such a value is an invalid point
    assert (found.size, found.invalid, [r.inputs["planned_device_hours"].magnitude for r in found.rows]) == (3, 1, [0, 1])


def test_a_whole_count_in_a_prefixed_unit_stays_exact_beyond_2_to_the_53():
    """pint converts ktoken to tokens by the float 1000.0; an int input times it would round
    to a double (2**60 + 1 ktoken came out 1000 tokens short): the scalar API keeps counts exact."""
    from generated import Q_, Scenarios

    run = Scenarios.Gpt2XlRunOnOneDgxH100
    assert run.variant(tokens_per_step=Q_(2**60 + 1, "ktoken"))._given["tokens_per_step"] == (2**60 + 1) * 1000
    assert run.variant(tokens_per_step=Q_(3, "Mtoken")).tokens_per_step == 3_000_000
    assert type(run.variant(tokens_per_step=Q_(3, "Mtoken"))._given["tokens_per_step"]) is int
    assert Scenarios.PhoneFullUpdateWorkingSet.variant(parameters=Q_(8, "Gparam")).parameters == 8e9


def test_negative_zero_is_read_as_zero_on_every_path():
    """-0.0 is inside a domain '≥ 0' but its sign would flow into outputs, shown as '-0 GB'."""
    import math

    import numpy as np

    from generated import Q_, Scenarios
    from symbolic.runtime.search import search
    from symbolic.runtime.sweep import sweep

    def positive_zero(number):
        return number == 0 and math.copysign(1.0, number) > 0

    transfer = Scenarios.BufferTransfer10GB
    for given in (-0.0, Q_(-0.0, "MB"), np.float64(-0.0)):
        zero = transfer.variant(payload=given)
        assert positive_zero(zero._given["payload"]) and positive_zero(zero.total_bytes.magnitude)
        assert positive_zero(zero.result.payload.magnitude)
    swept = sweep(transfer, {"payload": [-0.0, 1.0]})
    assert positive_zero(swept.inputs["payload"][0]) and positive_zero(swept["total_bytes"][0])
    found = search(transfer, {"payload": [-0.0]}, minimize="total_bytes")
    assert positive_zero(found.best.objectives["total_bytes"][0])
    assert positive_zero(Scenarios.AlphaBetaHdrNdrSmallMessage.variant(messages={"none": -0.0}).messages["none"].magnitude)


def test_numpy_0d_arrays_are_numbers_and_timedeltas_are_refused_clearly_on_every_path():
    """np.array(64) is one number; np.timedelta64 is registered as an integer but int() of it is a
    TypeError (class API), and float64 of a long list of them silently took 5 s as 5 µs (search)."""
    from decimal import Decimal

    import numpy as np

    from generated import Q_, Scenarios
    from symbolic.runtime.errors import InputTypeError
    from symbolic.runtime.search import search

    step = Scenarios.MnistTwoLayerTrainingStepOnH100
    assert step.variant(batch_size=np.array(64)) == step.variant(batch_size=64)
    assert step.variant(dispatch=Q_(np.array(1.0), "ms")).dispatch.magnitude == 1000
    for value in (np.timedelta64(5, "s"), Q_(np.timedelta64(5, "s"), "µs"), np.bool_(True), np.array(True)):
        with pytest.raises(InputTypeError, match="input 'dispatch' got .*; expected .*a number ≥ 0 µs"):
            step.variant(dispatch=value)
    for values in ([np.timedelta64(5, "s")], [np.timedelta64(5, "s")] * 1001, [1.0] * 1000 + [np.timedelta64(5, "s")]):
        with pytest.raises(InputTypeError, match="a value of 'dispatch' is timedelta64"):
            search(step, {"dispatch": values}, minimize="compute_time")
    found = search(step, {"dispatch": [Decimal("1e-400"), Decimal("0.5"), np.array(2.0)]}, minimize="host.host_time")
    assert (found.size, found.invalid, found.best.inputs["dispatch"].magnitude) == (3, 1, 0.5)
