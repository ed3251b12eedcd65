"""The "This machine" page, from the committed calibration and validation run.

``make validate-here`` writes ``benchmarks/this_machine.json`` (``mlsysym validate --here --out``,
with the node file it predicted from); this module turns it into ``generated/docs/this_machine.md``
and its chart: the machine card, each figure with its spread, the error by kind and regime, the op
counts the scenario assumes against those traced, what is left per operation, and every row.
Nothing here measures: the numbers are the run's, so regenerating never changes them.
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Callable
from pathlib import Path
from typing import Any

from jinja2 import Environment
from symbolic.codegen.charts import machine_chart

ROOT = Path(__file__).resolve().parents[2]
RUN = ROOT / "benchmarks" / "this_machine.json"
ASSUMED = {"forward": 4, "backward": 5}  # MlpTrainingStepScenario's defaults: the reference's counts


def machine_run(path: Path = RUN) -> dict[str, Any] | None:
    """The committed run, with the tables the page shows derived from its rows (None without one)."""
    if not path.exists():
        return None
    data = json.loads(path.read_text(encoding="utf-8"))
    rows = data["rows"]
    return {**data, "regimes": regimes(rows), "counts": op_counts(rows), "left": left_per_op(rows),
            "assumed_error": assumed_error(rows)}


def regimes(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Median |error| per kind and regime (host-, compute- or memory-bound as predicted)."""
    groups: dict[tuple[str, str], list[float]] = {}
    for item in rows:
        groups.setdefault((item["kind"], item.get("regime", "—")), []).append(abs(item["error"]))
    return [{"kind": kind, "regime": regime, "points": len(errors), "median": statistics.median(errors),
             "worst": max(errors)} for (kind, regime), errors in sorted(groups.items())]


def op_counts(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The operations one MLP step issues, traced, against the scenario's defaults (one per framework)."""
    seen: dict[str, dict[str, Any]] = {}
    for item in rows:
        if item["kind"].startswith("mlp-") and "counts" in item:
            seen.setdefault(item["kind"], {"kind": item["kind"], **item["counts"]})
    return [{**counts, "assumed_forward": ASSUMED["forward"], "assumed_backward": ASSUMED["backward"]}
            for counts in seen.values()]


def assumed_error(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Median |error| of the MLP step with the traced counts against the reference's counts."""
    out = []
    for kind in sorted({item["kind"] for item in rows if item["kind"].startswith("mlp-")}):
        items = [item for item in rows if item["kind"] == kind and "assumed_counts_us" in item]
        traced = [abs(item["error"]) for item in items]
        assumed = [abs(item["assumed_counts_us"] / item["measured"]["value"] - 1) for item in items]
        within = [max(r, 1 / r) <= 2 for r in (item["assumed_counts_us"] / item["measured"]["value"] for item in items)]
        out.append({"kind": kind, "points": len(items), "traced": statistics.median(traced),
                    "assumed": statistics.median(assumed), "assumed_within_2x": sum(within),
                    "traced_within_2x": sum(max(1 + item["error"], 1 / (1 + item["error"])) <= 2 for item in items)})
    return out


def left_per_op(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Measured minus predicted time per issued operation, at host-bound points: the host cost per
    operation the calibration's tiny op does not capture (argument parsing, shapes, reductions)."""
    out = []
    for kind in sorted({item["kind"] for item in rows if item["kind"].startswith("mlp-")}):
        items = [item for item in rows if item["kind"] == kind and item.get("regime") == "host" and item.get("ops")]
        if items:
            left = [(item["measured"]["value"] - item["predicted"]["value"]) / item["ops"] for item in items]
            out.append({"kind": kind, "points": len(items), "median_us": statistics.median(left),
                        "low_us": min(left), "high_us": max(left)})
    return out


def machine_files(env: Environment, header: Callable[[str, str], list[str]]) -> dict[str, str]:
    """The page and its chart, when a run is committed."""
    run = machine_run()
    if run is None:
        return {}

    files = {"generated/docs/this_machine.md": env.get_template("this_machine.md.j2").render(
        header=header("benchmarks/this_machine.json (make validate-here)", "this_machine.md.j2"), run=run)}
    files["generated/docs/charts/this_machine.svg"] = machine_chart(
        run["rows"], header("benchmarks/this_machine.json (make validate-here)", "charts.mplstyle"))
    return files
