"""The generated physics check: every discovered scenario, none listed, at the corners of its domain.

For each scenario class with a registry entry, each numeric input of that entry is moved to a
thousandth and to a thousand times its value (clipped to the input's domain; a corner the class
refuses, by a requirement or its declared ranges, is left out) one at a time, as one vectorised
sweep, and every output is checked:

* no output is negative (times, bytes, counts, rates, prices: none of them can be) unless the
  class declares its range in ``bounds``; an output of a setup that does not fit (``Fits``) is
  NaN in the sweep and skipped;
* a share (a dimensionless output named ``share``, ``fraction``, ``utilization``, ``efficiency``)
  lies in [0, 1] unless ``bounds`` declares another range; every declared range holds;
* the sweep equals the scalar class API on the same points (the scalar path of each corner is
  built with ``variant``); an integer output past 2**53 stays an exact Python int there;
* the ``fits`` output is False exactly where a guarded output is NaN.

MoE/dense-twin equivalence of compute for every scenario taking a transformer workload is the
generic check of ``tests/physics/test_physics_sparse.py``; every input reaching an output is checked at
generation (``symbolic/codegen/usage.py``) and below on the declarations.
"""

from __future__ import annotations

import math

import numpy
import pytest

import generated
from generated import Scenarios
from symbolic.runtime.errors import InfeasibleError, ScenarioInputError
from symbolic.runtime.paths import guarded_paths, leaves
from symbolic.runtime.sweep import sweep
from symbolic.runtime.validation import ListSpec

SHARE_WORDS = ("share", "fraction", "utilization", "utilisation", "efficiency")
FACTORS = (1e-3, 1e3)


def _entries() -> list[tuple[str, str]]:
    """(class name, first registry entry) for every generated class that has one."""
    first: dict[str, str] = {}
    for key in sorted(dir(Scenarios)):
        value = getattr(Scenarios, key, None)
        if isinstance(value, generated.ScenarioBase):
            first.setdefault(type(value).__name__, key)
    return sorted(first.items())


ENTRIES = _entries()


def test_the_check_discovers_the_classes():
    names = {name for name, _ in ENTRIES}
    assert len(names) >= 40
    assert {"SingleAcceleratorLlmServiceScenario", "DecodeScenario", "KvDecodeBatchScenario"} <= names


def _corners(spec, value) -> list[float]:
    """The input's value moved a thousandfold each way, inside its declared domain."""
    points = []
    for factor in FACTORS:
        point = value * factor if value else (1.0 if factor > 1 else 0.0)
        if spec.integer:
            point = float(round(point))
        if spec.minimum is not None:
            floor = spec.minimum
            if point < floor or (spec.strict and point <= floor):
                point = floor + (1.0 if spec.integer else abs(value) * 1e-3 or 1e-3) if spec.strict else floor
        if spec.maximum is not None and point > spec.maximum:
            point = spec.maximum if not spec.strict_maximum else (spec.maximum + value) / 2
        if point != value:
            points.append(float(point))
    return points


def _bounds(cls) -> dict[str, tuple[float, float]]:
    return {bound.path: (-math.inf if bound.low is None else bound.low, math.inf if bound.high is None else bound.high)
            for bound in cls._bounds}


def _is_share(path: str, unit: str) -> bool:
    last = path.split(".")[-1].split("[")[0]
    return not unit and "ratio" not in last and any(word in last for word in SHARE_WORDS)


def _check_values(name: str, path: str, unit: str, values, declared: dict[str, tuple[float, float]]) -> None:
    finite = values[~numpy.isnan(values)]
    if not finite.size:
        return
    low, high = declared.get(path, (0.0, 1.0 if _is_share(path, unit) else math.inf))
    assert finite.min() >= low, f"{name}.{path} reaches {finite.min():.6g} below {low:g}"
    assert finite.max() <= high, f"{name}.{path} reaches {finite.max():.6g} above {high:g}"


