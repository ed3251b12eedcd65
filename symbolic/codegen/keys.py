"""Cache keys of the generator's work, computed from files alone (no sympy, no scenario imports).

A scenario's rendered files and record depend on exactly these, and its key hashes exactly these:

* its own module and the scenario modules it imports (contained scenarios, instances it
  builds on), with their packages' ``__init__`` files;
* the **catalog records** those modules name (``Hardware.Cloud.H100``, ``Models.Language.GPT3``,
  ``Systems.Nodes.DGX_H100``, ``Constants.ByteWidths``): the deepest TOML table each path reaches,
  the records those tables name in turn (a node's ``accelerator = "Hardware.Cloud.H100"``), and
  the catalog data the generator reads for every scenario (``GENERATOR_READS``);
* the **generator code on its path**: every module of ``symbolic/`` that the render of one
  scenario imports, found by following the imports (module and function level) from the
  renderer and from the scenario modules; the templates and data files those modules name
  (``"evaluator.py.j2"``, ``"units.txt"``) and the templates those include; the versions of
  the libraries it calls.

Nothing else: a CLI file, the docs-site pages' own code (``SITE_ONLY``) or a workload no module
names is in no scenario's key (the site pages have their own key over every file,
``shared_digest``). Editing one scenario changes its key and the keys of its importers; editing
GPT-3's record changes the keys of the scenarios that read GPT-3.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import re
import sys
import tomllib
from dataclasses import dataclass, replace
from functools import lru_cache
from importlib import metadata
from pathlib import Path
from typing import Any

from symbolic.codegen.locations import cache_root

ROOT = Path(__file__).resolve().parents[2]
LIBRARIES = ("sympy", "jinja2", "matplotlib", "pint", "numpy", "ruff")
# Where one scenario is rendered (the worker's load + render + record, symbolic.codegen.pipeline)
RENDER_ROOTS = ("symbolic.codegen.pipeline", "symbolic.codegen.render", "symbolic.scenarios.discover")
# Modules the renderer imports only for the pages about every scenario (the CLI reference, the
# benchmark tables): covered by the site pages' own key, not by any scenario's
SITE_ONLY = ("symbolic.codegen.reference_pages",)
# Catalog data the generator reads for every scenario: records.py writes each precision's byte
# width into the record types a workload or system input is built from
GENERATOR_READS = ("Constants.StorageWidths",)
# Each namespace's TOML files (Systems spans two: the systems and the network constants)
CATALOG_FILES = {"Hardware": ("hardware.toml",), "Models": ("workloads.toml",), "Datasets": ("datasets.toml",),
                 "Constants": ("constants.toml", "efficiency.toml"), "Systems": ("systems.toml", "network.toml"),
                 "Measurements": ("measurements.toml",)}
ALIASES = {"Hardware.Tech.Storage": "Systems.TechStorage"}  # the storage tiers live in systems.toml
# catalog functions a scenario module may call, and the data they read
CATALOG_FUNCTIONS = {"storage_widths": "Constants.StorageWidths", "hardware_records": "Hardware",
                     "workload_entries": "Models", "systems_entries": "Systems", "network_records": "Systems",
                     "constant_records": "Constants", "dataset_records": "Datasets",
                     "load_runs": "Measurements",  # the runs, and the hardware, fabrics and models they name
                     "scenario_inputs": "Constants"}  # a run's device's efficiency figures (efficiency.toml)
_WHOLE_PATH = re.compile(r"^(?:" + "|".join(CATALOG_FILES) + r")(?:\.\w+)+$")
_DATA_FILE = re.compile(r"^[\w./-]+\.(?:j2|mplstyle|txt)$")
_TEMPLATE_REFERENCE = re.compile(r"{%-?\s*(?:include|import|from|extends)\s+[\"']([^\"']+)[\"']")
_SCENARIO_IMPORT = "symbolic.scenarios."


def _hash(*parts: bytes) -> str:
    hasher = hashlib.sha256()
    for part in parts:
        hasher.update(len(part).to_bytes(8, "little") + part)
    return hasher.hexdigest()


def scenario_sources(root: Path = ROOT) -> dict[str, Path]:
    """``{snake_name: path}`` of every module in a family folder (discovery checks the folders)."""
    folder = root / "symbolic" / "scenarios"
    return {path.stem: path for path in sorted(folder.glob("*/*.py")) if not path.name.startswith("_")}


def library_versions() -> bytes:
    return ";".join([*(f"{name}={metadata.version(name)}" for name in LIBRARIES), sys.version]).encode()


def shared_digest(root: Path = ROOT) -> str:
    """Every file under ``symbolic/`` and ``templates/`` outside the scenario modules, and the library
    versions: the key of the pages about all scenarios (they are cheap; the CLI reference reads the CLI)."""
    scenarios = root / "symbolic" / "scenarios"
    paths = sorted(
        path for pattern in ("symbolic/**/*.py", "symbolic/**/*.txt", "templates/**/*") for path in root.glob(pattern)
        if path.is_file() and "__pycache__" not in path.parts
        and not (path.parent.parent == scenarios and not path.name.startswith("_"))
    )
    parts = [path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes() for path in paths]
    return _hash(*parts, library_versions())


# --- the import graph of symbolic/ -----------------------------------------------------------

def _module_path(root: Path, name: str) -> Path | None:
    base = root.joinpath(*name.split("."))
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.is_file():
            return path
    return None


def _imported(root: Path, name: str, nodes: list[ast.AST]) -> set[str]:
    """The modules of ours a module imports anywhere in its body (functions included), with the
    packages whose ``__init__`` each import runs."""
    package = name if _module_path(root, name) == root.joinpath(*name.split(".")) / "__init__.py" else \
        name.rpartition(".")[0]
    found: set[str] = set()
    for node in nodes:
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parent, *([base] if base else [])])
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)  # a submodule, when it is one
    modules = set()
    for module in found:
        parts = module.split(".")
        for depth in range(1, len(parts) + 1):
            prefix = ".".join(parts[:depth])
            if prefix.split(".")[0] == "symbolic" and _module_path(root, prefix) is not None:
                modules.add(prefix)
    return modules


@dataclass(frozen=True)
class Module:
    """What the keys need of one module of ``symbolic/``, from one walk over its syntax tree."""

    source: bytes
    imports: frozenset[str]  # modules of ours it imports (function level included), with their packages
    data: frozenset[str]  # strings that name a template or data file
    catalog: frozenset[str]  # catalog paths its code names (``named_paths``)


@lru_cache(maxsize=4096)
def _module(root: Path, relative: str, size: int, mtime: int) -> Module:
    """One module, read and walked once per version (``size``, ``mtime``: an edit is seen); the walk's
    findings are kept on disk by the source's digest (``_WALKS``), so a run after an edit parses only
    the files that changed (parsing all of symbolic/ took 2.5 s of the 8 s an edit cost)."""
    name = ".".join(Path(relative).with_suffix("").parts).removesuffix(".__init__")
    source = (root / relative).read_bytes()
    digest = hashlib.sha256(source).hexdigest()
    walks = _walks(root)
    found = walks.get(relative)
    if found is not None and found[0] == digest:
        _, imports, data, catalog = found
        return Module(source, frozenset(imports), frozenset(data), frozenset(catalog))
    nodes = list(ast.walk(ast.parse(source)))
    data = {node.value for node in nodes
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and _DATA_FILE.match(node.value)}
    module = Module(source, frozenset(_imported(root, name, nodes)), frozenset(data), frozenset(named_paths(nodes)))
    walks[relative] = [digest, sorted(module.imports), sorted(module.data), sorted(module.catalog)]
    _CHANGED.add(root)
    return module


_WALKS: dict[Path, dict[str, list]] = {}  # root -> {path: [source digest, imports, data, catalog]}
_CHANGED: set[Path] = set()


def _walks_file(root: Path) -> Path:
    return cache_root() / "generate" / "module_walks.json" if root == ROOT else root / ".cache" / "module_walks.json"


def _walks(root: Path) -> dict[str, list]:
    if root not in _WALKS:
        try:
            _WALKS[root] = json.loads(_walks_file(root).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            _WALKS[root] = {}
    return _WALKS[root]


def _save_walks(root: Path) -> None:
    if root not in _CHANGED:
        return
    _CHANGED.discard(root)
    path = _walks_file(root)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_suffix(f".{os.getpid()}.tmp")
        temporary.write_text(json.dumps(_WALKS[root], sort_keys=True), encoding="utf-8")
        temporary.replace(path)  # atomic: a concurrent reader sees the old file or the new one
    except OSError:
        pass  # a read-only checkout: parse again next time


# Packages whose __init__ imports every module in them by listing the folder (no import statement names
# them): each reads all its modules. symbolic.model.functions: one module per declared math function.
LOADS_EVERY_MODULE = ("symbolic.model.functions",)


def module_graph(root: Path = ROOT) -> dict[str, Module]:
    """Every module of ``symbolic/`` by dotted name."""
    graph = {}
    for path in sorted((root / "symbolic").rglob("*.py")):
        if "__pycache__" not in path.parts:
            relative = path.relative_to(root).as_posix()
            name = ".".join(Path(relative).with_suffix("").parts).removesuffix(".__init__")
            graph[name] = _module(root, relative, path.stat().st_size, path.stat().st_mtime_ns)
    _save_walks(root)
    for package in LOADS_EVERY_MODULE:
        if package in graph:
            inside = {name for name in graph if name.startswith(package + ".")}
            graph[package] = replace(graph[package], imports=graph[package].imports | inside)
    return graph


def code_closure(roots: set[str], graph: dict[str, Module]) -> set[str]:
    """``roots`` and every module of ``symbolic/`` they import, directly or not, except the scenario
    modules (hashed as sources) and ``SITE_ONLY``."""
    seen, todo = set(), [r for r in roots if r in graph and not _is_scenario(r)]
    while todo:
        name = todo.pop()
        if name in seen or name in SITE_ONLY:
            continue
        seen.add(name)
        todo.extend(other for other in graph[name].imports if other in graph and not _is_scenario(other))
    return seen


def _is_scenario(name: str) -> bool:
    """A scenario module (``symbolic.scenarios.<family>.<name>``); a family's ``_helper`` is code."""
    return name.startswith(_SCENARIO_IMPORT) and name.count(".") == 3 and not name.rsplit(".", 1)[1].startswith("_")


