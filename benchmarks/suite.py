"""``make test`` at 125 scenarios (issue 25): will the suite fit its budget when the scenarios
more than double?

The repository's tracked files are copied into a temporary folder, its scenarios filled up to
``COUNT`` with renamed copies (``synthetic.add_copies``), each copy with its scenario's own test
file renamed alike, so the tree holds what 125 scenarios with their tests would: generic checks
parametrised over every class and registry entry grow with it, and so do the per-scenario
tests. The tree is generated (not timed: that is the pipeline's benchmark), then ``make test``
runs there as CI runs it (freshness check, lint, the whole suite with the slow tier), timed as
wall time, with pytest's slowest tests. The target: at most 8 minutes on this machine, so the
next waves fit the 10-minute budget.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import synthetic
from report import merge_section
from timing import ROOT

COUNT = 125
LIMIT_S = 8 * 60
SLOWEST = 15


def build_tree(root: Path, count: int = COUNT) -> list[str]:
    """The repository's tracked files in ``root`` (its virtual environment linked, its render
    cache copied), filled with scenario copies and their tests up to ``count``; their names."""
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    for name in listed.decode().split("\0"):
        source = ROOT / name
        if name and source.is_file():  # a file deleted in the working tree is not copied
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, root / name)
    (root / ".venv").symlink_to(ROOT / ".venv")
    cache = ROOT / ".cache"
    if cache.is_dir():  # the real scenarios render from cache; the copies are new modules, rendered cold
        shutil.copytree(cache, root / ".cache", symlinks=True)
    return synthetic.add_copies(root, count, tests=root / "tests")


def _durations(output: str) -> list[dict[str, Any]]:
    """pytest's ``--durations`` lines: ``12.34s call     tests/x.py::test_y``."""
    found = re.findall(r"^(\d+\.\d+)s (call|setup|teardown)\s+(\S+)", output, re.MULTILINE)
    return [{"seconds": float(seconds), "phase": phase, "test": test} for seconds, phase, test in found]


def measure(count: int = COUNT) -> dict[str, Any]:
    """``make test`` in a synthetic tree of ``count`` scenarios: wall time, outcome, slowest tests."""
    with tempfile.TemporaryDirectory(prefix="mlsysym-suite-") as directory:
        root = Path(directory)
        names = build_tree(root, count)
        env = {**os.environ, "PYTHONPATH": str(root), "MPLBACKEND": "Agg",
               "XDG_CACHE_HOME": str(root / ".cache" / "user")}
        begun = time.perf_counter()
        generated = subprocess.run([sys.executable, "-m", "symbolic.generate"], cwd=root, env=env,
                                   capture_output=True, text=True, check=False)
        render = time.perf_counter() - begun
        if generated.returncode != 0:
            raise RuntimeError(f"generate failed in the synthetic tree: {generated.stderr.strip()[-2000:]}")
        tests = len(list((root / "tests").rglob("test_*.py")))
        begun = time.perf_counter()
        # `-o install`: the linked environment is used as it is (its stamp would be older than the copies)
        completed = subprocess.run(["make", "-o", "install", "test"], cwd=root, capture_output=True, text=True,
                                   check=False, env={**env, "PYTEST_ADDOPTS": f"--durations={SLOWEST}"})
        elapsed = time.perf_counter() - begun
    output = completed.stdout + completed.stderr
    summary = next((line.strip("= ") for line in reversed(output.splitlines())
                    if re.search(r"\d+ (passed|failed)", line)), "no pytest summary")
    return {"scenarios": len(names), "test_files": tests, "render_s": render, "make_test_s": elapsed,
            "returncode": completed.returncode, "summary": summary, "slowest": _durations(output)[:SLOWEST],
            "tail": output.splitlines()[-40:] if completed.returncode else []}


def targets(result: dict[str, Any]) -> list[dict[str, Any]]:
    count = result["scenarios"]
    passed = result["returncode"] == 0
    return [{"target": f"make test at {count} scenarios (synthetic tree) ≤ 8 min", "measured": result["make_test_s"],
             "limit": LIMIT_S, "comparison": "<=", "unit": "s", "met": passed and result["make_test_s"] <= LIMIT_S,
             "detail": f"wall time of make test (check, lint, every test with the slow tier): {result['summary']}"
                       + ("" if passed else f"; make test FAILED (exit {result['returncode']})")}]


def table(result: dict[str, Any]) -> str:
    count = result["scenarios"]
    lines = [f"make test at {count} scenarios (a synthetic tree: the real scenarios and renamed copies, each "
             f"with its scenario test; {result['test_files']} test files), wall time:",
             f"  make test                          {result['make_test_s']:8.1f} s   {result['summary']}",
             f"  (generate before it, not timed in make test: {result['render_s']:.0f} s)",
             "  slowest tests:"]
    lines += [f"    {item['seconds']:7.2f} s  {item['phase']:<8} {item['test']}" for item in result["slowest"]]
    return "\n".join(lines)


def merge_into(path: Path, count: int = COUNT) -> None:
    """Measure the suite alone and replace its record, target and table block in ``path``."""
    info = measure(count)
    found = targets(info)
    text = table(info)
    print(text)
    print("\n".join(info["tail"]))
    for item in found:
        print(f"  {'met' if item['met'] else 'NOT met'}: {item['target']} ({item['measured']:.0f} s)")
    merge_section(path, "suite", info, found, text, "make test at ")


if __name__ == "__main__":  # python benchmarks/suite.py [COUNT]: measure and print, results.json untouched
    import json

    found = measure(int(sys.argv[1]) if len(sys.argv) > 1 else COUNT)
    print(table(found))
    print("\n".join(found["tail"]))
    print(json.dumps(found, indent=1, ensure_ascii=False))
