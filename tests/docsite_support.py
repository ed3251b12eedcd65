"""Shared by the docs-site, PDF and browser tests: one site build per run, system packages.

The slow tests need Debian packages (Chromium, TeX) that ``.ci/run`` installs; run by hand
on a machine without them, ``require_debian`` installs them when it can (as root) and
fails loudly otherwise: these tests are never skipped.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import time
from functools import lru_cache
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]
SITE = ROOT / "build" / "site"
TIMINGS: dict[str, float] = {}


@lru_cache(maxsize=None)
def _docsite_script(name: str, file: str) -> ModuleType:
    """A script of ``docsite/`` as a module (it is a script folder, not a package), loaded once."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "docsite" / file)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def docsite_build() -> ModuleType:
    """``docsite/build.py`` as a module."""
    return _docsite_script("docsite_build", "build.py")


def calculator_module() -> ModuleType:
    """``docsite/calculator.py`` as a module: the data of every scenario page's calculator."""
    return _docsite_script("calculator_data", "calculator.py")


@lru_cache(maxsize=None)
def built_site() -> Path:
    """Build the site once per test run (into build/site, as `make docs` does)."""
    start = time.perf_counter()
    site = docsite_build().build_site(SITE)
    TIMINGS["site build"] = time.perf_counter() - start
    return site


def require_debian(packages: list[str], command: str) -> None:
    """Make ``command`` available by installing ``packages`` from Debian, or fail saying how."""
    if shutil.which(command):
        return
    if os.geteuid() != 0 or shutil.which("apt-get") is None:
        pytest.fail(f"{command} is missing: run .ci/run, or apt-get install {' '.join(packages)}")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    subprocess.run(["apt-get", "update", "-qq"], check=True, env=env)
    subprocess.run(["apt-get", "install", "-y", "-qq", "--no-install-recommends", *packages], check=True, env=env)
    if not shutil.which(command):
        pytest.fail(f"{command} is still missing after apt-get install {' '.join(packages)}")