def data_files(root: Path, names: set[str]) -> list[Path]:
    """The templates and data files the named strings are (found in ``templates/`` or ``symbolic/``),
    with every template they include, import or extend."""
    found: set[Path] = set()
    todo = sorted(names)
    while todo:
        name = todo.pop()
        for folder in (root / "templates", root / "symbolic"):
            path = folder / name
            if path.is_file() and path not in found:
                found.add(path)
                if path.parent == root / "templates":
                    todo.extend(_TEMPLATE_REFERENCE.findall(path.read_text(encoding="utf-8")))
    return sorted(found)


# --- scenario modules and the catalog they read -------------------------------------------------

def dependencies(sources: dict[str, Path], root: Path = ROOT) -> dict[str, list[str]]:
    """Each scenario module and every scenario module it imports, directly or not, sorted."""
    graph = module_graph(root)
    dotted = {name: _dotted_name(root, path) for name, path in sources.items()}
    direct = {name: {m.rsplit(".", 1)[1] for m in graph[dotted[name]].imports if _is_scenario(m)} & set(sources)
              for name in sources}
    closed = {}
    for name in sources:
        seen, todo = {name}, [name]
        while todo:
            for other in direct[todo.pop()] - seen:
                seen.add(other)
                todo.append(other)
        closed[name] = sorted(seen)
    return closed


