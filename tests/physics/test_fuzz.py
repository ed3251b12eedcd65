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
from symbolic.scenarios.discover import discover
from symbolic.analysis.closed import closed_forms
from symbolic.runtime.validation import ListSpec

# MLSYSYM_FUZZ_EXAMPLES=20000 for a long local run; CI runs the default.
EXAMPLES = int(os.environ.get("MLSYSYM_FUZZ_EXAMPLES", "600"))
BASES = {}
for _key in Scenarios:
    BASES.setdefault(type(getattr(Scenarios, _key)), getattr(Scenarios, _key))

UNITS = ["byte", "MB", "GiB", "flop", "TFLOP/s", "TB/s", "µs", "ms", "s", "pJ/byte", "pJ/flop", "count", "GB/s"]
numbers = st.one_of(
    st.integers(-10, 10**7), st.integers(-(10**30), 10**30),
    st.floats(allow_nan=True, allow_infinity=True), st.floats(-1e6, 1e6, allow_subnormal=False),
)
values = st.one_of(
    numbers,
    st.builds(Q_, st.floats(-1e6, 1e9, allow_nan=False, allow_subnormal=False), st.sampled_from(UNITS)),
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
            # a huge or tiny input is reported, not inf or 0/0; so is one that puts an output outside its declared range
            assert "overflow" in str(error) or "outside its declared range" in str(error), error
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
                entries = st.floats(low, high, allow_subnormal=False).filter(lambda x, s=spec, lo=low: not (s.strict and x == lo))
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
                changes[spec.name] = data.draw(st.floats(low, high, allow_subnormal=False).filter(
                    lambda x, s=spec, lo=low, hi=high: not (s.strict and x == lo) and not (s.strict_maximum and x == hi)))
    try:
        scenario = base.variant(**changes)
    except MlsysymError as error:  # cross-input conditions (e.g. a dataset smaller than the batch)
        assert "must" in str(error), error
        return
    try:
        touch(scenario)
    except MlsysymError as error:  # e.g. a 5e-324 µs device time, or a utilisation above its declared 1
        assert "overflow" in str(error) or "outside its declared range" in str(error), error
        return
    check_outputs(scenario)


# -- the paths around the constructor: sweeps, CLI parsing, analysis ------------------------
import numpy as np  # noqa: E402

from symbolic.runtime.paths import guarded_paths  # noqa: E402

from symbolic.cli.usage import UsageError  # noqa: E402
from symbolic.cli.values import parse_vary  # noqa: E402
from symbolic.runtime.analysis import compare, flat_outputs, sensitivity  # noqa: E402
from symbolic.runtime.sweep import sweep  # noqa: E402

sweep_values = st.one_of(
    st.lists(numbers, min_size=1, max_size=4),
    st.lists(st.lists(st.integers(-2, 300), max_size=3), min_size=1, max_size=3),  # ragged or 2-d
    st.builds(lambda xs, u: Q_(np.array(xs, dtype=float), u), st.lists(st.floats(-10, 1e9, allow_subnormal=False), min_size=1, max_size=3),
              st.sampled_from(UNITS)),
    st.lists(st.builds(Q_, st.floats(0, 1e6, allow_subnormal=False), st.sampled_from(UNITS)), min_size=1, max_size=3),
    st.text(max_size=4), st.none(), numbers,
)


@settings(max_examples=max(EXAMPLES // 6, 20), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cls=st.sampled_from(generated.SCENARIO_CLASSES), data=st.data())
def test_sweeps_raise_only_project_errors_and_return_finite_arrays(cls, data):
    base = BASES[cls]
    names = [s.name for s in cls._specs if not isinstance(s, ListSpec)] + ["not_an_input"]
    varied = data.draw(st.dictionaries(st.sampled_from(names), sweep_values, min_size=1, max_size=2))
    try:
        out = sweep(base, varied)
    except MlsysymError:
        return
    guards = guarded_paths(cls)
    for path, values in out.items():
        # NaN only where a Fits guarding the output fails: that setup does not run
        under = guards.get(path) or guards.get(path.split("[", 1)[0] + "[]") or ()
        unfit = np.zeros(out.shape, dtype=bool)
        for name in under:
            unfit |= out[name] == 0
        assert (np.isfinite(values) | unfit).all(), path
        assert values.shape == out.shape


vary_texts = st.one_of(
    st.text(alphabet="0123456789.,:=e-+ usmGiBflop/*logintep2", max_size=24),
    st.builds("{}={}..{}:{}".format, st.sampled_from(["dispatch", "device_time", "ops_per_block", "x"]),
              st.sampled_from(["1", "0", "-1", "1us", "1e308", "2 flop", "9**9"]),
              st.sampled_from(["10", "1e300", "5ms", "inf", ""]),
              st.sampled_from(["", "log2", "lin=3", "lin=0", "log=4", "step=0.5", "step=1e-300", "step=1s", "bad"])),
)


@settings(max_examples=max(EXAMPLES // 3, 50), deadline=2000)
@given(text=vary_texts)
def test_vary_parsing_raises_only_usage_errors_and_never_hangs(text):
    cls = type(Scenarios.SmallKernelDispatch)
    try:
        name, values = parse_vary(cls, text)
    except UsageError:
        return
    assert name in cls.input_names() and values.ndim == 1 and len(values) > 0
    assert np.isfinite(values).all()


@settings(max_examples=max(EXAMPLES // 10, 20), deadline=None)
@given(cls=st.sampled_from(generated.SCENARIO_CLASSES), data=st.data())
def test_analysis_of_random_valid_instances_has_no_nan_or_inf(cls, data):
    base = BASES[cls]
    changes = {}
    for spec in cls._specs:
        if isinstance(spec, ListSpec) or not data.draw(st.booleans()):
            continue
        low = 0 if spec.minimum is None else spec.minimum
        changes[spec.name] = (data.draw(st.integers(int(low) + (1 if spec.strict else 0), 10**4)) if spec.integer
                              else data.draw(st.sampled_from([low, 0.5, 3.0, 1e4])))
    try:
        scenario = base.variant(**changes)
        outputs = flat_outputs(scenario)
    except MlsysymError:
        return
    for output in outputs:
        for row in sensitivity(scenario, output):
            assert row.elasticity is None or math.isfinite(row.elasticity), row
            assert row.derivative is None or math.isfinite(row.derivative), row
    for change in compare(base, scenario)[1]:
        assert change.relative is None or math.isfinite(change.relative)
