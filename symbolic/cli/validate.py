"""``mlsysym validate``: every measured run predicted from the declared equations, against its measurement.

The project's own runs (``symbolic/catalog/measurements.toml``) and those of each ``--file`` are
validated as one set (``symbolic.catalog.measurements``), each built as an instance of the scenario
its kind names, from the same inputs as its registry entry, and every measured quantity set against
the prediction: ``error`` = predicted/measured - 1. ``--here`` instead runs the scenarios' workloads
on this machine (``symbolic.cli.calibration``). The catalog's record types load sympy: this module is
loaded only when the command runs (the CLI loads each command's module on dispatch).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import generated
from symbolic.catalog.measurements import UNITS
from symbolic.cli import calibration
from symbolic.cli.fits import fit_report
from symbolic.cli.output import emit, json_text, table
from symbolic.cli.runs import predicted, predicted_quantity, runs_of
from symbolic.cli.usage import UsageError
from symbolic.runtime.search import search

# the summaries the README and the validation page quote: kind and quantity
QUANTITY_LABELS = {"iteration_time": "iteration time", "params_optimizer_per_gpu": "params & optimizer per GPU",
                   "activations_per_gpu": "activations per GPU", "ttft": "time to first token",
                   "flops_per_gpu": "FLOP/s per GPU"}


def cmd_validate(args: argparse.Namespace) -> int:
    if args.here:
        return calibration.cmd_validate(args)
    if args.only and not args.file:
        raise UsageError("--only needs at least one --file RUNS.toml")
    data = validate(args.file, own=not args.only)
    lines = [text(data)]
    if args.fit:
        data["fits"] = fit_report()
        lines.append(fits_text(data["fits"]))
    if args.search:
        data["search"] = best_layout()
        lines.append(search_text(data["search"]))
    if args.out:
        Path(args.out).write_text(json_text(data) + "\n", encoding="utf-8")
    emit(args, data, "\n\n".join(lines))
    return 0


# The best-layout search of the issue: the 530B model (Korthikanti et al.'s configuration, selective
# recomputation with sequence parallelism as the base) at a global batch of 2,240 sequences on 2,240 to
# 4,096 A100s, every layout of t, p, d, micro-batch, interleaving, recomputation and sequence parallelism.
SEARCH_BASE = "Megatron530BSeqSelective"
SEARCH_SET: dict[str, Any] = {"global_batch": 2240}
SEARCH_VARY: dict[str, list[Any]] = {"tp": [1, 2, 4, 8], "pp": [1, 3, 5, 7, 15, 21, 35, 105], "dp": list(range(1, 513)),
               "micro_batch": [1, 2, 4, 8], "interleave": [1, 3, 5, 7], "recompute": ["none", "selective", "full"],
               "sequence_parallel": [0, 1]}
SEARCH_WHERE = ["tp * pp * dp >= 2240", "tp * pp * dp <= 4096"]  # memory: the scenario's Fits skips the rest


def search_command() -> str:
    """The same search as ``mlsysym search`` runs it."""
    def values(items: list[Any]) -> str:
        if len(items) > 8 and items == list(range(items[0], items[-1] + 1)):
            return f"{items[0]}..{items[-1]}"
        return ",".join(str(item) for item in items)

    parts = [f"mlsysym search {SEARCH_BASE}", *(f"--set {k}={v}" for k, v in SEARCH_SET.items()),
             *(f"--vary {k}={values(v)}" for k, v in SEARCH_VARY.items()), *(f"--where '{w}'" for w in SEARCH_WHERE),
             "--minimize iteration_time"]
    return " ".join(parts)


def best_layout() -> dict[str, Any]:
    """The fastest iteration of the search, its memory share, and what the search took."""
    base = getattr(generated.Scenarios, SEARCH_BASE).variant(**SEARCH_SET)
    result = search(base, SEARCH_VARY, SEARCH_WHERE, minimize="iteration_time", top=5)
    rows = []
    for row in result.rows:
        inputs = {k: (v if isinstance(v, (int, float, str)) else str(v)) for k, v in row.inputs.items()}
        layout = base.variant(**inputs)
        rows.append({"inputs": inputs, "iteration_time": float(row.objectives["iteration_time"][0]),
                     "memory_per_gpu": float(layout.memory_per_gpu.to("GiB").magnitude),
                     "device_memory": float(layout.fits_have.to("GiB").magnitude)})
    return {"command": search_command(), "points": result.size, "evaluated": result.evaluated,
            "feasible": result.feasible, "skipped": dict(result.skipped), "seconds": result.seconds, "rows": rows}


def fits_text(fits: list[dict[str, Any]]) -> str:
    rows = [(f"{fit['section']}.{fit['figure']}", f"{fit['value']:g}", f"{fit['fitted']:.4g}", run["name"],
             f"{run['error']:+.1%}", f"{run['fitted_without']:.4g}", f"{run['loo_error']:+.1%}")
            for fit in fits for run in fit["rows"]]
    return table(rows, ("figure", "catalog", "refit", "run", "error", "fit without it", "its error then"))


def search_text(found: dict[str, Any]) -> str:
    best = found["rows"][0] if found["rows"] else None
    answer = (", ".join(f"{k} {v}" for k, v in best["inputs"].items()) + f": {best['iteration_time']:.4g} s per "
              f"iteration" if best else "no layout fits")
    return (f"{found['command']}\n{found['points']:,} points, {found['feasible']:,} feasible, "
            f"{found['seconds']:.2f} s; best: {answer}")


def validate(files: list[str], own: bool = True) -> dict[str, Any]:
    """``{"rows": [...], "summary": {...}}`` as ``--json`` prints it."""

    rows = []
    for run in runs_of(files, own):
        instance = predicted(run)
        for quantity, measured in run.measured.items():
            unit = UNITS[quantity]
            value = predicted_quantity(instance, run, quantity).to(unit).magnitude
            truth = measured.to(unit).magnitude
            rows.append({"name": run.name, "kind": run.kind, "quantity": quantity,
                         "measured": {"value": float(truth), "unit": unit},
                         "predicted": {"value": float(value), "unit": unit},
                         "error": float(value / truth - 1), "source": run.source, "file": run.file})
    return {"rows": rows, "summary": summary(rows)}


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Per kind, and per quantity within it: the runs, mean and max absolute error."""
    out: dict[str, Any] = {}
    for kind in sorted({row["kind"] for row in rows}, key=["training", "prefill"].index):
        mine = [row for row in rows if row["kind"] == kind]
        out[kind] = dict(_stats(mine), quantities={
            quantity: _stats([row for row in mine if row["quantity"] == quantity])
            for quantity in dict.fromkeys(row["quantity"] for row in mine)})
    return out


