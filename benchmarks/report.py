"""The printed table of a benchmark run: medians, ratios and targets, aligned for a terminal."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from timing import Measurement

RAW, HAND, PINT, LAMBDIFY, SUBS, API = (
    "raw evaluator", "hand-written", "pint Quantities", "sympy lambdify", "sympy subs/evalf", "Quantity API")
CANDIDATES = (RAW, HAND, PINT, LAMBDIFY, SUBS, API)


def shown(seconds: float | None) -> str:
    if seconds is None or math.isnan(seconds):
        return "—"
    for scale, unit in ((1.0, "s"), (1e-3, "ms"), (1e-6, "µs")):
        if seconds >= scale:
            return f"{seconds / scale:.3g} {unit}"
    return f"{seconds * 1e9:.3g} ns"


def times(ratio: float) -> str:
    return f"{ratio:.3g}×" if ratio < 1000 else f"{ratio:,.0f}×"


def report(evaluations: dict[str, dict[str, Measurement]], sweep_info: dict[str, Any],
           records: list[dict[str, Any]], found: list[dict[str, Any]]) -> str:
    lines: list[str] = []
    labels = list(evaluations)
    width = 19
    lines.append("One full evaluation at each registry instance: median per call and ratio to the hand-written function")
    lines.append(f"{'candidate':<20}" + "".join(f"{label:>{width}}" for label in labels))
    for candidate in CANDIDATES:
        cells = []
        for label in labels:
            median, base = evaluations[label][candidate].median, evaluations[label][HAND].median
            cells.append(f"{shown(median)} {times(median / base)}")
        lines.append(f"{candidate:<20}" + "".join(f"{cell:>{width}}" for cell in cells))
    lines.append(f"{'pint ÷ Quantity API':<20}" + "".join(
        f"{times(evaluations[label][PINT].median / evaluations[label][API].median):>{width}}" for label in labels))
    lines.append("")

    measured = sweep_info["measured"]
    floor = measured["numpy copy (floor)"].median
    lines.append(f"Sweep: {sweep_info['rows']:,} rows of the training step, {sweep_info['array_outputs']} array outputs "
                 f"({sweep_info['bytes'] / 1e6:,.0f} MB of float64; {sweep_info['outputs']} outputs in all)")
    for name, m in measured.items():
        lines.append(f"  {name:<36}{shown(m.median):>10}  {times(m.median / floor):>7} the floor")
    lines.append(f"  {'compiled backend':<36}{'not available':>10}")
    lines.append("")

    lines.append("Fresh interpreter: time around the import inside the child (start-up excluded)")
    for record in (r for r in records if r["group"] == "import"):
        if record.get("failed"):
            lines.append(f"  {record['candidate']:<36}failed: {record['failed']}")
            continue
        lines.append(f"  {record['candidate']:<36}{shown(record['median_s']):>10}  "
                     f"{times(record['ratio_to_baseline']):>7} import generated")
    lines.append("")

    lines.append("Regeneration, a fresh interpreter per row (start-up excluded; shared imports shown apart); "
                 "per scenario: its _model_context")
    for record in (r for r in records if r["group"] == "regeneration"):
        if record.get("failed"):
            lines.append(f"  {record['candidate']:<28}failed: {record['failed']}")
            continue
        parts = record["parts_median_s"]
        if record["candidate"] == "render_all":
            lines.append(f"  {'render_all() (every file)':<28}{shown(parts['render_all']):>10}   + import sympy "
                         f"{shown(parts['import_sympy'])}, generator {shown(parts['import_generator'])}"
                         f" = {shown(parts['total'])} ({len(record['samples_s'])} runs)")
        else:
            lines.append(f"  {record['candidate']:<28}{shown(parts['scenario']):>10}   after import sympy "
                         f"{shown(parts['import_sympy'])}, generator {shown(parts['import_generator'])}, "
                         f"matplotlib {shown(parts['import_matplotlib'])}, discover() {shown(parts['discover'])}"
                         f" ({len(record['samples_s'])} runs)")
    lines.append("")

    lines.append("CLI start-up (wall time of the whole command)")
    for record in (r for r in records if r["group"] == "cli"):
        if not record["available"]:
            lines.append(f"  {record['note']}")
        elif record.get("failed"):
            lines.append(f"  {record['candidate']:<76}failed: {record['failed']}")
        else:
            lines.append(f"  {record['candidate']:<76}{shown(record['median_s']):>10}")
    lines.append("")

    lines.append("Targets")
    for t in found:
        if t["measured"] is None:
            value, status = "—", "not measured" if "failed" not in t["detail"] else "FAILED"
        else:
            value = _in_unit(t["measured"], t["unit"])
            status = "met" if t["met"] else "NOT MET"
        limit = f"{t['comparison']} {_in_unit(t['limit'], t['unit'])}"
        lines.append(f"  {t['target']:<66}{value:>10}  {limit:>9}  {status:<12} {t['detail']}")
    return "\n".join(lines)


def _in_unit(value: float, unit: str) -> str:
    """A target's measure or limit as its unit reads: a ratio ``1.2×``, a time ``96 ms``, a share
    ``99.1 %`` (unit ""), a rate ``2.1e+07 points/s``."""
    if unit == "×":
        return times(value)
    if unit == "s":
        return shown(value)
    if unit == "":
        return f"{100 * value:.3g} %"
    return f"{value:.3g} {unit}"


def merge_section(path: Path, key: str, info: dict[str, Any], found: list[dict[str, Any]], text: str,
                  heading: str) -> None:
    """Replace one section's record (``key``), targets and table block (the block starting with
    ``heading``) in the results file ``path``; the block sits before the pipeline's, which
    ``--pipeline-only`` replaces as the tail."""
    results = json.loads(path.read_text(encoding="utf-8"))
    names = {item["target"] for item in found}
    results[key] = info
    results["targets"] = [t for t in results["targets"] if t["target"] not in names] + found
    head, marker, tail = results["table"].partition("\n\nPipeline at ")
    blocks = [block for block in head.split("\n\n") if not block.startswith(heading)]
    results["table"] = "\n\n".join(blocks + [text]) + marker + tail
    path.write_text(json.dumps(results, indent=1, ensure_ascii=False) + "\n")
