"""``mlsysym calibrate`` (measure this machine and write its node file) and ``mlsysym validate --here``.

The probes load numpy: this module is loaded only when one of its commands runs (the CLI loads each
command's module on dispatch); their options are declared with the others in ``symbolic.cli``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import json
import tomllib

from symbolic.calibration import calibrate as calibration
from symbolic.calibration import here
from symbolic.calibration.calibrate import host_table, measured, node_fields
from symbolic.calibration.machine import usable_cores
from symbolic.cli.output import emit, json_text, table
from symbolic.cli.usage import UsageError
from symbolic.runtime.node_file import node_file_from_mapping, read_node_file

REFUSED = 2  # the exit status of a run too noisy to give a verdict (as for bad input: nothing was written)


def cmd_calibrate(args: argparse.Namespace) -> int:
    limits = calibration.Limits()
    for flag, value in (("--max-load", args.max_load), ("--max-spread", args.max_spread)):
        if value is not None and not value > 0:
            raise UsageError(f"{flag} is {value!r}; expected a positive number")
    limits = limits._replace(**{key: value for key, value in (("max_load_per_core", args.max_load),
                                                               ("max_spread", args.max_spread)) if value})
    threads = calibration.parse_threads(args.threads, usable_cores())
    plan = calibration.QUICK if args.quick else calibration.FULL
    quiet = args.json or not sys.stderr.isatty()
    result = calibration.calibrate(plan, threads, limits=limits,
                                   progress=None if quiet else lambda text: print(f"\r{text:<60}", end="",
                                                                                   file=sys.stderr))
    if not quiet:
        print("\r" + " " * 60 + "\r", end="", file=sys.stderr)
    written = None
    if args.out and (result.refusal is None or args.force):
        Path(args.out).write_text(calibration.node_file(result, args.out), encoding="utf-8")
        written = args.out
    emit(args, report(result, written), text_report(result, written))
    if result.refusal is not None:
        print(f"mlsysym: calibrate: no verdict: {result.refusal}"
              + ("" if written else "; nothing written (--force writes it anyway)"), file=sys.stderr)
        return REFUSED
    return 0


def report(result: Any, written: str | None) -> dict[str, Any]:

    return {"node": node_fields(result), "host": host_table(result),
            "measured": {name: figure._asdict() for name, figure in measured(result).items()},
            "refused": result.refusal, "written": written}


def text_report(result: Any, written: str | None) -> str:

    facts = result.facts
    lines = [f"machine: {facts['cpu_model']}, {facts['cores']} cores, {facts['memory']}; "
             f"{', '.join(facts['caches'])}",
             f"BLAS: {facts['blas']} ({facts['blas_kernel']}); numpy {facts['numpy']}; torch {facts['torch']}",
             f"load average {result.load_before[0]:.2f} before, {result.load_after[0]:.2f} after; "
             f"{result.plan.label} plan, {result.plan.blocks} blocks, {result.seconds:.0f} s", ""]
    rows = [(name, figure.value, f"{figure.spread:.1%}", figure.blocks) for name, figure in measured(result).items()]
    lines.append(table(rows, ("figure", "median", "spread", "blocks")))
    node = node_fields(result)
    lines += ["", f"node: {node['name']}: peak {node['peak_flops']}, bandwidth {node['memory_bandwidth']}"]
    lines.append("verdict: " + ("ok" if result.refusal is None else f"refused: {result.refusal}"))
    if written:
        lines.append(f"wrote {written} (use it as --set hardware=@{written})")
    return "\n".join(lines)


def cmd_validate(args: argparse.Namespace) -> int:
    suites = here.parse_suites(args.suite)
    if args.node:
        node_file = read_node_file(args.node)
    else:  # a quick calibration, refused or not (its verdict is kept with the result)
        result = calibration.calibrate(calibration.QUICK, calibration.parse_threads("1", usable_cores()))
        node_file = node_file_from_mapping(tomllib.loads(calibration.node_file(result)), "quick calibration")
    quiet = args.json or not sys.stderr.isatty()
    data = here.run(node_file, suites, progress=None if quiet else lambda text: print(f"\r{text:<60}", end="",
                                                                                       file=sys.stderr))
    if not quiet:
        print("\r" + " " * 60 + "\r", end="", file=sys.stderr)
    data["node"] = {"name": node_file.node.name, "host": node_file.host,
                    "measured": {name: figure._asdict() for name, figure in node_file.measured.items()}}
    if args.out:
        Path(args.out).write_text(json_text(data) + "\n", encoding="utf-8")
    emit(args, json.loads(json.dumps(data, default=str)) if args.json else data, validate_text(data))
    return 0


def validate_text(data: dict[str, Any]) -> str:
    rows = [(item["name"], f"{item['measured']['value']:.4g} {item['measured']['unit']}",
             f"{item['predicted']['value']:.4g} {item['predicted']['unit']}", f"{item['error']:+.1%}",
             f"{item['repeat']:+.1%}", item.get("regime", "")) for item in data["rows"]]
    lines = [table(rows, ("point", "measured", "predicted", "error", "repeat", "regime")), ""]
    stats = [(kind, s["points"], f"{s['median_abs_error']:.1%}", f"{s['mean_abs_error']:.1%}",
              f"{s['max_abs_error']:.1%}", f"{s['within_2x']}/{s['points']}", f"{s['within_20pct']}/{s['points']}",
              f"{s['noise']:.1%}") for kind, s in data["summary"].items()]
    lines.append(table(stats, ("kind", "points", "median |err|", "mean |err|", "max |err|", "within 2x",
                               "within 20%", "noise")))
    lines.append(f"node: {data['node']['name']}")
    return "\n".join(lines)
