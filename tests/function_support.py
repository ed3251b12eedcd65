"""Shared by the tests of the declared math functions (tests/model/functions/): print a function
application as the Python evaluators do and run it, on numbers and on numpy arrays; render a
scenario in memory and build its class."""

from __future__ import annotations

from typing import Any

import numpy
import sympy

from symbolic.codegen.pyprint import EvaluatorPrinter
from symbolic.codegen.render import render_all
from symbolic.model.functions.declared import python_helper_sources
from symbolic.runtime import mathops
from symbolic.scenarios.discover import ScenarioModule


def python_function(expr: sympy.Basic, symbols: list[sympy.Symbol]) -> Any:
    """``expr`` as the evaluators print it, compiled to a function of ``symbols`` (with the helpers it calls)."""
    printer = EvaluatorPrinter({s: s.name for s in symbols}, {})
    code = printer.doprint(expr)
    namespace: dict[str, Any] = {name: getattr(mathops, name) for name in dir(mathops) if not name.startswith("_")}
    for name in printer.helpers_used & python_helper_sources().keys():
        exec(compile("from typing import Any\n" + python_helper_sources()[name], name, "exec"), namespace)  # noqa: S102
    exec(compile(f"def f({', '.join(s.name for s in symbols)}):\n    return {code}\n", "f", "exec"), namespace)  # noqa: S102
    return namespace["f"]


def on_arrays(function: Any, *values: float) -> Any:
    """``function`` on arrays whose first elements are ``values`` (a second element of 1.0 each): element 0."""
    with numpy.errstate(all="ignore"):
        return function(*(numpy.array([value, 1.0]) for value in values))[0]


def rendered_class(scenario: type, family: str = "framework", instances: tuple[Any, ...] = ()
                   ) -> tuple[type, dict[str, str]]:
    """Render ``scenario`` (with its registry ``instances``) with every check the generator runs, and build
    its generated class."""
    module = "".join("_" + c.lower() if c.isupper() else c for c in scenario.__name__).lstrip("_")
    for position, instance in enumerate(instances):
        instance.key = instance.key or f"{scenario.__name__}{position}"
    files = render_all([ScenarioModule(module, family, scenario.model, tuple(instances))])
    namespace: dict[str, Any] = {}
    exec(compile(files[f"generated/{module}.py"], f"generated/{module}.py", "exec"), namespace)  # noqa: S102
    return namespace[scenario.model.name], files


def javascript_result(files: dict[str, str], module: str, args: dict[str, Any], floats: tuple[str, ...] = ()
                      ) -> dict[str, Any]:
    """The JavaScript evaluator's result for ``args`` (``floats``: the arguments Python holds as floats),
    run by Node.js from the rendered files."""
    import json
    import shutil
    import subprocess
    import tempfile
    from pathlib import Path

    node = shutil.which("node")
    assert node is not None, "Node.js is missing: apt-get install nodejs (docsite/debian-packages.txt)"
    with tempfile.TemporaryDirectory() as folder:
        for name in ("mathops", module):
            Path(folder, f"{name}.mjs").write_text(files[f"generated/js/{name}.mjs"], encoding="utf-8")
        script = (f"import {{ evaluate }} from {json.dumps(str(Path(folder, module + '.mjs')))};\n"
                  f"console.log(JSON.stringify(evaluate({json.dumps(args)}, {json.dumps(list(floats))})));")
        done = subprocess.run([node, "--input-type=module", "-e", script], capture_output=True, text=True,
                              timeout=60, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return dict(json.loads(done.stdout))
