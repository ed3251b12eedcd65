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
from symbolic.calibration import conditions
from symbolic.calibration import here
from symbolic.calibration.calibrate import host_table, measured, node_fields
from symbolic.calibration.machine import usable_cores
from symbolic.cli.output import emit, json_text, table
from symbolic.cli.progress import progress_line
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
    loaded = loaded_before(limits.max_load_per_core)
    if loaded and not args.force:  # known before the first block: measure nothing
        print(f"mlsysym: calibrate: not measured: {loaded}; nothing written (--force measures anyway)",
              file=sys.stderr)
        return REFUSED
    with progress_line(args.json) as progress:
        result = calibration.calibrate(plan, threads, limits=limits, progress=progress)
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


def loaded_before(max_per_core: float) -> str | None:
    """Why the machine is too loaded to start measuring, or None: read before the first block."""
    return conditions.too_loaded(conditions.current_load(), usable_cores(), max_per_core, "before")


def flag_text(reason: str | None) -> str:
    return f"FLAGGED: {reason}" if reason else ""


def report(result: Any, written: str | None) -> dict[str, Any]:

    return {"node": node_fields(result), "host": host_table(result),
            "measured": {name: figure._asdict() for name, figure in measured(result).items()},
            "flagged": dict(getattr(result, "flagged", {})), "refused": result.refusal, "written": written}


def text_report(result: Any, written: str | None) -> str:

    facts = result.facts
    lines = [f"machine: {facts['cpu_model']}, {facts['cores']} cores, {facts['memory']}; "
             f"{', '.join(facts['caches'])}",
             f"BLAS: {facts['blas']} ({facts['blas_kernel']}); numpy {facts['numpy']}; torch {facts['torch']}",
             f"load average {result.load_before[0]:.2f} before, {result.load_after[0]:.2f} after; "
             f"{result.plan.label} plan, {result.plan.blocks} blocks, {result.seconds:.0f} s", ""]
    flagged = getattr(result, "flagged", {})
    if result.refusal is not None:  # the reader learns first that these figures are not the machine's
        lines.insert(0, f"NOT TRUSTED: {result.refusal}\n")
    rows = [(name, figure.value, f"{figure.spread:.1%}", figure.blocks, flag_text(flagged.get(name)))
            for name, figure in measured(result).items()]
    lines.append(table(rows, ("figure", "median", "spread", "blocks", "flag")))
    node = node_fields(result)
    lines += ["", f"node: {node['name']}: peak {node['peak_flops']}, bandwidth {node['memory_bandwidth']}"]
    lines.append("verdict: " + ("ok" if result.refusal is None else f"refused: {result.refusal}"))
    if written:
        lines.append(f"wrote {written} (use it as --set hardware=@{written})")
    return "\n".join(lines)


def cmd_validate(args: argparse.Namespace) -> int:
    suites = here.parse_suites(args.suite)
    limits, cores, force = calibration.Limits(), usable_cores(), getattr(args, "force", False)
    load_before = conditions.current_load()
    loaded = conditions.too_loaded(load_before, cores, limits.max_load_per_core, "before")
    if loaded and not force:  # known before the first point: measure nothing
        print(f"mlsysym: validate --here: not measured: {loaded}; its errors would measure the other "
              "processes, not the model (--force measures anyway)", file=sys.stderr)
        return REFUSED
    if args.node:
        node_file, source = read_node_file(args.node), args.node
    else:  # a quick calibration, refused or not (its verdict is kept with the result)
        with progress_line(args.json) as progress:
            result = calibration.calibrate(calibration.QUICK, calibration.parse_threads("1", cores),
                                           progress=progress)
        node_file = node_file_from_mapping(tomllib.loads(calibration.node_file(result)), "quick calibration")
        source = "a quick calibration just now"
    with progress_line(args.json) as progress:
        data = here.run(node_file, suites, progress=progress)
    data["conditions"] = run_conditions(load_before, conditions.current_load(), cores, node_file, source,
                                        data.get("drift", {}), limits)
    data["node"] = {"name": node_file.node.name, "host": node_file.host,
                    "measured": {name: figure._asdict() for name, figure in node_file.measured.items()}}
    if args.out:
        Path(args.out).write_text(json_text(data) + "\n", encoding="utf-8")
    emit(args, json.loads(json.dumps(data, default=str)) if args.json else data, validate_text(data))
    problems = data["conditions"]["problems"]
    if problems and not force:
        print(f"mlsysym: validate --here: not trusted: {'; '.join(problems)} (--force accepts the run)",
              file=sys.stderr)
        return REFUSED
    return 0


