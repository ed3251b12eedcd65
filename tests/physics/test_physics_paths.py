"""Every scenario gives the same numbers on every path: the class API (scalar, exact ints), a
sweep, a search and the JavaScript evaluator, on the same points.

Parametrised over every generated class (nothing listed by hand). For each, its first registry
instance is varied in up to two numeric inputs (its value, a second value, and for an integer
input 2^52 + 1, which float64 holds exactly and whose products pass 2^53) crossed with its
choices' options. Each valid point (one the class accepts) is evaluated by the class; the sweep
of the same points must agree with it to rounding (relative 1e-12; exactly for ints up to 2^53),
the search of the same grid must evaluate exactly those points (less the ones that do not fit, a
``Fits`` of the class failing: skipped with that reason) and rank them by the values the class
gives; where a setup does not fit, the sweep holds NaN in every output it guards, and the JavaScript evaluator (one Node process for every class) must give the same
numbers, or refuse by a RangeError an int that Python holds exactly past 2^53.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np
import pytest
from javascript_support import floats_of, has_big_integer, mismatches, python_result, run_node

import generated
from generated import MlsysymError, Scenarios
from symbolic.runtime.paths import guarded_paths, leaves
from symbolic.runtime.search import search
from symbolic.runtime.sweep import sweep
from symbolic.runtime.validation import ListSpec

BIG = 2**52 + 1  # exact in float64, so sweeps and searches hold it; its products are past 2^53
CLASSES = {cls.__name__: cls for cls in generated.SCENARIO_CLASSES}


def base_of(cls: type) -> Any:
    return next(getattr(Scenarios, key) for key in Scenarios if type(getattr(Scenarios, key)) is cls)


def axes(base: Any) -> tuple[dict[str, list[Any]], dict[str, list[Any]]]:
    """(numeric axes, choice axes) of the grid around ``base``."""
    cls = type(base)
    numeric: dict[str, list[Any]] = {}
    specs = [s for s in cls._specs if not isinstance(s, ListSpec) and isinstance(base._given[s.name], (int, float))]
    chosen = ([s for s in specs if s.integer][:1] + [s for s in specs if not s.integer][:1]) or specs[:2]
    for spec in chosen:
        value = base._given[spec.name]
        values = [value, value + 1 if spec.integer else value * 1.5 or 1.0]
        numeric[spec.name] = values + ([BIG] if spec.integer else [])
    choices = {choice.name: list(choice.options)[:3] for choice in cls._choices}
    return numeric, choices


def scalar_points(base: Any) -> list[tuple[dict[str, Any], Any]]:
    """Every point of the grid with the instance the class builds there (None where it refuses)."""
    numeric, choices = axes(base)
    names = [*choices, *numeric]
    found = []
    for values in itertools.product(*choices.values(), *numeric.values()):
        point = dict(zip(names, values, strict=True))
        try:
            instance = base.variant(**point)
            instance.evaluate()
        except MlsysymError:
            instance = None
        found.append((point, instance))
    return found


def numbers(cls: type, result: dict) -> dict[str, Any]:
    return {path: value for path, value, _, kind in leaves(cls, result) if kind == "number" and value is not None}


def failing(instance: Any) -> set[str]:
    """The ``Fits`` of the instance that fail (an absent one holds)."""
    result = instance.evaluate()
    return {fits.name for fits in type(instance)._fits if result.get(fits.name) not in (None, 1)}


def under(path: str, guards: dict[str, tuple[str, ...]]) -> set[str]:
    """The ``Fits`` an output path exists under (a table entry under its table's)."""
    return set(guards.get(path, ()) or guards.get(path.split("[", 1)[0] + "[]", ()) or
               guards.get(path.split("[", 1)[0], ()))


def agrees(exact: Any, approximate: Any) -> bool:
    if isinstance(exact, int) and abs(exact) <= 2**53:
        return float(approximate) == exact
    return math.isclose(float(exact), float(approximate), rel_tol=1e-12, abs_tol=1e-300)


@pytest.fixture(scope="module")
def javascript() -> dict[str, list[Any]]:
    """Every class's valid points through its JavaScript evaluator, in one Node process."""
    cases, owners = [], []
    for name, cls in CLASSES.items():
        module = cls.__module__.rsplit(".", 1)[-1]
        for _, instance in scalar_points(base_of(cls)):
            if instance is not None:
                cases.append([module, dict(instance._args), floats_of(instance._args)])
                owners.append(name)
    answer = run_node({"cases": cases, "helpers": [], "requirements": []})
    found: dict[str, list[Any]] = {name: [] for name in CLASSES}
    for name, (module, args, _), got in zip(owners, cases, answer["results"], strict=True):
        found[name].append((module, args, got))
    return found


@pytest.mark.parametrize("name", sorted(CLASSES))
def test_scalar_sweep_and_search_agree(name):
    cls = CLASSES[name]
    base = base_of(cls)
    points = scalar_points(base)
    valid = [(point, instance) for point, instance in points if instance is not None]
    numeric, choices = axes(base)
    if not numeric:
        pytest.skip(f"{name} has no numeric input to vary")
    guards = guarded_paths(cls)
    # sweep: the valid points of each choice combination, as aligned 1-d arrays
    for combo in itertools.product(*choices.values()):
        fixed = dict(zip(choices, combo, strict=True))
        group = [(p, i) for p, i in valid if all(p[k] == v for k, v in fixed.items())]
        if not group:
            continue
        swept = sweep(base.variant(**fixed), {n: np.array([float(p[n]) for p, _ in group]) for n in numeric})
        for position, (point, instance) in enumerate(group):
            failed = failing(instance)
            for path, value in numbers(cls, instance.evaluate()).items():
                if failed & under(path, guards):
                    assert np.isnan(swept[path][position]), (name, point, path)
                    continue
                assert path in swept and agrees(value, swept[path][position]), (name, point, path, value,
                                                                                 swept.get(path))
    # search: the whole grid; it evaluates exactly the points the class accepts, ranked by the class's values
    scalar = {path for path in numbers(cls, base.evaluate()) if "[" not in path}
    objective = next(iter(sorted(scalar)), None)
    if objective is None:
        return
    found = search(base, {**choices, **numeric}, minimize=objective, top=len(points))
    running = [instance for _, instance in valid if not failing(instance) & under(objective, guards)]
    assert found.size == len(points) and found.evaluated == len(running), (name, found.evaluated, len(running),
                                                                           found.skipped)
    if len(running) < len(valid):
        assert sum(count for reason, count in found.skipped.items() if reason.startswith("does not fit")) == \
            len(valid) - len(running), (name, found.skipped)
    by_point = {tuple(sorted((k, p[k]) for k in p)): i for p, i in valid}
    for row in found.rows:
        key = tuple(sorted((k, row.scenario._given[k]) for k in (*choices, *numeric)))
        value, _ = row.objectives[objective]
        assert agrees(numbers(cls, by_point[key].evaluate())[objective], value), (name, key, objective, value)
    assert len(found.rows) + found.unranked == found.feasible


@pytest.mark.parametrize("name", sorted(CLASSES))
def test_javascript_agrees_or_refuses_an_int_past_two_to_the_53(name, javascript):
    for module, args, got in javascript[name]:
        expected = python_result(module, args)
        if "error" in got:
            assert got["error"] == "RangeError" and "2^53" in got["message"], (name, args, got)
            assert has_big_integer([args, expected]) or "an integer step is" in got["message"], (name, args, got)
            continue
        assert not mismatches(expected, got["ok"]), (name, args, mismatches(expected, got["ok"])[:5])
