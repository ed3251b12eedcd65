"""Generated Python, formatted as a person would write it: ``ruff format`` over every ``.py`` file.

The generator extra pins ruff exactly (a formatter's style changes between versions and
``make check`` compares bytes), and the call is ``--isolated`` with the project's line length:
no configuration file of the checkout or the user changes the output. Formatting moves
whitespace, brackets and quotes only, never a number: the values are byte-identical
(``benchmarks/registry_values.py`` shows it).
"""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

from symbolic.runtime.errors import DeclarationError

LINE_LENGTH = 120  # as [tool.ruff] in pyproject.toml
TARGET = "py311"


def _ruff() -> str:
    from ruff.__main__ import find_ruff_bin  # the pinned binary of the generator extra

    return str(find_ruff_bin())


def formatted(files: dict[str, str]) -> dict[str, str]:
    """``files`` with every ``*.py`` text formatted (one ruff process for them all)."""
    python = sorted(path for path in files if path.endswith(".py"))
    if not python:
        return files
    with tempfile.TemporaryDirectory(prefix="mlsysym-format-") as folder:
        for number, path in enumerate(python):
            (Path(folder) / f"{number}.py").write_text(files[path], encoding="utf-8")
        run = subprocess.run([_ruff(), "format", "--isolated", "--quiet", f"--line-length={LINE_LENGTH}",
                              f"--target-version={TARGET}", folder], capture_output=True, text=True, check=False)
        if run.returncode != 0:
            raise DeclarationError(f"ruff format refused generated code ({', '.join(python)}): {run.stderr.strip()}")
        done = {path: (Path(folder) / f"{number}.py").read_text(encoding="utf-8") for number, path in enumerate(python)}
    return {path: done.get(path, text) for path, text in files.items()}