@pytest.mark.parametrize(("name", "key"), ENTRIES, ids=[name for name, _ in ENTRIES])
def test_outputs_keep_their_physical_ranges_at_the_domain_corners(name: str, key: str):
    base = getattr(Scenarios, key)
    cls = type(base)
    declared = _bounds(cls)
    guards = guarded_paths(cls)
    for spec in cls._specs:
        value = base._given.get(spec.name)
        if isinstance(spec, ListSpec) or value is None or isinstance(value, (list, dict)):
            continue
        points = _corners(spec, value)
        kept = []
        for point in points:  # a corner the class refuses (a requirement, a declared range) is left out
            try:
                base.variant(**{spec.name: point}).evaluate()
            except ScenarioInputError:
                continue
            kept.append(point)
        if not kept:
            continue
        swept = sweep(base, {spec.name: numpy.array(kept)})
        for path, values in swept.items():
            _check_values(name, path, swept.units[path], values, declared)
        # the sweep agrees with the scalar API on the same points
        for position, point in enumerate(kept):
            scalar = base.variant(**{spec.name: point})
            _agrees(name, spec.name, point, scalar, swept, position, guards)
    result = base.evaluate()  # the entry itself
    fits = all(result.get(f.name) in (None, 1, True) for f in cls._fits)
    for path, value, unit, kind in leaves(cls, result):
        if kind == "number" and value is not None and (fits or not _guarded(path, guards)):
            _check_values(name, path, unit, numpy.array([float(value)]), declared)


def _guarded(path: str, guards: dict[str, tuple[str, ...]]) -> bool:
    return path in guards or ("[" in path and path.split("[", 1)[0] + "[]" in guards)


def _guarding(path: str, guards: dict[str, tuple[str, ...]]) -> tuple[str, ...]:
    """The Fits an output path exists under (a table entry under its table's)."""
    return guards.get(path, guards.get(path.split("[", 1)[0] + "[]", ())) if "[" in path else guards.get(path, ())


def _agrees(name: str, varied: str, point: float, scalar, swept, position: int, guards) -> None:
    raw = scalar._evaluated()  # the evaluator's numbers, guarded outputs included
    shown = {path: value for path, value, _, _ in leaves(type(scalar), scalar.evaluate())}
    failing = {f.name for f in type(scalar)._fits if raw.get(f.name) not in (None, 1, True)}
    for path, value, _, kind in leaves(type(scalar), raw):
        if kind != "number" or value is None or path not in swept:
            continue
        got = swept[path][position]
        if failing & set(_guarding(path, guards)):  # a Fits this output exists under fails here
            assert numpy.isnan(got), f"{name}.{path} at {varied}={point:g}: a setup that does not fit gave {got}"
            assert shown[path] is None, f"{name}.{path}: evaluate() gave a number for a setup that does not fit"
            with pytest.raises(InfeasibleError):
                _read(scalar, path)
            continue
        if type(value) is int and abs(value) > 2**53:
            assert isinstance(_plain(scalar, path), int), f"{name}.{path} lost its exact int"
        assert math.isclose(float(value), float(got), rel_tol=1e-9, abs_tol=1e-300), \
            f"{name}.{path} at {varied}={point:g}: scalar {value!r}, sweep {got!r}"


def _read(scenario, path: str):
    """The attribute at an output path (``a.b``, ``t[k]``), as a user reads it."""
    head, _, key = path.partition("[")
    value = scenario
    for part in head.split("."):
        value = getattr(value, part)
    return value[key.rstrip("]")] if key else value


def _plain(scenario, path: str):
    value = scenario.evaluate()
    for part in path.replace("]", "").replace("[", ".").split("."):
        value = value[part]
    return value


# -- the mechanism, on the examples, by hand ---------------------------------------------
def test_a_sweep_masks_and_a_search_skips_what_does_not_fit():
    """Llama-3-8B INT4 on an H100 (80 GiB = 85.899 GB): weights 4.015 GB plus the reserve must fit."""
    from symbolic.runtime.search import search

    base = Scenarios.Llama3_8BInt4ChatServiceH100
    swept = sweep(base, {"kv_reserve": numpy.array([40.0, 81.0, 82.0, 1000.0])})  # GB; 81.884 GB is left
    assert swept["fits"].tolist() == [1.0, 1.0, 0.0, 0.0]
    assert swept["weights"].tolist() == [4.015] * 4  # what the model is stays defined
    tpot = swept["tpot"]
    # 40 GB hold ⌊40e9 / 164,626,432⌋ = 242 requests: (4.015e9 + 242 · 164,626,432) B / 3.35 TB/s + 0.32 ms
    assert tpot[0] == pytest.approx((4.015e9 + 242 * 164_626_432) / 3.35e12 + 0.32e-3, rel=1e-12)
    assert numpy.isnan(tpot[2:]).all() and numpy.isnan(swept["request_rate"][2:]).all()
    found = search(base, {"kv_reserve": [40.0, 81.0, 82.0, 1000.0]}, minimize="cost_per_million_tokens")
    assert found.evaluated == 2 and found.invalid == 2
    assert found.skipped == {"does not fit: the weights and the KV reserve must fit in the accelerator's memory": 2}


