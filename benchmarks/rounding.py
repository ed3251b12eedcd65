"""Rounding of the generated evaluators (issue 11): every float output of every registry entry
against exact sympy evaluation, in units in the last place.

The exact values come from ``tests/conftest.py`` (``exact_outputs``: no unit folding, no CSE,
no printing), the same independent evaluation the registry test uses. An output computed
with one correctly rounded operation is within 0.5 ulp; each further rounding can add about
as much. Outputs whose exact value is irrational (a power law's pow, a square root) are
counted apart: their error comes from ``**`` and ``log``, not from the arithmetic the
generator arranges. ``--rounding-only`` measures just this and replaces its part of
``results.json`` (it takes seconds).
"""

from __future__ import annotations

import statistics
import sys
from pathlib import Path
from typing import Any

from report import merge_section
from timing import ROOT

sys.path.insert(0, str(ROOT / "tests"))
from conftest import float_errors  # noqa: E402  (the exact evaluation lives with the tests)

WITHIN_ONE_ULP = 0.99  # share of the rational-valued float outputs within 1 ulp of exact


def measure() -> dict[str, Any]:
    from generated import Scenarios
    from symbolic.scenarios.discover import discover

    models = {module.model.name: module.model for module in discover()}
    rows = []
    for key in Scenarios:
        scenario = getattr(Scenarios, key)
        rows += [(key, path, ulps, rational) for path, ulps, rational in
                 float_errors(scenario, models[type(scenario).__name__])]
    summary = {"entries": len(list(Scenarios)), "all": _summary([ulps for _, _, ulps, _ in rows]),
               "rational": _summary([ulps for _, _, ulps, rational in rows if rational])}
    worst = sorted(rows, key=lambda row: -row[2])[:8]
    summary["worst"] = [{"entry": key, "output": path, "ulps": ulps, "rational": rational}
                        for key, path, ulps, rational in worst]
    return summary


def _summary(errors: list[float]) -> dict[str, Any]:
    ordered = sorted(errors)
    count = len(ordered)
    return {"count": count, "median": statistics.median(ordered), "p99": ordered[int(0.99 * (count - 1))],
            "max": ordered[-1], "over_half": sum(e > 0.5 for e in ordered), "over_one": sum(e > 1 for e in ordered)}


def table(info: dict[str, Any]) -> str:
    lines = [f"Rounding: every float output of the {info['entries']} registry entries against exact sympy, in ulp"]
    for label, key in (("all float outputs", "all"), ("rational exact values", "rational")):
        s = info[key]
        lines.append(f"  {label:<26}{s['count']:>6,} outputs   median {s['median']:.2g}   p99 {s['p99']:.3g}   "
                     f"max {s['max']:.3g}   > 0.5 ulp: {s['over_half']}   > 1 ulp: {s['over_one']}")
    lines.append("  largest: " + "; ".join(f"{w['entry']} {w['output']} {w['ulps']:.2f}" for w in info["worst"][:4]))
    return "\n".join(lines)


def targets(info: dict[str, Any]) -> list[dict[str, Any]]:
    rational = info["rational"]
    share = 1 - rational["over_one"] / rational["count"]
    return [{"target": "rounding: rational-valued float outputs within 1 ulp of exact (registry)", "measured": share,
             "limit": WITHIN_ONE_ULP, "comparison": ">=", "unit": "", "met": share >= WITHIN_ONE_ULP,
             "detail": f"{rational['count']:,} outputs, median {rational['median']:.2g} ulp, p99 {rational['p99']:.3g}, "
                       f"max {rational['max']:.3g}; {rational['over_half']} not correctly rounded"}]


def merge_into(path: Path) -> None:
    """Measure rounding alone and replace its record, target and table block in ``path`` (the
    block sits before the pipeline's, which ``--pipeline-only`` replaces as the tail)."""
    info = measure()
    found = targets(info)
    text = table(info)
    print(text)
    merge_section(path, "rounding", info, found, text, "Rounding:")
