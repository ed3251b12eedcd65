"""``mlsysym calibrate``: measure this machine and write its node file."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from symbolic.cli.output import emit, table

REFUSED = 2  # the exit status of a run too noisy to give a verdict (as for bad input: nothing was written)


def add_calibrate_parser(command: Any) -> None:
    sub = command("calibrate", cmd_calibrate,
                  "measure this machine (matmul, STREAM, cache points, host costs, allocation) into a node file")
    sub.add_argument("--quick", action="store_true", help="3 short blocks per figure (under a minute) instead of 7")
    sub.add_argument("--threads", metavar="N,M", help="BLAS/STREAM thread counts to measure; the first is the "
                                                      "node's (default 1,2 on two or more cores)")
    sub.add_argument("--out", metavar="FILE", help="write the node file here (default: print it only)")
    sub.add_argument("--force", action="store_true",
                     help="write the node file even when the run is refused, its verdict saying why")
    sub.add_argument("--max-load", type=float, default=None, metavar="X",
                     help="refuse when other processes keep the load average above X per core (default 0.75)")
    sub.add_argument("--max-spread", type=float, default=None, metavar="X",
                     help="refuse when a headline figure's blocks spread more than X (default 0.25)")


def cmd_calibrate(args: argparse.Namespace) -> int:
    from symbolic.calibration import calibrate as calibration
    from symbolic.calibration.machine import usable_cores
    from symbolic.cli.values import UsageError

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
    from symbolic.calibration.calibrate import host_table, measured, node_fields

    return {"node": node_fields(result), "host": host_table(result),
            "measured": {name: figure._asdict() for name, figure in measured(result).items()},
            "refused": result.refusal, "written": written}


def text_report(result: Any, written: str | None) -> str:
    from symbolic.calibration.calibrate import measured, node_fields

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
