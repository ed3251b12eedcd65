"""Reference pages generated from other sources of truth: the CLI's argument parser and
the benchmark results file (``benchmarks/results.json``, written by ``make bench``)."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from jinja2 import Environment

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "benchmarks" / "results.json"


def cli_commands() -> list[dict[str, str]]:
    """Every command of ``mlsysym`` with its help text, as the parser prints it."""
    from symbolic.cli import build_parser

    parser = build_parser()
    commands = [{"name": "mlsysym", "help": parser.format_help()}]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):  # the subcommands
            for name, sub in action.choices.items():
                commands.append({"name": f"mlsysym {name}", "help": sub.format_help()})
    return commands


def benchmark_results() -> dict[str, Any] | None:
    """The last benchmark run, without its raw samples (None when there is none)."""
    if not RESULTS.exists():
        return None
    data = json.loads(RESULTS.read_text(encoding="utf-8"))
    return {"date": data.get("date", ""), "versions": data.get("versions", {}), "cpus": data.get("cpus"),
            "seconds": data.get("seconds"), "targets": data.get("targets", []), "table": data.get("table", ""),
            "notes": data.get("notes", [])}


def reference_files(env: Environment, header: Callable[[str, str], list[str]]) -> dict[str, str]:
    files = {"generated/docs/cli.md": env.get_template("cli.md.j2").render(
        header=header("symbolic/cli.py (build_parser)", "cli.md.j2"), commands=cli_commands()),
             "generated/docs/search.md": env.get_template("search.md.j2").render(
        header=header("symbolic/runtime/search.py", "search.md.j2"))}
    results = benchmark_results()
    if results is not None:
        files["generated/docs/benchmarks.md"] = env.get_template("benchmarks.md.j2").render(
            header=header("benchmarks/results.json (make bench)", "benchmarks.md.j2"), results=results)
    return files
