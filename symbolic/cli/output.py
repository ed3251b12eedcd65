"""Printing for the command line: numbers with units, aligned tables, JSON, flat outputs."""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Sequence
from typing import Any

from symbolic.runtime.display import shown

__all__ = ["emit", "jsonable", "outputs_of", "shown", "table"]


def table(rows: Sequence[Sequence[Any]], header: Sequence[str]) -> str:
    cells = [[str(c) for c in header]] + [[str(c) for c in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(header))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def outputs_of(scenario: Any) -> dict[str, tuple[Any, str]]:
    """Every output as ``path: (value, unit)``: numbers, and lists and text too."""
    from symbolic.runtime.analysis import flat_outputs

    return flat_outputs(scenario, everything=True)


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