def run_conditions(load_before: tuple[float, float, float], load_after: tuple[float, float, float], cores: int,
                   node_file: Any, source: str, drift: dict[str, float], limits: Any) -> dict[str, Any]:
    """What the run was measured under, and every reason its errors cannot be trusted (none: trusted)."""
    verdict = str(node_file.host.get("verdict", "unknown"))
    watched = calibration.headline(int(node_file.host.get("threads", 1)))
    spread = {name: node_file.measured[name].spread for name in watched if name in node_file.measured}
    problems = [reason for when, load in (("before", load_before), ("after", load_after))
                if (reason := conditions.too_loaded(load, cores, limits.max_load_per_core, when))]
    if verdict not in ("ok", "unknown"):  # an older node file without a verdict is not proof of trouble
        problems.append(f"the calibration's verdict is {verdict!r}")
    problems += [f"{name} moved {value:.0%} across the calibration blocks between suites (limit "
                 f"{limits.max_spread:.0%})" for name, value in drift.items() if value > limits.max_spread]
    return {"load_before": list(load_before), "load_after": list(load_after), "cores": cores,
            "calibration": source, "calibration_verdict": verdict, "calibration_spread": spread,
            "drift": drift, "problems": problems, "trusted": not problems}


def conditions_line(found: dict[str, Any]) -> str:
    """One line under every table: the load, the calibration's verdict and the spreads."""
    spreads = ", ".join(f"{name} {value:.1%}" for name, value in found["calibration_spread"].items())
    moved = ", ".join(f"{name} {value:.1%}" for name, value in found["drift"].items())
    return (f"conditions: {conditions.load_text(found['load_before'], found['load_after'], found['cores'])}; "
            f"calibration ({found['calibration']}): {found['calibration_verdict']}"
            + (f", spread {spreads}" if spreads else "") + (f"; blocks between suites moved {moved}" if moved else ""))


def validate_text(data: dict[str, Any]) -> str:
    rows = [(item["name"], f"{item['measured']['value']:.4g} {item['measured']['unit']}",
             f"{item['predicted']['value']:.4g} {item['predicted']['unit']}", f"{item['error']:+.1%}",
             f"{item['repeat']:+.1%}", item.get("regime", "")) for item in data["rows"]]
    found = data.get("conditions")
    under = conditions_line(found) if found else ""
    lines = ([f"NOT TRUSTED: {'; '.join(found['problems'])}: the errors below measure the machine's other "
              "work, not the model", ""] if found and found["problems"] else [])
    lines += [table(rows, ("point", "measured", "predicted", "error", "repeat", "regime")), under, ""]
    stats = [(kind, s["points"], f"{s['median_abs_error']:.1%}", f"{s['mean_abs_error']:.1%}",
              f"{s['max_abs_error']:.1%}", f"{s['within_2x']}/{s['points']}", f"{s['within_20pct']}/{s['points']}",
              f"{s['noise']:.1%}") for kind, s in data["summary"].items()]
    lines.append(table(stats, ("kind", "points", "median |err|", "mean |err|", "max |err|", "within 2x",
                               "within 20%", "noise")))
    if under:
        lines.append(under)
    lines.append(f"node: {data['node']['name']}")
    return "\n".join(lines)
