"""Sensitivities and comparisons at run time, from the generated gradients (no sympy).

``sensitivity`` ranks the inputs by elasticity, d ln y / d ln x = (x / y)·dy/dx, the
percent change of an output per percent change of an input. ``compare`` lists what
changed between two instances of one scenario and attributes each output's change to
the inputs that changed, to first order: Δln y ≈ Σ ε_x·Δln x (exact for power laws).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from symbolic.runtime.display import keyed
from symbolic.runtime.errors import ScenarioInputError
from symbolic.runtime.hardware import NODE_FIELDS
from symbolic.runtime.feasibility import refuse_infeasible
from symbolic.runtime.paths import guarded_paths, leaves
from symbolic.runtime.scenario import ScenarioBase
from symbolic.runtime.sweep import expect_instance
from symbolic.runtime.units import label


def flat_outputs(scenario: ScenarioBase, everything: bool = False) -> dict[str, tuple[Any, str]]:
    """``{path: (number in display unit, unit)}`` for every scalar numeric output, in
    declaration order; with ``everything``, lists, text and absent optional outputs (None) too."""
    return {path: (value, unit) for path, value, unit, kind in leaves(type(scenario), scenario.evaluate())
            if everything or (kind == "number" and isinstance(value, (int, float)) and not isinstance(value, bool))}


@dataclass(frozen=True)
class Sensitivity:
    """One input's effect on an output. ``elasticity`` is None where it is undefined, and
    ``note`` then says why (the output is 0 at this instance, the derivative is infinite...)."""

    input: str
    value: Any  # the input's value, in its declared unit
    unit: str
    derivative: float | None  # d output / d input, output display unit per input unit
    elasticity: float | None  # d ln output / d ln input
    note: str = ""


def sensitivity(scenario: ScenarioBase, output: str) -> list[Sensitivity]:
    """Every numeric input's effect on ``output`` at this instance, largest elasticity first.

        >>> from generated import Scenarios
        >>> rows = sensitivity(Scenarios.SmallKernelDispatch, "overhead_ratio")
        >>> [(r.input, round(r.elasticity, 3)) for r in rows]
        [('blocks', 1.0), ('device_time', -1.0), ('ops_per_block', 1.0), ('dispatch', 0.667), ('launch', 0.333), ('backward_nodes', 0.0), ('fixed', 0.0), ('per_node', 0.0)]
    """
    expect_instance("sensitivity", scenario)
    cls = type(scenario)
    flat = flat_outputs(scenario)
    every = flat_outputs(scenario, everything=True)
    if output not in flat and output in every and every[output][0] is None:
        guards = guarded_paths(cls)
        guard = guards.get(output) or guards.get(output.split("[", 1)[0] + "[]")
        if guard:  # an output of a setup that does not fit (or pay off): say why it does not exist
            refuse_infeasible(scenario, guard, output)
        raise ScenarioInputError(f"{cls.__name__}: output {output!r} is unavailable at this instance (it needs an "
                                 "optional input that was not given), so nothing moves it; give that input first")
    if output not in flat:
        import difflib

        close = difflib.get_close_matches(output, list(flat), n=3)
        base = output.partition("[")[0]
        listed = ("[" in output or isinstance(every.get(output, (None,))[0], list)) and not close
        entry = f"; {base!r} is a list output, and this takes one scalar output" if listed else ""
        hint = (f"; did you mean {', '.join(close)}?" if close else
                f"; its numeric outputs: {', '.join(flat)}" if flat else "; it has no scalar numeric output")
        raise ScenarioInputError(f"{cls.__name__} has no numeric output {output!r}{entry}{hint}")
    gradient = _gradient(scenario).get(output, {})
    y = flat[output][0]
    units = {name: label(unit) for name, unit in _argument_units(cls).items()}
    rows = []
    for name, derivative in gradient.items():
        x = scenario._args[name]
        if x is None:  # an optional input not given (an otherwise= branch reads it only when given)
            continue
        rows.append(_row(name, x, units.get(name, ""), derivative, y))
    # elasticities equal to 12 significant digits are ties (their last bits are rounding), by name
    return sorted(rows, key=lambda r: (r.elasticity is None, -float(f"{abs(r.elasticity or 0.0):.12g}"), r.input))


def _gradient(scenario: ScenarioBase) -> dict[str, dict[str, Any]]:
    try:
        return type(scenario)._gradient(**scenario._args)
    except (ZeroDivisionError, OverflowError) as error:
        from symbolic.runtime.undefined import gradient_where_fits  # undefined only where a Fits fails?

        found = gradient_where_fits(type(scenario), scenario._args) if type(scenario)._fits else None
        if found is not None:
            return found
        raise ScenarioInputError(f"{type(scenario).__name__}: the derivatives are undefined at this instance "
                                 f"({error}): an input sits where an output is not differentiable") from None


def _row(name: str, x: Any, unit: str, derivative: Any, y: Any) -> Sensitivity:
    derivative = float(derivative)
    if not math.isfinite(derivative):
        return Sensitivity(name, x, unit, None, None, f"the derivative is {derivative} here (not differentiable)")
    if y == 0:
        return Sensitivity(name, x, unit, derivative, None,
                           "undefined: the output is 0 here, and a relative change of 0 has no size")
    elasticity = derivative * x / y
    if not math.isfinite(elasticity):
        return Sensitivity(name, x, unit, derivative, None, "undefined: beyond double range")
    return Sensitivity(name, x, unit, derivative, elasticity)


def _argument_units(cls: type[ScenarioBase]) -> dict[str, str]:
    units = {spec.name: spec.unit for spec in cls._specs}
    for inner in cls._scenarios:
        inner_units = _argument_units(inner.scenario)
        units.update({outer: inner_units.get(name, "") for name, outer in inner.arguments.items()})
        for path, outer in inner.outputs.items():  # a number read from one of its outputs, in that output's unit
            descriptor = getattr(inner.scenario, path.replace("[", ".").split(".")[0])
            for part in path.replace("[", ".").split(".")[1:]:
                descriptor = next((f for f in getattr(descriptor, "fields", ()) if f.name == part), descriptor)
            units[outer] = descriptor.unit
    for dataset in cls._datasets:
        if dataset.training_examples:
            units[dataset.training_examples] = ""
    for workload in cls._workloads:
        units.update(workload.units)
    for choice in cls._choices:
        units[choice.argument] = choice.unit
    for node in cls._nodes:
        units.update({argument: NODE_FIELDS[what] for what, argument in node.fields.items()})
    return units


@dataclass(frozen=True)
class Change:
    """An output that changed. ``relative`` is None when the output was 0 before (a change
    from 0 has no finite relative size; nor has one beyond double range), and when it is not
    one number on both sides: a list (keyed ones as a dict), a label, or None where an output
    is unavailable (it needs an optional input not given); ``attribution`` then is empty."""

    output: str
    unit: str
    before: Any
    after: Any
    relative: float | None  # after / before - 1
    attribution: tuple[tuple[str, float], ...]  # (input, its first-order share of Δln output)


def compare(a: ScenarioBase, b: ScenarioBase) -> tuple[dict[str, tuple[Any, Any]], list[Change]]:
    """The inputs that differ and every output that changed, with first-order attribution."""
    expect_instance("compare", a)
    expect_instance("compare", b)
    if type(a) is not type(b):
        raise ScenarioInputError(f"compare needs two instances of one scenario, got {type(a).__name__} "
                                 f"and {type(b).__name__}")
    # a keyed input's evaluator list follows its key order: the same dict in another order is no change
    changed_inputs = {name: (a._args[name], b._args[name]) for name in a._args
                      if a._args[name] != b._args[name] and not (name in a._given and a._given[name] == b._given[name])}
    # every output, lists, labels and unavailable ones too, and a table's entries under either
    # instance's keys: an output that only one side has, or that is no number, still changed
    before, after = _comparable(a), _comparable(b)
    gradient = _gradient(a)
    changes = []
    for path in before | after:
        value_a, unit = before.get(path, (None, after.get(path, (None, ""))[1]))
        value_b = after.get(path, (None, unit))[0]
        if value_a == value_b:
            continue
        if not (_is_number(value_a) and _is_number(value_b)):
            changes.append(Change(path, unit, value_a, value_b, None, ()))
            continue
        relative = value_b / value_a - 1 if value_a else None
        if relative is not None and not math.isfinite(relative):  # 1e-300 -> 1e300: no finite relative size either
            relative = None
        shares = []
        for name, (xa, xb) in changed_inputs.items():
            derivative = gradient.get(path, {}).get(name)
            if derivative is None or isinstance(xa, list) or xa is None or xb is None or not value_a \
                    or xa <= 0 or xb <= 0:
                continue
            share = float(derivative * xa / value_a * math.log(xb / xa))
            if math.isfinite(share):
                shares.append((name, share))
        changes.append(Change(path, unit, value_a, value_b, relative,
                              tuple(sorted(shares, key=lambda s: -abs(s[1])))))
    return changed_inputs, changes


def _comparable(scenario: ScenarioBase) -> dict[str, tuple[Any, str]]:
    """Every output leaf as compare reads it: a keyed list as a dict under its keys, a choice as its label."""
    return {path: (keyed(scenario, path, value), unit) for path, (value, unit) in flat_outputs(scenario, True).items()}


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)
