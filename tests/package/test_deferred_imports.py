"""Import circles held together by a function-level import are counted, and none may be added.

A function-level import of one of our modules is either deferred for start-up speed (the CLI
loads sympy only for the commands that need it, the runtime pint only on first use) or it closes
an import circle: hoisted to the top of its module, it would run while the module it imports is
itself still importing this one. The second kind is a layering defect to cut by moving code: none
is left, and a new one fails this test."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OURS = ("symbolic", "mlsysym", "generated")

# (module, the module its function-level import closes a circle with): what is left to cut. None is
# left; a circle that cannot be cut at once is listed here by name, with why.
LEFT: set[tuple[str, str]] = set()


def _module(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports() -> tuple[dict[str, set[str]], list[tuple[str, str, int]]]:
    """Module-level imports of each module (packages of a dotted name included), and every
    function-level import of one of ours as (module, imported module, line)."""
    modules = {_module(p): p for folder in OURS for p in (ROOT / folder).rglob("*.py")}

    def resolved(name: str) -> str:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name

    top: dict[str, set[str]] = {}
    deferred: list[tuple[str, str, int]] = []
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
        top[name] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and ast.unparse(node.func) == "importlib.import_module":
                deferred.append((name, "symbolic", node.lineno))  # a module named at run time: ours, deferred
                continue
            if not isinstance(node, (ast.Import, ast.ImportFrom)):
                continue
            enclosing = []
            while node_parent := parents.get(enclosing[-1] if enclosing else node):
                enclosing.append(node_parent)
            if any(isinstance(n, ast.If) and "TYPE_CHECKING" in ast.unparse(n.test) for n in enclosing):
                continue  # for annotations only: never runs
            if isinstance(node, ast.ImportFrom):
                base = node.module if node.level == 0 and node.module else ""
                names = [base, *(f"{base}.{alias.name}" for alias in node.names)] if base else []
            else:
                names = [alias.name for alias in node.names]
            in_function = any(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) for n in enclosing)
            for target in {resolved(n) for n in names if n.split(".")[0] in OURS} - {""}:
                if in_function:
                    deferred.append((name, target, node.lineno))
                else:
                    parts = target.split(".")
                    top[name].update(".".join(parts[:i]) for i in range(1, len(parts) + 1))
    return top, deferred


def _reaches(top: dict[str, set[str]], start: str, goal: str) -> bool:
    seen: set[str] = set()
    stack = [start]
    while stack:
        current = stack.pop()
        if current == goal:
            return True
        if current not in seen:
            seen.add(current)
            stack.extend(top.get(current, ()))
    return False


def test_no_new_import_circle_is_closed_by_a_deferred_import():
    top, deferred = _imports()
    assert len(deferred) > 100  # the walk found the function-level imports (the CLI's alone are dozens)
    circles = {(module, target) for module, target, _ in deferred if target != module and _reaches(top, target, module)}
    assert circles - LEFT == set(), "a function-level import closes a new circle: move the code instead"
    assert LEFT - circles == set(), "a circle was cut: remove it from LEFT"


def test_the_walk_sees_a_circle():
    """The check itself: a module-level import one way and a deferred one back is a circle."""
    top = {"a": {"b"}, "b": set()}
    assert _reaches(top, "a", "b") and not _reaches(top, "b", "a")


# Function-level imports of ours left in symbolic/ and mlsysym/ (generated/ loads its runtime pieces on first
# use by design), ``importlib.import_module`` calls counted: each a start-up deferral that says why. There were
# 121 before they were hoisted, 29 before the CLI loaded each command's module on dispatch (one call) and the
# commands imported what they need at the top: the CLI's dispatch, the scenario discovery, the generator's
# renderers (a cache hit needs neither sympy nor jinja2), a config's record classes (twice: the Python API and
# --set workload=@config.json) and the runtime's six optional paths (numpy for arrays and for the rare
# undefined-output diagnosis, dask, the generator's entry point); and the math-function declarations,
# loaded by listing their folder (symbolic/model/functions/__init__.py) so a new function is one module.
DEFERRED_AT_MOST = 13


def _says_why(lines: list[str], number: int) -> bool:
    """A comment on the import's line, or on a line of the comment block just above it."""
    if "#" in lines[number - 1]:
        return True
    above = number - 2
    while above >= 0 and lines[above].strip().startswith(("from ", "import ")):
        above -= 1
    return above >= 0 and lines[above].strip().startswith("#")


def test_every_deferred_import_is_a_start_up_deferral_that_says_why():
    _, deferred = _imports()
    sites = sorted({(module, line) for module, _, line in deferred if not module.startswith("generated")})
    assert len(sites) <= DEFERRED_AT_MOST, f"{len(sites)} function-level imports: hoist the new ones"
    silent = []
    for module, line in sites:
        path = ROOT / Path(*module.split("."))
        path = path.with_suffix(".py") if path.with_suffix(".py").is_file() else path / "__init__.py"
        if not _says_why(path.read_text(encoding="utf-8").splitlines(), line):
            silent.append(f"{module}:{line}")
    assert not silent, f"a deferred import without a comment saying why (start-up: what it avoids loading): {silent}"
