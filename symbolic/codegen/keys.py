"""Cache keys of the generator's work, computed from files alone (no sympy, no scenario imports).

A scenario's rendered files and record depend on: its own module, the scenario modules it
imports (contained scenarios, instances it builds on), the catalog data those modules name
(``Hardware.Cloud.H100``, ``Constants.ByteWidths``), and the shared generator: every other
file under ``symbolic/`` and ``templates/``, and the library versions. ``scenario_keys``
hashes exactly those, so editing one scenario changes only its key and the keys of the
scenarios that import it.
"""

from __future__ import annotations

import ast
import hashlib
import json
import re
import sys
import tomllib
from functools import lru_cache
from importlib import metadata
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = ROOT / "symbolic" / "scenarios"
CATALOG = ROOT / "symbolic" / "catalog"
LIBRARIES = ("sympy", "jinja2", "matplotlib", "pint", "numpy")
_CATALOG_PATH = re.compile(r"\b(Hardware|Datasets|Constants)((?:\.\w+)*)")
_SCENARIO_IMPORT = "symbolic.scenarios."


def _hash(*parts: bytes) -> str:
    hasher = hashlib.sha256()
    for part in parts:
        hasher.update(len(part).to_bytes(8, "little") + part)
    return hasher.hexdigest()


def scenario_sources() -> dict[str, Path]:
    """``{snake_name: path}`` of every module in a family folder (discovery checks the folders)."""
    return {path.stem: path for path in sorted(SCENARIOS.glob("*/*.py")) if not path.name.startswith("_")}


def shared_digest() -> str:
    """The generator's own inputs: code and templates outside the scenario modules, library versions."""
    paths = sorted(
        path for pattern in ("symbolic/**/*.py", "symbolic/**/*.txt", "templates/**/*") for path in ROOT.glob(pattern)
        if path.is_file() and "__pycache__" not in path.parts
        and not (path.parent.parent == SCENARIOS and not path.name.startswith("_"))
    )
    parts = [path.relative_to(ROOT).as_posix().encode() + b"\0" + path.read_bytes() for path in paths]
    parts += [f"{name}={metadata.version(name)}".encode() for name in LIBRARIES]
    return _hash(*parts, sys.version.encode())


def imported_scenarios(path: Path) -> set[str]:
    """Snake names of the scenario modules a module imports (``from symbolic.scenarios.f.x import ...``)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_bytes())):
        names = [node.module or ""] if isinstance(node, ast.ImportFrom) else (
            [alias.name for alias in node.names] if isinstance(node, ast.Import) else [])
        for name in names:
            if name.startswith(_SCENARIO_IMPORT) and name.count(".") == 3:
                found.add(name.rsplit(".", 1)[1])
    return found


def dependencies(sources: dict[str, Path]) -> dict[str, list[str]]:
    """Each module and every scenario module it imports, directly or not, sorted."""
    direct = {name: imported_scenarios(path) & set(sources) for name, path in sources.items()}
    closed = {}
    for name in sources:
        seen, todo = {name}, [name]
        while todo:
            for other in direct[todo.pop()] - seen:
                seen.add(other)
                todo.append(other)
        closed[name] = sorted(seen)
    return closed


@lru_cache(maxsize=None)
def _catalog(root: str) -> Any:
    path = CATALOG / f"{root.lower()}.toml"
    return tomllib.loads(path.read_text(encoding="utf-8")) if path.is_file() else None


def catalog_slices(text: str) -> bytes:
    """The catalog data a module's text names: the deepest TOML table each ``Root.a.b`` path reaches.

    A path the files do not mirror falls back to its whole file, or to every catalog file:
    a larger slice only costs a re-render, a smaller one would serve stale pages.
    """
    slices = {}
    for root, path in sorted(set(_CATALOG_PATH.findall(text))):
        data = _catalog(root)
        if data is None:
            everything = sorted(CATALOG.glob("*.toml"))
            slices[root] = "".join(p.read_text(encoding="utf-8") for p in everything)
            continue
        for part in path.strip(".").split("."):
            if not (part and isinstance(data, dict) and part in data):
                break
            data = data[part]
        slices[root + path] = json.dumps(data, sort_keys=True, default=str)
    return json.dumps(slices, sort_keys=True).encode()


def without_imports(source: bytes) -> str:
    """A module's text without its import statements (``from symbolic.catalog import Hardware`` names no data)."""
    lines = source.decode("utf-8").splitlines()
    for node in ast.parse(source).body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            for number in range(node.lineno - 1, node.end_lineno or node.lineno):
                lines[number] = ""
    return "\n".join(lines)


def scenario_keys(shared: str | None = None) -> dict[str, str]:
    """``{snake_name: key}``: a digest of everything that scenario's render reads."""
    shared = shared_digest() if shared is None else shared
    sources = scenario_sources()
    texts = {name: path.read_bytes() for name, path in sources.items()}
    keys = {}
    for name, closure in dependencies(sources).items():
        modules = [dep.encode() + b"\0" + texts[dep] for dep in closure]
        catalog = catalog_slices("\n".join(without_imports(texts[dep]) for dep in closure))
        keys[name] = _hash(shared.encode(), *modules, catalog)
    return keys