def _stats(rows: list[dict[str, Any]]) -> dict[str, Any]:
    errors = [abs(row["error"]) for row in rows]
    return {"rows": len(rows), "mean_abs_error": sum(errors) / len(errors), "max_abs_error": max(errors)}


def summary_line(data: dict[str, Any]) -> str:
    """One line per kind and quantity: what the README quotes."""
    parts = []
    for kind, stats in data["summary"].items():
        for quantity, s in stats["quantities"].items():
            parts.append(f"{kind} {QUANTITY_LABELS.get(quantity, quantity)}: mean {100 * s['mean_abs_error']:.1f} %, "
                         f"max {100 * s['max_abs_error']:.1f} % ({s['rows']} run{'s' if s['rows'] != 1 else ''})")
    return "; ".join(parts)


def text(data: dict[str, Any]) -> str:
    rows = [(row["name"], QUANTITY_LABELS.get(row["quantity"], row["quantity"]),
             f"{row['measured']['value']:.5g} {row['measured']['unit']}",
             f"{row['predicted']['value']:.5g} {row['predicted']['unit']}", f"{row['error']:+.1%}")
            for row in data["rows"]]
    stats = [(kind, QUANTITY_LABELS.get(quantity, quantity), s["rows"], f"{s['mean_abs_error']:.1%}",
              f"{s['max_abs_error']:.1%}")
             for kind, kind_stats in data["summary"].items() for quantity, s in kind_stats["quantities"].items()]
    return "\n".join([table(rows, ("run", "quantity", "measured", "predicted", "error")), "",
                      table(stats, ("kind", "quantity", "runs", "mean |err|", "max |err|"))])
