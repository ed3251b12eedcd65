"""Reference pages generated from other sources of truth: the search API's page and the
benchmark results file (``benchmarks/results.json``, written by ``make bench``). The CLI's
page reads the command line, a layer above this one: ``symbolic/generate/cli_page.py``."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from jinja2 import Environment
from symbolic.codegen.machine_page import machine_files
from symbolic.codegen.validation_page import validation_files

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "benchmarks" / "results.json"


def benchmark_results() -> dict[str, Any] | None:
    """The last benchmark run, without its raw samples (None when there is none)."""
    if not RESULTS.exists():
        return None
    data = json.loads(RESULTS.read_text(encoding="utf-8"))
    return {"date": data.get("date", ""), "versions": data.get("versions", {}), "cpus": data.get("cpus"),
            "seconds": data.get("seconds"), "targets": data.get("targets", []), "table": data.get("table", ""),
            "notes": data.get("notes", [])}


def reference_files(env: Environment, header: Callable[[str, str], list[str]]) -> dict[str, str]:
    files = {"generated/docs/search.md": env.get_template("search.md.j2").render(
        header=header("symbolic/runtime/search.py", "search.md.j2"))}

    files.update(machine_files(env, header))

    files.update(validation_files(env, header))
    results = benchmark_results()
    if results is not None:
        files["generated/docs/benchmarks.md"] = env.get_template("benchmarks.md.j2").render(
            header=header("benchmarks/results.json (make bench)", "benchmarks.md.j2"), results=results)
    return files
