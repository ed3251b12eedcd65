"""Fuzzing the class API: any value for any input raises only the project's errors, and every
output of an instance that builds is finite, and nonnegative where its declaration says so."""

from __future__ import annotations

import math
import os
from functools import lru_cache

import sympy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import generated
from generated import DatasetProfile, Datasets, Hardware, MlsysymError, Q_, ScenarioBase, Scenarios
from symbolic.codegen.discover import discover
from symbolic.closed import closed_forms
from symbolic.runtime.validation import ListSpec

# MLSYSYM_FUZZ_EXAMPLES=20000 for a long local run; CI runs the default.
EXAMPLES = int(os.environ.get("MLSYSYM_FUZZ_EXAMPLES", "600"))
BASES = {}
for _key in Scenarios:
    BASES.setdefault(type(getattr(Scenarios, _key)), getattr(Scenarios, _key))

UNITS = ["byte", "MB", "GiB", "flop", "TFLOP/s", "TB/s", "µs", "ms", "s", "pJ/byte", "pJ/flop", "count", "GB/s"]
numbers = st.one_of(
    st.integers(-10, 10**7), st.integers(-(10**30), 10**30),
    st.floats(allow_nan=True, allow_infinity=True), st.floats(-1e6, 1e6),
)
values = st.one_of(
    numbers,
    st.builds(Q_, st.floats(-1e6, 1e9, allow_nan=False), st.sampled_from(UNITS)),
    st.text(max_size=5), st.booleans(), st.none(),
    st.lists(st.integers(-3, 5000), max_size=10), st.lists(numbers, max_size=4),
    st.sampled_from([Hardware.Cloud.H100, Hardware.Mobile.iPhone15Pro, Hardware.Cloud.ReferenceCPU,
                     Datasets.MNIST, Datasets.CriteoKaggle, DatasetProfile(name="d", training_examples=7),
                     Scenarios.MnistDenseNetwork, Scenarios.SmallKernelDispatch, "fp32", "int8", "fp16"]),
)


@lru_cache(maxsize=None)
def nonnegative_by_declaration(class_name: str) -> frozenset[str]:
    """Outputs whose closed form sympy proves nonnegative from the input domains."""
    model = next(m.model for m in discover() if m.model.name == class_name)
    forms = closed_forms(model)
    return frozenset(name for name, form in forms.items() if isinstance(form, sympy.Expr) and form.is_nonnegative)


def touch(scenario: ScenarioBase) -> None:
    """Read every output, deeply (group fields, contained scenarios), as a user could."""
    for value in scenario.outputs().values():
        if isinstance(value, ScenarioBase):
            touch(value)
        elif hasattr(value, "fields"):
            value.fields()


def check_outputs(scenario: ScenarioBase) -> None:
    nonnegative = nonnegative_by_declaration(type(scenario).__name__)
    for path, value in _numbers(scenario.evaluate()):
        assert math.isfinite(value), (path, value)
        if path in nonnegative:
            assert value >= 0, (path, value)


def _numbers(tree, prefix=""):
    for key, value in tree.items():
        path = f"{prefix}{key}"
        if isinstance(value, dict):
            yield from _numbers(value, path + ".")
        elif isinstance(value, list):
            yield from ((path, v) for v in value)
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            yield path, value


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    cls=st.sampled_from(generated.SCENARIO_CLASSES),
    data=st.data(),
)
def test_constructors_and_variant_raise_only_project_errors(cls, data):
    base = BASES[cls]
    names = list(cls.input_names()) + ["not_an_input"]
    changes = data.draw(st.dictionaries(st.sampled_from(names), values, max_size=3))
    for build in (lambda: base.variant(**changes), lambda: cls(**{**base._given, **changes})):
        try:
            scenario = build()
        except MlsysymError:
            continue
        try:
            touch(scenario)
        except MlsysymError as error:
            assert "overflow" in str(error), error  # a huge or tiny input is reported, not inf or 0/0
            continue
        check_outputs(scenario)


@settings(max_examples=EXAMPLES // 2, deadline=None)
@given(cls=st.sampled_from(generated.SCENARIO_CLASSES), data=st.data())
def test_valid_random_values_give_finite_outputs(cls, data):
    """Values drawn inside each domain always build, and every output is finite."""
    base = BASES[cls]
    changes = {}
    for spec in cls._specs:
        if data.draw(st.booleans()):
            low = 0 if spec.minimum is None else spec.minimum
            high = 1e6 if spec.maximum is None else spec.maximum
            if isinstance(spec, ListSpec) and spec.keyed:
                entries = st.floats(low, high).filter(lambda x, s=spec, lo=low: not (s.strict and x == lo))
                keys = base._given[spec.aligned_to] if spec.aligned_to else None
                changes[spec.name] = (data.draw(st.fixed_dictionaries({k: entries for k in keys})) if keys is not None
                                      else data.draw(st.dictionaries(st.text(max_size=4), entries,
                                                                     min_size=spec.min_length, max_size=6)))
            elif isinstance(spec, ListSpec):
                changes[spec.name] = data.draw(st.lists(st.integers(max(1, int(low)), 10**5), min_size=spec.min_length,
                                                        max_size=9))
            elif spec.integer:
                changes[spec.name] = data.draw(st.integers(int(low) + (1 if spec.strict else 0),
                                                           int(high) - (1 if spec.strict_maximum and high == int(high) else 0)))
            else:
                changes[spec.name] = data.draw(st.floats(low, high).filter(
                    lambda x, s=spec, lo=low, hi=high: not (s.strict and x == lo) and not (s.strict_maximum and x == hi)))
    try:
        scenario = base.variant(**changes)
    except MlsysymError as error:  # cross-input conditions (e.g. a dataset smaller than the batch)
        assert "must" in str(error), error
        return
    try:
        touch(scenario)
    except MlsysymError as error:
        assert "overflow" in str(error), error  # e.g. a 5e-324 µs device time
        return
    check_outputs(scenario)
