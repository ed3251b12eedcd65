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

from symbolic.runtime.errors import ScenarioInputError
from symbolic.runtime.hardware import NODE_FIELDS
from symbolic.runtime.scenario import GroupOutput, Output, ScenarioBase, SubScenario, TableOutput


def output_units(cls: type[ScenarioBase]) -> dict[str, str]:
    """Every scalar output path of ``cls`` (``op_flops[relu]``, ``host.host_time``...) and its unit."""
    units: dict[str, str] = {}

    def visit(descriptor: Output, prefix: str) -> None:
        path = prefix + descriptor.name
        if isinstance(descriptor, GroupOutput):
            for field in descriptor.fields:
                visit(field, path + ".")
        elif isinstance(descriptor, SubScenario):
            for inner, unit in output_units(descriptor.scenario).items():
                units[f"{path}.{inner}"] = unit
        elif isinstance(descriptor, TableOutput):
            units[path + "[*]"] = descriptor.unit  # expanded with the keys in flat_outputs
        elif type(descriptor) is Output:
            units[path] = descriptor.unit

    for name in cls._outputs:
        visit(getattr(cls, name), "")
    return units


def flat_outputs(scenario: ScenarioBase, everything: bool = False) -> dict[str, tuple[Any, str]]:
    """``{path: (number in display unit, unit)}`` for every scalar numeric output, in
    declaration order; with ``everything``, lists, text and absent optional outputs (None) too."""
    flat: dict[str, tuple[Any, str]] = {}

    def visit(cls: type[ScenarioBase], values: dict[str, Any], prefix: str) -> None:
        for name in cls._outputs:
            walk(getattr(cls, name), values[name], prefix)

    def walk(descriptor: Output, value: Any, prefix: str) -> None:
        path = prefix + descriptor.name
        if isinstance(descriptor, GroupOutput):
            for field in descriptor.fields:
                walk(field, value[field.name], path + ".")
        elif isinstance(descriptor, SubScenario):
            visit(descriptor.scenario, value, path + ".")
        elif isinstance(descriptor, TableOutput):
            for key, entry in value.items():
                flat[f"{path}[{key}]"] = (entry, descriptor.unit)
        elif type(descriptor) is Output and isinstance(value, (int, float)) and not isinstance(value, bool):
            flat[path] = (value, descriptor.unit)
        elif everything:
            flat[path] = (value, descriptor.unit)

    visit(type(scenario), scenario.evaluate(), "")
    return flat


@dataclass(frozen=True)
class Sensitivity:
    input: str
    value: Any  # the input's value, in its declared unit
    unit: str
    derivative: float  # d output / d input, output display unit per input unit
    elasticity: float  # d ln output / d ln input


def sensitivity(scenario: ScenarioBase, output: str) -> list[Sensitivity]:
    """Every numeric input's effect on ``output`` at this instance, largest elasticity first."""
    cls = type(scenario)
    flat = flat_outputs(scenario)
    if output not in flat:
        import difflib

        close = difflib.get_close_matches(output, list(flat), n=3)
        raise ScenarioInputError(f"{cls.__name__} has no numeric output {output!r}"
                                 + (f"; did you mean {', '.join(close)}?" if close else ""))
    gradient = cls._gradient(**scenario._args).get(output, {})
    y = flat[output][0]
    units = _argument_units(cls)
    rows = []
    for name, derivative in gradient.items():
        x = scenario._args[name]
        elasticity = derivative * x / y if y else math.nan
        rows.append(Sensitivity(name, x, units.get(name, ""), float(derivative), float(elasticity)))
    return sorted(rows, key=lambda r: (-abs(r.elasticity) if not math.isnan(r.elasticity) else 0.0, r.input))


def _argument_units(cls: type[ScenarioBase]) -> dict[str, str]:
    units = {spec.name: spec.unit for spec in cls._specs}
    for inner in cls._scenarios:
        inner_units = _argument_units(inner.scenario)
        units.update({outer: inner_units.get(name, "") for name, outer in inner.arguments.items()})
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
    output: str
    unit: str
    before: Any
    after: Any
    relative: float  # after / before - 1
    attribution: tuple[tuple[str, float], ...]  # (input, its first-order share of Δln output)


def compare(a: ScenarioBase, b: ScenarioBase) -> tuple[dict[str, tuple[Any, Any]], list[Change]]:
    """The inputs that differ and every output that changed, with first-order attribution."""
    if type(a) is not type(b):
        raise ScenarioInputError(f"compare needs two instances of one scenario, got {type(a).__name__} "
                                 f"and {type(b).__name__}")
    changed_inputs = {name: (a._args[name], b._args[name]) for name in a._args
                      if a._args[name] != b._args[name]}
    before, after = flat_outputs(a), flat_outputs(b)
    gradient = type(a)._gradient(**a._args)
    changes = []
    for path, (value_a, unit) in before.items():
        value_b = after[path][0]
        if value_a == value_b:
            continue
        relative = value_b / value_a - 1 if value_a else math.inf
        shares = []
        for name, (xa, xb) in changed_inputs.items():
            derivative = gradient.get(path, {}).get(name)
            if derivative is None or isinstance(xa, list) or not xa or not value_a or xa <= 0 or xb <= 0:
                continue
            shares.append((name, float(derivative * xa / value_a * math.log(xb / xa))))
        changes.append(Change(path, unit, value_a, value_b, relative,
                              tuple(sorted(shares, key=lambda s: -abs(s[1])))))
    return changed_inputs, changes