def test_an_instance_that_does_not_fit_shows_and_evaluates_it():
    from symbolic.runtime.display import DOES_NOT_FIT, output_rows

    big = Scenarios.Llama3_8BInt4ChatServiceH100.variant(workload=generated.Models.Language.Llama3_70B,
                                                         precision="fp16")
    values = big.evaluate()
    assert values["fits"] == 0 and values["tpot"] is None and values["request_rate"] is None
    assert values["weights"] == pytest.approx(141.2, rel=1e-12)
    rows = {path: lines for _, path, lines, _ in output_rows(big)}
    assert rows["request_rate"] == [DOES_NOT_FIT] and rows["fits"] == ["False"]
    assert "request_rate" not in big.outputs() and big.outputs()["fits"] is False


def test_a_declared_range_refuses_a_measurement_beyond_the_roof():
    """An achieved bandwidth of 1e17 TB/s on an H100 (3.35 TB/s) is a utilisation of 3e16: refused, naming it."""
    s = Scenarios.KernelAt200FlopPerByteH100
    assert s.variant(achieved_bandwidth=3.0).bandwidth_utilization == pytest.approx(3.0 / 3.35, rel=1e-12)
    with pytest.raises(ScenarioInputError, match=r"'bandwidth_utilization' is 2\.98507e\+16, outside its declared "
                                                 r"range \[0, 1\].*achieved_bandwidth=1e\+17 TB/s"):
        _ = s.variant(achieved_bandwidth=1e17).bandwidth_utilization
    with pytest.raises(ScenarioInputError, match="bandwidth_utilization.*outside its declared range"):
        sweep(s.variant(achieved_bandwidth=3.0), {"achieved_bandwidth": numpy.array([1.0, 4.0])})


def test_fits_and_bounds_declarations_are_checked():
    from symbolic.model import Fits, Input, Output, Scenario
    from symbolic.runtime.errors import DeclarationError

    with pytest.raises(DeclarationError, match="guards .*not an output declared above"):
        class _Guarded(Scenario):
            a = Input("byte", positive=True)
            b = Input("byte", positive=True)
            fits = Fits(a <= b, "a must fit in b", unit="byte", guards=(a,))
    with pytest.raises(DeclarationError, match="expected a comparison"):
        Fits(1, "x", unit="byte")
    with pytest.raises(DeclarationError, match="bounds names 'c'"):
        class _Bounded(Scenario):
            bounds = {"c": (0, 1)}
            a = Input("byte", positive=True)
            d = Output(a, "byte")


# -- every input reaches an output (issue 24, defect 5) ---------------------------------------------
# Every input of every scenario reaches an output, and each class's _needs is the usage analysis': the
# generator's render runs that analysis and refuses an idle input (checked below, through the render), and
# the generated tree is the render of the sources (tests/codegen/test_generator.py, `make check`). A test
# per scenario that built its evaluator again to ask the same (5.4 s for 44 scenarios) is gone.


def test_an_idle_input_is_a_generation_error_and_an_input_without_its_partner_is_refused():
    from symbolic.codegen.python import build_evaluator
    from symbolic.codegen.usage import usage
    from symbolic.model import Input, Output, Scenario
    from symbolic.runtime.errors import DeclarationError

    class _Kept(Scenario):
        a = Input("byte", positive=True)
        target = Input("ms", positive=True, default=None, doc="kept, read by nothing")
        twice = Output(2 * a, "byte")

    with pytest.raises(DeclarationError, match="input 'target' reaches no output"):
        usage(_Kept.model, build_evaluator(_Kept.model))
    from symbolic.codegen.render import _model_context
    from symbolic.scenarios.discover import ScenarioModule

    with pytest.raises(DeclarationError, match="input 'target' reaches no output"):  # the render refuses it
        _model_context(ScenarioModule("kept", "", _Kept.model, ()))
    # KvFootprint's kv_share is read only with a device: alone it is refused, naming both; with one it is read
    entry = Scenarios.Gpt2XlKvFullWindow
    with pytest.raises(ScenarioInputError, match="input 'kv_share' must be given with 'hardware'"):
        entry.variant(kv_share=0.5)
    with pytest.raises(ScenarioInputError, match="cannot sweep 'kv_share' without 'hardware'"):
        sweep(entry, {"kv_share": numpy.array([0.25, 0.5])})
    # half of an H100 counted as 80 GB (labeled): 40e9 B over 1024 tokens × 307,200 B = 127.16 requests
    assert entry.variant(kv_share=0.5, hardware=generated.Hardware.Cloud.H100).requests == pytest.approx(
        40e9 / (1024 * 307_200), rel=1e-12)
