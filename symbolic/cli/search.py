"""``mlsysym search``: the best points of a design space, from the command line.

Each ``--vary name=SPEC`` is one axis: a numeric range or list as ``sweep`` reads them
(``1..1024:log2``, ``1..64``, ``10us,20us``), catalog entries (``hardware=Cloud.*`` every node
of a tier, ``hardware=*`` every node, ``hardware=H100,B200``; ``workload=Language.*``,
``workload=Llama2_70B,GPT3``), precision or option keys (``peak_precision=fp16,fp8``, or
``peak_precision=each``: every precision each node lists).
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from typing import Any

from symbolic.cli.output import cell, choice_labels, json_text, shown, table
from symbolic.cli.files import from_file
from symbolic.cli.usage import UsageError
from symbolic.cli.values import (_nearest, build, catalog_entry, instance, once_each, parse_setting, parse_vary,
                                 scenario_class)
from symbolic.runtime.hardware import HardwareNode
from symbolic.runtime.search import CHUNK_POINTS, EACH_PRECISION, every, search
import generated


def cmd_search(args: argparse.Namespace) -> int:
    if not (args.minimize or args.maximize):
        raise UsageError("search needs an objective: --minimize OUTPUT or --maximize OUTPUT")
    if args.top < 1:
        raise UsageError(f"--top must be at least 1, got {args.top}")
    if args.scheduler and args.engine != "dask":
        raise UsageError("--scheduler is for --engine dask")
    cls = scenario_class(args.scenario)
    vary = once_each((parse_axis(cls, text) for text in args.vary), "--vary")
    both = [name for name in vary if any(s.partition("=")[0].strip() == name for s in args.set or [])]
    if both:  # the varied values would silently replace the --set one
        raise UsageError(f"{both[0]} is given to both --vary and --set; give it in one")
    if args.scenario in generated.Scenarios:
        base: Any = build(cls, instance(args.scenario), args.set or [])
        fixed = None
    else:
        base, fixed = cls, once_each((parse_setting(cls, s) for s in args.set or []), "--set")
    # a bar on a terminal only: a pipe or a script's --json gets the result alone
    bar = _ProgressBar(after=0.0 if args.progress else None if args.json or args.quiet or not sys.stderr.isatty()
                       else 1.0)
    where = [flag_condition(cls, text) for text in args.where or []]
    result = search(base, vary, where, minimize=args.minimize or [], maximize=args.maximize or [],
                    fixed=fixed, top=args.top, chunk_points=CHUNK_POINTS if args.chunk is None else args.chunk, engine=args.engine,
                    scheduler=args.scheduler, progress=bar)
    bar.close()
    if args.json:
        print(json_text(result.to_dict()))
        return 0
    print(summary(result))
    if result.rows:
        print(results_table(result, cls))
    return 0


def flag_condition(cls: Any, text: str) -> str:
    """``--where fits``: a yes/no output alone means it holds (``fits == 1``), as a person writes it."""
    name = text.strip()
    negated = name.startswith("not ")
    name = name.removeprefix("not ").strip()
    if re.fullmatch(r"[A-Za-z_][\w.]*", name) and tuple(choice_labels(cls, name)) == (False, True):
        return f"{name} == {0 if negated else 1}"
    return text


def summary(result: Any) -> str:
    goal = "; ".join(f"{sense} {text}" for sense, text, _ in result.objectives)
    unranked = (f" ({result.unranked:,} of them unranked: the objective is undefined there, e.g. a division by 0, "
                "or beyond double range)") if result.unranked else ""
    kind = f"Pareto front of {result.front} points" if result.front is not None else f"best {len(result.rows)}"
    why = "".join(f"\n  {count:,} skipped: {reason}" for reason, count in result.skipped.items())
    return (f"{result.size:,} points: {result.evaluated:,} evaluated, {result.invalid:,} invalid (skipped), "
            f"{result.feasible:,} feasible{unranked}; {kind} by {goal} ({result.seconds:.2f} s, {result.chunks} chunk{'s' if result.chunks != 1 else ''}, "
            f"{result.engine}){why}")


def results_table(result: Any, cls: Any = None) -> str:
    first = result.rows[0]
    header = ["#", *first.inputs, *(f"{k} [{u}]" if u else k for k, (_, u) in first.objectives.items()),
              *(f"{k} [{u}]" if u else k for k, (_, u) in first.outputs.items() if k not in first.objectives)]
    rows = []
    for rank, row in enumerate(result.rows, start=1):
        inputs = [_entry(value) for value in row.inputs.values()]
        objectives = [shown(value) for value, _ in row.objectives.values()]
        outputs = [cell(value, choice_labels(cls, key)) if isinstance(value, (int, float)) else shown(value)
                   for key, (value, _) in row.outputs.items() if key not in row.objectives]
        rows.append([rank, *inputs, *objectives, *outputs])
    return table(rows, header)


def entry_name(value: Any) -> str:
    """A catalog entry as people name it (``Hardware.Cloud.H100``, ``Models.Language.GPT3``)."""

    if isinstance(value, HardwareNode) and value.path:
        return f"Hardware.{value.path}"
    return getattr(value, "registry_path", "") or value.path or value.name


def _entry(value: Any) -> str:
    if hasattr(value, "magnitude"):
        return shown(value.magnitude, f"{value.units:~P}")
    if hasattr(value, "path") and hasattr(value, "name"):
        return entry_name(value)
    return shown(value)


class _ProgressBar:
    """A progress bar on stderr once a search has run ``after`` seconds (None: never), redrawn
    at most ten times a second."""

    def __init__(self, after: float | None) -> None:
        self.after = after
        self.started = time.perf_counter()
        self.drawn = 0.0
        self.shown = False

    def __call__(self, done: int, total: int) -> None:
        now = time.perf_counter()
        if self.after is None or now - self.started < self.after or (now - self.drawn < 0.1 and done < total):
            return
        self.drawn, self.shown = now, True
        share = done / total if total else 1.0
        print(f"\r[{'#' * int(30 * share):<30}] {done:,}/{total:,} points, {now - self.started:.1f} s",
              end="", file=sys.stderr, flush=True)

    def close(self) -> None:
        if self.shown:
            print(file=sys.stderr)


def parse_axis(cls: Any, text: str) -> tuple[str, Any]:
    """``name=SPEC`` as the values of one axis of the search."""

    if "=" not in text:
        raise UsageError(f"--vary expects name=values, got {text!r}")
    name, _, spec = (part.strip() for part in text.partition("="))
    nodes = {n.name for n in cls._nodes}
    workloads = {w.name for w in cls._workloads}
    precisions = {p.name for p in cls._precisions}
    keys = precisions | {c.name for c in cls._choices}
    items = [item.strip() for item in spec.split(",")]
    if not spec or any(not item for item in items):
        raise UsageError(f"--vary {name}: expected values separated by commas, got {spec!r}")
    if name in nodes:
        return name, [node for item in items for node in _entries(generated.Hardware, "Hardware", item, "hardware node")]
    if name in workloads:
        return name, [w for item in items for w in _entries(generated.Models, "Models", item, "workload")]
    if name in precisions and spec.lower() == "each":
        return name, EACH_PRECISION
    if name in keys:
        return name, items
    if name in {d.name for d in cls._datasets} or name in {s.name for s in cls._scenarios}:
        return name, [parse_setting(cls, f"{name}={item}")[1] for item in items]
    return parse_vary(cls, text)


def _entries(root: Any, title: str, item: str, what: str) -> list[Any]:
    """``Tier.*`` (a tier's entries), ``*`` (every entry) or one entry."""

    item = item.removeprefix(f"{title}.")
    if item.startswith("@"):  # a file, read as --set reads it (symbolic.cli.files)
        return [from_file({"Models": "workload", "Hardware": "node"}[title], item, f"--vary {what}")]
    if item == "*":
        return [entry for _, tier in root.items() for entry in every(tier)]
    if item.endswith(".*"):
        tier = item[:-2]
        if tier not in root:
            raise _nearest(tier, list(root), f"{title} tier")
        return every(getattr(root, tier))
    return [catalog_entry(title, item, what)]


def add_parser(command: Any) -> None:
    sub = command("search", "search:cmd_search", "the best points of a design space under constraints (top k, or the "
                                        "Pareto front of several objectives)")
    sub.add_argument("scenario", help="a registry name (the inputs not varied) or a scenario class (give --set)")
    sub.add_argument("--vary", action="append", required=True, metavar="NAME=VALUES",
                     help="numbers: a..b, a..b:log2, a..b:lin=N, a..b:step=S, v1,v2 (units allowed: 1us..1ms:log=4); "
                          "catalog: hardware=Cloud.*, hardware=*, hardware=H100,B200, workload=Language.*; "
                          "keys: precision=fp16,fp8, peak_precision=each")
    sub.add_argument("--set", action="append", metavar="NAME=VALUE", help="a fixed input, as for eval")
    sub.add_argument("--where", action="append", metavar="CONSTRAINT",
                     help="e.g. 'result.weight_bytes <= hardware.memory_capacity', 'tp_size * pp_size == 64', "
                          "'result.compute_time <= 5 ms' (all must hold)")
    sub.add_argument("--minimize", action="append", metavar="EXPR", help="an output or expression to minimize")
    sub.add_argument("--maximize", action="append", metavar="EXPR", help="an output or expression to maximize")
    sub.add_argument("--top", type=int, default=10, help="rows to show (default 10)")
    sub.add_argument("--chunk", type=int, metavar="POINTS",
                     help="points per chunk (bounds memory; default: search.CHUNK_POINTS, 8192)")
    sub.add_argument("--engine", choices=("local", "dask"), default="local",
                     help="local (in process) or dask (needs mlsysym[dask])")
    sub.add_argument("--scheduler", metavar="ADDR",
                     help="a Dask scheduler address (default with --engine dask: a local cluster)")
    sub.add_argument("--quiet", action="store_true", help="no progress bar")
    sub.add_argument("--progress", action="store_true", help="a progress bar even on a short search")
