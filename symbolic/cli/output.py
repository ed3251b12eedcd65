"""Printing for the command line: numbers with units, aligned tables, JSON, flat outputs."""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Sequence
from typing import Any

from symbolic.runtime.display import shown
from symbolic.runtime.analysis import flat_outputs
from symbolic.runtime.outputs import GroupOutput, SubScenario

__all__ = ["cell", "choice_labels", "emit", "json_text", "jsonable", "outputs_of", "shown", "table"]


def table(rows: Sequence[Sequence[Any]], header: Sequence[str]) -> str:
    cells = [[str(c) for c in header]] + [[str(c) for c in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(header))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def outputs_of(scenario: Any) -> dict[str, tuple[Any, str]]:
    """Every output as ``path: (value, unit)``: numbers, and lists and text too."""

    return flat_outputs(scenario, everything=True)


def json_text(data: Any, indent: int | None = 2) -> str:
    """``data`` as strict JSON: a non-finite float becomes the string "inf" / "nan" (json.dumps
    would write the tokens NaN and Infinity, which JSON parsers refuse)."""
    return json.dumps(_finite(data), indent=indent, ensure_ascii=False, default=jsonable, allow_nan=False)


def _finite(value: Any) -> Any:
    if isinstance(value, float):  # numpy's float64 too
        return float(value) if math.isfinite(value) else str(float(value))
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(item) for item in value]
    return value


def jsonable(value: Any) -> Any:
    if hasattr(value, "units"):
        return _finite({"value": value.magnitude, "unit": f"{value.units:~P}"})
    if hasattr(value, "path") and hasattr(value, "name"):
        return value.path or value.name
    if hasattr(value, "_given"):
        return value.name
    return value


def emit(args: argparse.Namespace, data: Any, text: str) -> None:
    print(json_text(data) if args.json else text)


def choice_labels(cls: Any, path: str) -> tuple[Any, ...]:
    """The labels of a choice output (``result.bottleneck``: Compute, Memory), () for a number: the sweep
    prints a choice by name, as ``show`` does, not by its index."""
    found: Any = None
    scope: Any = cls
    for part in path.split("[")[0].split("."):
        if isinstance(found, GroupOutput):
            found = next((field for field in found.fields if field.name == part), None)
        else:
            scope = found.scenario if isinstance(found, SubScenario) else scope
            found = getattr(scope, part, None) if part in getattr(scope, "_outputs", ()) else None
        if found is None:
            return ()
    return tuple(getattr(found, "labels", ()) or ())


def cell(value: float, labels: tuple[Any, ...]) -> str:
    if labels and value == int(value) and 0 <= int(value) < len(labels):
        return str(labels[int(value)])
    return shown(value)


NODE_FIELDS = {"peak": "peak_flops", "bandwidth": "memory_bandwidth", "capacity": "memory_capacity"}


def argument_labels(cls: Any) -> dict[str, str]:
    """Each evaluator argument by the input a user sets: ``hardware_bandwidth`` -> ``hardware.memory_bandwidth``,
    ``precision_value`` -> ``precision``, ``workload_parameters`` -> ``workload.parameters``; plain numeric
    inputs are their own names (``sensitivity`` and ``compare`` speak of what the user can change)."""
    labels: dict[str, str] = {}
    for choice in getattr(cls, "_choices", ()):
        labels[choice.argument] = choice.name
    for node in getattr(cls, "_nodes", ()):
        labels.update({argument: f"{node.name}.{NODE_FIELDS.get(key, key)}" for key, argument in node.fields.items()})
    for workload in getattr(cls, "_workloads", ()):
        labels.update({argument: f"{workload.name}.{key}" for key, argument in workload.fields.items()})
    for dataset in getattr(cls, "_datasets", ()):
        if dataset.training_examples:
            labels[dataset.training_examples] = f"{dataset.name}.training_examples"
    return labels
