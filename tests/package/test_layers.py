"""The package's shape: every module in a layer folder, and scenarios on the declaration language only.

The import direction between the layers is checked by import-linter in ``make lint`` (the
contracts are in ``pyproject.toml``); these tests check what a contract cannot say.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SYMBOLIC = ROOT / "symbolic"

def _allowed_in_a_scenario(module: str) -> bool:
    """The declaration language (one import surface), the catalog, and the scenarios it contains."""
    return module == "symbolic.model" or module == "symbolic.catalog" or module.startswith(
        ("symbolic.catalog.", "symbolic.scenarios."))


def test_no_loose_module_in_symbolic():
    loose = sorted(path.name for path in SYMBOLIC.glob("*.py") if path.name != "__init__.py")
    assert loose == [], f"move these into a layer folder of symbolic/: {loose}"


def test_every_layer_folder_is_a_package_with_a_how_it_works_docstring():
    for folder in sorted(p for p in SYMBOLIC.iterdir() if p.is_dir() and not p.name.startswith(("_", "."))):
        init = folder / "__init__.py"
        assert init.is_file(), f"symbolic/{folder.name}/ has no __init__.py"
        doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))) or ""
        assert "How it works" in doc, f"symbolic/{folder.name}/__init__.py: its docstring has no 'How it works'"


def _imported_modules(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            found.append(node.module or "")
        elif isinstance(node, ast.Import):
            found.extend(alias.name for alias in node.names)
    return found


def test_scenario_files_import_only_the_model_the_catalog_and_other_scenarios():
    files = sorted((SYMBOLIC / "scenarios").glob("*/[!_]*.py"))
    assert len(files) > 40  # every family folder's modules are scanned
    strays = {f"{path.relative_to(ROOT)}: {module}" for path in files for module in _imported_modules(path)
              if not _allowed_in_a_scenario(module)}
    assert not strays, f"import these names from symbolic.model instead: {sorted(strays)}"


def test_every_test_file_sits_in_the_folder_of_what_it_tests():
    """tests/<layer>/ (runtime, model, catalog, analysis, codegen, cli, calibration, scenarios), physics (the
    generated per-scenario checks), docs (the slow tier: site, browser, PDF) and package: none loose at the top."""
    tests = Path(__file__).resolve().parents[1]
    assert sorted(p.name for p in tests.glob("test_*.py")) == []
    folders = {p.name for p in tests.iterdir() if p.is_dir() and any(p.rglob("test_*.py"))}
    assert folders == {"analysis", "calibration", "catalog", "cli", "codegen", "docs", "model", "package", "physics",
                       "runtime", "scenarios"}
