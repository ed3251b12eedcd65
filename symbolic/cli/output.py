"""Printing for the command line: numbers with units, aligned tables, JSON, flat outputs."""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Sequence
from typing import Any

def shown(value: Any, unit: str = "") -> str:
    if isinstance(value, float):
        text = f"{value:.6g}"
    else:
        text = str(value)
    return f"{text} {unit}".strip()


def table(rows: list[Sequence[Any]], header: Sequence[str]) -> str:
    cells = [[str(c) for c in header]] + [[str(c) for c in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(header))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def outputs_of(scenario: Any) -> dict[str, tuple[Any, str]]:
    """Every output as ``path: (value, unit)``: numbers, and lists and text too."""
    from symbolic.runtime.analysis import flat_outputs
    from symbolic.runtime.scenario import GroupOutput, ListOutput, SubScenario

    rows = flat_outputs(scenario)
    extra: dict[str, tuple[Any, str]] = {}

    def walk(descriptor: Any, value: Any, prefix: str) -> None:
        path = prefix + descriptor.name
        if isinstance(descriptor, GroupOutput):
            for field in descriptor.fields:
                walk(field, value[field.name], path + ".")
        elif isinstance(descriptor, SubScenario):
            for name in descriptor.scenario._outputs:
                walk(getattr(descriptor.scenario, name), value[name], path + ".")
        elif isinstance(descriptor, ListOutput) or isinstance(value, str) or value is None:
            extra[path] = (value, descriptor.unit)

    values = scenario.evaluate()
    for name in type(scenario)._outputs:
        walk(getattr(type(scenario), name), values[name], "")
    merged = {**rows, **extra}
    order = list(_paths(type(scenario), values, ""))
    return {path: merged[path] for path in order if path in merged}


def _paths(cls: type, values: dict[str, Any], prefix: str) -> Any:
    from symbolic.runtime.scenario import GroupOutput, SubScenario, TableOutput

    def walk(descriptor: Any, value: Any, path: str) -> Any:
        if isinstance(descriptor, GroupOutput):
            for field in descriptor.fields:
                yield from walk(field, value[field.name], f"{path}.{field.name}")
        elif isinstance(descriptor, SubScenario):
            yield from _paths(descriptor.scenario, value, path + ".")
        elif isinstance(descriptor, TableOutput):
            yield from (f"{path}[{key}]" for key in value)
        else:
            yield path

    for name in cls._outputs:
        yield from walk(getattr(cls, name), values[name], prefix + name)


def jsonable(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if hasattr(value, "units"):
        return {"value": value.magnitude, "unit": f"{value.units:~P}"}
    if hasattr(value, "path") and hasattr(value, "name"):
        return value.path or value.name
    if hasattr(value, "_given"):
        return value.name
    return value


def emit(args: argparse.Namespace, data: Any, text: str) -> None:
    print(json.dumps(data, indent=2, ensure_ascii=False, default=jsonable) if args.json else text)