def _dotted_name(root: Path, path: Path) -> str:
    return ".".join(path.relative_to(root).with_suffix("").parts)


@lru_cache(maxsize=None)
def _catalog_text(path: Path, stamp: tuple[int, int]) -> dict[str, Any]:
    return tomllib.loads(path.read_text(encoding="utf-8"))


def _namespace(root: Path, name: str) -> dict[str, Any] | None:
    """The tables of one namespace's files, merged (``None``: a namespace without files)."""
    merged: dict[str, Any] = {}
    for file in CATALOG_FILES.get(name, ()):
        path = root / "symbolic" / "catalog" / file
        if path.is_file():
            merged.update(_catalog_text(path, (path.stat().st_size, path.stat().st_mtime_ns)))
    return merged if merged else None


def _dotted(node: ast.AST) -> str | None:
    """``Hardware.Cloud.H100`` for the attribute chain ``Hardware.Cloud.H100`` (None: not a plain chain)."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    return ".".join([node.id, *reversed(parts)]) if isinstance(node, ast.Name) else None


def named_paths(nodes: list[ast.AST]) -> set[str]:
    """The catalog paths a module's code (``nodes``: every node of its syntax tree) names: each longest
    attribute chain from a namespace (``Models.Language.GPT3.size_in_bytes``), a namespace used bare
    (``every(Hardware)``), a string that is a whole path, a catalog function it names. Prose
    (docstrings, comments) and import statements name no data."""
    inner = {id(node.value) for node in nodes if isinstance(node, ast.Attribute)}  # the prefixes of a chain
    found = set()
    for node in nodes:
        if id(node) in inner:
            continue
        if isinstance(node, (ast.Attribute, ast.Name)):
            chain = _dotted(node)
            if chain is not None and chain.split(".")[0] in CATALOG_FILES:
                found.add(chain)
            elif isinstance(node, ast.Name) and node.id in CATALOG_FUNCTIONS:
                found.add(CATALOG_FUNCTIONS[node.id])
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and _WHOLE_PATH.match(node.value):
            found.add(node.value)
    return found


def _strings(data: Any) -> list[str]:
    if isinstance(data, dict):
        return [text for value in data.values() for text in _strings(value)]
    if isinstance(data, list):
        return [text for value in data for text in _strings(value)]
    return [data] if isinstance(data, str) else []


def catalog_slices(paths: set[str], root: Path = ROOT) -> bytes:
    """The catalog data behind ``paths``: for each ``Root.a.b``, the deepest TOML table it reaches,
    then every record those tables name (a string that is a whole path), until none is new.

    A path the files do not mirror falls back to its namespace's files, or to every catalog file:
    a larger slice only costs a re-render, a smaller one would serve stale pages.
    """
    todo = sorted(paths)
    slices: dict[str, str] = {}
    while todo:
        path = todo.pop()
        if path in slices:
            continue
        resolved = next((alias + path[len(prefix):] for prefix, alias in ALIASES.items()
                         if path == prefix or path.startswith(prefix + ".")), path)
        space, *parts = resolved.split(".")
        data: Any = _namespace(root, space)
        if data is None:
            everything = sorted((root / "symbolic" / "catalog").glob("*.toml"))
            slices[path] = "".join(p.read_text(encoding="utf-8") for p in everything)
            continue
        for part in parts:
            if not (isinstance(data, dict) and part in data):
                break
            data = data[part]
        slices[path] = json.dumps(data, sort_keys=True, default=str)
        todo.extend(text for text in _strings(data) if _WHOLE_PATH.match(text) and text not in slices)
    return json.dumps(slices, sort_keys=True).encode()


def scenario_inputs(root: Path = ROOT) -> dict[str, dict[str, Any]]:
    """What each scenario's key is a digest of, by scenario: ``modules`` (its own and the scenario
    modules it imports), ``code`` (generator modules), ``files`` (templates, data) and ``catalog``
    (the slices). For tests, and for asking why a key changed."""
    sources = scenario_sources(root)
    graph = module_graph(root)
    inputs = {}
    closures: dict[frozenset[str], tuple[list[str], list[str]]] = {}  # most scenarios share one code path
    for name, closure in dependencies(sources, root).items():
        modules = [_dotted_name(root, sources[dep]) for dep in closure]
        packages = {module.rsplit(".", depth)[0] for module in modules for depth in (1, 2, 3)}  # their __init__s
        roots = frozenset({*RENDER_ROOTS, *packages, *(m for module in modules for m in graph[module].imports)})
        if roots not in closures:
            code = code_closure(set(roots), graph)
            named = set().union(*(graph[module].data for module in code))
            closures[roots] = (sorted(code), [p.relative_to(root).as_posix() for p in data_files(root, named)])
        inputs[name] = {
            "modules": closure,
            "code": closures[roots][0],
            "files": closures[roots][1],
            "catalog": catalog_slices({*GENERATOR_READS, *(p for m in modules for p in graph[m].catalog)}, root),
        }
    return inputs


def scenario_keys(root: Path = ROOT) -> dict[str, str]:
    """``{snake_name: key}``: a digest of everything that scenario's render reads (``scenario_inputs``)."""
    graph = module_graph(root)
    sources = scenario_sources(root)
    versions = library_versions()
    keys = {}
    for name, inputs in scenario_inputs(root).items():
        modules = [dep.encode() + b"\0" + graph[_dotted_name(root, sources[dep])].source for dep in inputs["modules"]]
        code = [module.encode() + b"\0" + graph[module].source for module in inputs["code"]]
        files = [path.encode() + b"\0" + (root / path).read_bytes() for path in inputs["files"]]
        keys[name] = _hash(versions, *modules, b"code", *code, b"files", *files, b"catalog", inputs["catalog"])
    return keys
