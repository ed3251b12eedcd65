"""Whatever comes in, what goes out is right: numeric types, list types, and no aliasing.

Each test covers a class of inputs or of returned values over every registry instance, so
a new scenario is covered without editing this file.
"""

from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import generated
from generated import InputTypeError, MlsysymError, Q_, ScenarioBase, ScenarioInputError, Scenarios
from symbolic.runtime.validation import ListSpec

INSTANCES = [getattr(Scenarios, key) for key in Scenarios]
BASES = {}
for _instance in INSTANCES:
    BASES.setdefault(type(_instance), _instance)
NUMERIC = [(cls, spec) for cls in generated.SCENARIO_CLASSES for spec in cls._specs if not isinstance(spec, ListSpec)]
LISTS = [(cls, spec) for cls in generated.SCENARIO_CLASSES for spec in cls._specs  # keyed lists are dicts
         if isinstance(spec, ListSpec) and not spec.keyed]


# -- numeric types ----------------------------------------------------------------------
NUMERIC_TYPES = [int, float, np.float64, np.float32, np.int64, np.int32, Fraction, Decimal,
                 lambda v: Q_(v, "dimensionless")]


@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_every_numeric_type_becomes_a_builtin_number_in_the_declared_unit(data):
    """numpy scalars, Fractions, Decimals (and Quantities of them) are read as the same
    value as a builtin number, and what the evaluator sees is a builtin int or float."""
    cls, spec = data.draw(st.sampled_from(NUMERIC))
    low = 0 if spec.minimum is None else spec.minimum
    value = data.draw(st.integers(int(low) + 1, 10**6)) if spec.integer else data.draw(
        st.floats(low, 1e6, allow_subnormal=False).filter(lambda x: x > low or not spec.strict))
    convert = data.draw(st.sampled_from([t for t in NUMERIC_TYPES[:-1] if spec.integer or t not in (np.int64, np.int32)
                                         or float(value).is_integer()]))
    try:
        typed = convert(value)
    except (OverflowError, ValueError):
        return
    if spec.unit:
        typed = data.draw(st.sampled_from([typed, Q_(typed, spec.unit)]))
    base = BASES[cls]
    try:
        reference = base.variant(**{spec.name: float(convert(value)) if not spec.integer else int(value)})
    except MlsysymError:
        return
    scenario = base.variant(**{spec.name: typed})
    got = scenario._args[spec.name]
    assert type(got) in (int, float), type(got)
    assert got == pytest.approx(reference._args[spec.name], rel=1e-6)


@pytest.mark.parametrize("kind", [np.float64, np.longdouble, float, Decimal, Fraction])
def test_no_output_is_ever_inf_or_nan_whatever_the_input_type(kind):
    """A value near the top of double range overflows in the arithmetic: a typed error on
    reading, never an inf output (numpy scalars used to slip past the check)."""
    step = Scenarios.MnistTwoLayerTrainingStepOnH100
    scenario = step.variant(dispatch=kind(1e308), forward_ops=1000)
    with pytest.raises(ScenarioInputError, match="overflow"):
        scenario.host.host_time  # noqa: B018 (reading is the test)
    with pytest.raises(ScenarioInputError, match="overflow"):
        scenario.evaluate()


def test_output_check_covers_any_number_type():
    """The check of the outputs is not limited to builtin floats."""
    from symbolic.runtime.scenario import _check_finite

    scenario = Scenarios.SmallKernelDispatch
    for bad in (np.float64("inf"), np.float32("nan"), Decimal("Infinity"), 10**400, [1.0, np.float64("nan")],
                {"x": np.float64("-inf")}):
        with pytest.raises(ScenarioInputError):
            _check_finite(scenario, {"out": bad}, "")
    _check_finite(scenario, {"out": np.float64(2.0), "text": "fine", "none": None}, "")


# -- list inputs ------------------------------------------------------------------------
@pytest.mark.skipif(not LISTS, reason="no list inputs")
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_list_inputs_accept_ordered_sequences_only(data):
    cls, spec = data.draw(st.sampled_from(LISTS))
    low = 1 if spec.minimum is None else int(spec.minimum) + 1  # inside the list's own domain
    high = 5000 if spec.maximum is None else min(5000, int(spec.maximum) - 1)
    values = data.draw(st.lists(st.integers(low, high), min_size=max(spec.min_length, 2), max_size=6, unique=True))
    base = BASES[cls]
    reference = base.variant(**{spec.name: values})
    for same in (tuple(values), np.array(values), np.array(values, dtype=np.float64)):
        assert base.variant(**{spec.name: same}) == reference
    for unordered in (set(values), frozenset(values), dict.fromkeys(values), bytes(v % 256 for v in values),
                      bytearray(v % 256 for v in values), iter(values), np.array([values, values]),
                      ",".join(map(str, values))):
        with pytest.raises(InputTypeError, match=spec.name):
            base.variant(**{spec.name: unordered})


# -- no aliasing ------------------------------------------------------------------------
def _vandalise(value):
    """Change every mutable container reachable from ``value``, in place."""
    if isinstance(value, dict):
        for key in list(value):
            _vandalise(value[key])
            value[key] = "vandalised"
        value["extra"] = 1
    elif isinstance(value, list):
        for item in value:
            _vandalise(item)
        value.append("vandalised")
        value[0] = "vandalised"
    elif isinstance(value, np.ndarray) and value.flags.writeable:
        value[...] = 0


def _snapshot(scenario: ScenarioBase):
    from symbolic.runtime.analysis import flat_outputs

    return repr(flat_outputs(scenario, everything=True)), repr(scenario.inputs()), repr(scenario)


@pytest.mark.parametrize("scenario", INSTANCES, ids=[type(i).__name__ + ":" + i.name[:30] for i in INSTANCES])
def test_nothing_returned_aliases_the_instance(scenario):
    """Mutating whatever an instance hands out (evaluate(), outputs(), inputs(), tables,
    lists, group fields) leaves the instance, a process-wide registry entry, unchanged."""
    before = _snapshot(scenario)
    _vandalise(scenario.evaluate())
    _vandalise(scenario.outputs())
    _vandalise(scenario.inputs())
    for value in scenario.outputs().values():
        _vandalise(value)
        if hasattr(value, "fields") and not isinstance(value, ScenarioBase):
            fields = value.fields()
            for field in list(fields.values()):
                _vandalise(field)
            _vandalise(fields)
        if isinstance(value, ScenarioBase):
            _vandalise(value.evaluate())
            _vandalise(value.inputs())
    for name in scenario.input_names():
        _vandalise(getattr(scenario, name))
    assert _snapshot(scenario) == before


def test_sweep_results_are_read_only():
    from symbolic.runtime.sweep import sweep

    out = sweep(Scenarios.SmallKernelDispatch, {"dispatch": [1.0, 2.0]})
    with pytest.raises(ValueError):
        out["host_time"][0] = 0.0
    with pytest.raises(ValueError):
        out.inputs["dispatch"][0] = 0.0


def test_huge_magnitudes_of_every_kind_are_typed_errors():
    step = Scenarios.SmallKernelDispatch
    for huge in (10**400, Fraction(10**400), Decimal("1e400"), Q_(10**400, "ms"), Q_(1e300, "Ms"),
                 np.float64(np.inf), -(10**400)):
        with pytest.raises(ScenarioInputError, match="dispatch"):
            step.variant(dispatch=huge)
    assert math.isfinite(step.variant(dispatch=Fraction(1, 3)).host_time.magnitude)
