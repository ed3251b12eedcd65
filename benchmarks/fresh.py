"""Measurements that need a fresh interpreter: imports, regeneration, CLI start-up.

Imports and regeneration are timed *inside* the child with ``time.perf_counter`` around
the statements of interest, so the interpreter's own start-up is excluded; each child
prints one JSON dict. CLI start-up is the wall time of the whole command (a person
waits for all of it), beside the wall time of a bare ``python -c pass`` for scale.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from timing import ROOT, fresh_rounds

IMPORT_CHILD = """
import time
start = time.perf_counter()
import {module}
seconds = time.perf_counter() - start
import json
print(json.dumps({{"seconds": seconds}}))
"""

FIRST_QUANTITY_CHILD = """
import time
start = time.perf_counter()
import generated
generated.Scenarios.SmallKernelDispatch.dispatch_time
seconds = time.perf_counter() - start
import json
print(json.dumps({"seconds": seconds}))
"""

PINT_REGISTRY_CHILD = """
import time
start = time.perf_counter()
from symbolic.runtime.units import registry
registry()
seconds = time.perf_counter() - start
import json
print(json.dumps({"seconds": seconds}))
"""

# One scenario's part of a regeneration: ``_model_context`` (unit check, evaluator with
# CSE, closed forms, worked examples and whatever else the docs need of it), in a fresh
# interpreter so that sympy's caches are as cold as in a real run. What every scenario
# shares (sympy, the generator's modules, matplotlib if the generator draws charts,
# discovering the declarations) is timed separately, before. Rendering the templates is
# left to render_all (about 1 ms a page when last looked at).
SCENARIO_CHILD = """
import json, sys, time
t0 = time.perf_counter()
import sympy
t1 = time.perf_counter()
from symbolic.codegen import render
from symbolic.scenarios.discover import discover
t2 = time.perf_counter()
try:  # the docs' charts, when the generator draws them: shared by every scenario
    import matplotlib.pyplot
except ImportError:
    pass
t3 = time.perf_counter()
modules = discover()
t4 = time.perf_counter()
module = next(m for m in modules if m.name == sys.argv[1])
context = render._model_context(module)
t5 = time.perf_counter()
print(json.dumps({"import_sympy": t1 - t0, "import_generator": t2 - t1, "import_matplotlib": t3 - t2,
                  "discover": t4 - t3, "scenario": t5 - t4}))
"""

RENDER_ALL_CHILD = """
import json, time
t0 = time.perf_counter()
import sympy
t1 = time.perf_counter()
from symbolic.codegen.render import render_all
t2 = time.perf_counter()
files = render_all()
t3 = time.perf_counter()
print(json.dumps({"import_sympy": t1 - t0, "import_generator": t2 - t1, "render_all": t3 - t2,
                  "without_sympy_import": t3 - t1, "total": t3 - t0, "files": len(files)}))
"""


def imports(rounds: int) -> dict[str, list[float] | str]:
    """Seconds to import each module in a fresh interpreter, one sample per round (or an error)."""
    children = {
        "import generated": (IMPORT_CHILD.format(module="generated"), ()),
        "import sympy": (IMPORT_CHILD.format(module="sympy"), ()),
        "import pint": (IMPORT_CHILD.format(module="pint"), ()),
        "import generated + first Quantity": (FIRST_QUANTITY_CHILD, ()),
        "import pint + project UnitRegistry": (PINT_REGISTRY_CHILD, ()),
    }
    measured = fresh_rounds(children, rounds)
    return {name: samples if isinstance(samples, str) else [sample["seconds"] for sample in samples]
            for name, samples in measured.items()}


def regeneration(scenarios: list[str], rounds: int, budget_seconds: float) -> dict[str, list[dict[str, float]] | str]:
    """``render_all()`` and each scenario's part, each in a fresh interpreter per round, within a time budget."""
    children = {"render_all": (RENDER_ALL_CHILD, ())}
    children.update({name: (SCENARIO_CHILD, (name,)) for name in scenarios})
    return fresh_rounds(children, rounds, budget_seconds)


def cli(commands: dict[str, list[str]], rounds: int) -> dict[str, list[float] | str] | None:
    """Wall time of each ``mlsysym`` command (or its error), or None when the console script is not installed."""
    script = Path(sys.executable).parent / "mlsysym"
    if not script.exists():
        return None
    runs = {"python -c pass": [sys.executable, "-c", "pass"]}
    runs.update({f"mlsysym {label}": [str(script), *argv] for label, argv in commands.items()})
    # Regenerating unchanged sources (the warm-up run fills .cache/generate, the rounds hit it).
    runs["make check (cached render)"] = [sys.executable, "-m", "symbolic.generate", "--check"]
    samples: dict[str, list[float] | str] = {}
    for name, argv in runs.items():  # warm bytecode caches; a failing command is reported
        completed = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, check=False)
        failed = completed.returncode != 0
        samples[name] = (completed.stderr.strip().splitlines() or ["failed"])[-1] if failed else []
    for _ in range(rounds):
        for name, argv in runs.items():
            times = samples[name]
            if isinstance(times, list):
                start = time.perf_counter()
                subprocess.run(argv, cwd=ROOT, capture_output=True, check=False)
                times.append(time.perf_counter() - start)
    return samples
