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
generic check of ``tests/test_physics_sparse.py``; every input reaching an output is checked at
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


def _agrees(name: str, varied: str, point: float, scalar, swept, position: int, guards) -> None:
    result = scalar.evaluate()
    fits = all(result.get(f.name) in (None, 1, True) for f in type(scalar)._fits)
    for path, value, _, kind in leaves(type(scalar), result):
        if kind != "number" or value is None or path not in swept:
            continue
        got = swept[path][position]
        if _guarded(path, guards) and not fits:
            assert numpy.isnan(got), f"{name}.{path} at {varied}={point:g}: a setup that does not fit gave {got}"
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
