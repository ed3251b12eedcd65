"""``python -m symbolic.generate [--check | --diff] [--no-cache] [--only MODULE [--write]]``: write, check or diff ``generated/``.

``--only <module>`` (e.g. ``--only kv_decode_batch``) renders that one scenario with every check the
full render runs on it, in seconds, and reports which of its files differ from ``generated/``;
it writes nothing unless ``--write`` is given (then only that scenario's own files; the index
pages follow at the next full ``make generate``).

How it works
------------
Write mode renders every file and replaces ``generated/`` with it (removing files no
source produces any more). ``--check`` renders in memory and exits 1, naming each
stale, hand-edited, missing or orphaned file, when the tree differs; ``--diff`` also
prints a unified diff. This is the top layer with ``symbolic.cli``: it is the one that
renders the command line's own reference page (``cli_page.py``).

Rendering takes seconds per scenario (sympy, charts), so it is cached in the checkout's
``.cache/generate/`` (``symbolic.codegen.locations``)
at two levels. The whole tree under a digest of everything the generator reads (every file
under ``symbolic/`` and ``templates/``, the benchmark results, library versions): an
unchanged tree is served without importing sympy. On a miss, each scenario is served from
its own entry unless its key changed (``symbolic.codegen.pipeline``): editing one scenario
re-renders that one, the scenarios that import it, and the index pages.
``--no-cache`` bypasses both.
"""

from __future__ import annotations

import argparse
import difflib
import hashlib
import json
import sys
import time
from importlib import metadata
from pathlib import Path
from typing import Any

from symbolic.codegen.locations import CHECKOUT, PACKAGE, cache_root
from symbolic.runtime.errors import MlsysymError

ROOT = PACKAGE.parent
GENERATED = ROOT / "generated"
CACHE = cache_root() / "generate"
INPUTS = ("symbolic/**/*.py", "symbolic/**/*.txt", "symbolic/**/*.toml", "templates/**/*", "benchmarks/results.json",
          "benchmarks/this_machine.json", "benchmarks/validation.json")


def on_disk(root: Path | None = None) -> dict[str, bytes]:
    """Every file under ``generated/`` (any extension; byte caches aside), keyed like
    ``render_all``, as bytes: a file that is not UTF-8 or has other line endings is a
    difference to report, not a crash or an equality."""
    base = GENERATED if root is None else root
    files = {}
    for path in base.rglob("*"):
        if path.is_file() and "__pycache__" not in path.parts:
            files[(Path("generated") / path.relative_to(base)).as_posix()] = path.read_bytes()
    return files


def digest() -> str:
    """A hash of every input of the generator (paths, contents, library versions)."""
    hasher = hashlib.sha256()
    paths = sorted({path for pattern in INPUTS for path in ROOT.glob(pattern) if path.is_file()
                    and "__pycache__" not in path.parts})
    for path in paths:
        hasher.update(path.relative_to(ROOT).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    for package in ("sympy", "jinja2", "matplotlib", "pint", "ruff"):
        hasher.update(f"{package}={metadata.version(package)}".encode())
    hasher.update(sys.version.encode())
    return hasher.hexdigest()


def _renderers() -> tuple[Any, Any, Any]:
    """The renderers, imported only to render (start-up): a cache hit is served without sympy or jinja2."""
    from symbolic.codegen import pipeline, render  # start-up: sympy, jinja2 and matplotlib load only to render
    from symbolic.generate import cli_page  # start-up: the CLI reference page renders the whole CLI

    return pipeline, render, cli_page


def rendered(use_cache: bool = True) -> dict[str, str]:
    """Every generated file, from the cache when nothing the generator reads has changed."""
    cached = CACHE / f"{digest()}.json" if use_cache else None
    if cached is not None and cached.exists():
        return json.loads(cached.read_text(encoding="utf-8"))
    pipeline, render, cli_page = _renderers()
    if cached is None:
        return render.render_all() | cli_page.cli_page()
    files = pipeline.render_cached(CACHE) | cli_page.cli_page()
    CACHE.mkdir(parents=True, exist_ok=True)
    for stale in CACHE.glob("*.json"):  # one whole-tree entry: it serves the current sources only
        stale.unlink()
    cached.write_text(json.dumps(files, sort_keys=True), encoding="utf-8")
    return files


def differences(expected: dict[str, str], actual: dict[str, bytes] | dict[str, str]) -> list[tuple[str, str]]:
    """``(path, problem)`` for every file that is stale, missing or orphaned, compared byte
    for byte (every generated file is UTF-8 with ``\\n`` line endings)."""
    problems = []
    for path in sorted(set(expected) | set(actual)):
        if path not in actual:
            problems.append((path, "missing"))
        elif path not in expected:
            problems.append((path, "orphaned: no source generates it"))
        else:
            want, have = expected[path].encode("utf-8"), _bytes(actual[path])
            if want == have:
                continue
            if have.replace(b"\r\n", b"\n").replace(b"\r", b"\n") == want:
                problems.append((path, "line endings changed (generated files use \\n)"))
            elif not _is_utf8(have):
                problems.append((path, "not UTF-8 (edited by hand or by another tool)"))
            else:
                problems.append((path, "stale or edited by hand"))
    return problems


def _bytes(content: bytes | str) -> bytes:
    return content.encode("utf-8") if isinstance(content, str) else content


def _is_utf8(content: bytes) -> bool:
    try:
        content.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m symbolic.generate", description=__doc__.split("\n")[0])
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true", help="fail if generated/ differs from the sources")
    mode.add_argument("--diff", action="store_true", help="like --check, and print a unified diff")
    parser.add_argument("--no-cache", action="store_true", help="render from scratch, ignoring .cache/generate")
    parser.add_argument("--only", metavar="MODULE", help="render one scenario module (its file name, no .py) "
                        "with every check; report its stale files; write them only with --write")
    parser.add_argument("--write", action="store_true", help="with --only: write that scenario's files")
    args = parser.parse_args(argv)
    if args.write and not args.only:
        parser.error("--write goes with --only (a full render writes without it)")
    if CHECKOUT is None:  # installed: writing would replace the installed generated/ package
        print(f"python -m symbolic.generate works on a source checkout (pyproject.toml, templates/ and generated/ "
              f"beside symbolic/); {PACKAGE} is an installed copy. Clone the repository to regenerate.",
              file=sys.stderr)
        return 2

    if args.only:
        return only(args.only, write=args.write, show_diff=args.diff)
    expected = rendered(use_cache=not args.no_cache)
    actual = on_disk()
    if args.check or args.diff:
        problems = differences(expected, actual)
        for path, problem in problems:
            print(f"{path}: {problem}", file=sys.stderr)
            if args.diff:
                on_disk_text = _bytes(actual.get(path, b"")).decode("utf-8", errors="replace")
                sys.stderr.writelines(difflib.unified_diff(
                    on_disk_text.splitlines(keepends=True), expected.get(path, "").splitlines(keepends=True),
                    fromfile=f"{path} (on disk)", tofile=f"{path} (generated)"))
        if problems:
            print(f"{len(problems)} generated file(s) out of date: run `make generate` and commit the result.",
                  file=sys.stderr)
            return 1
        print(f"generated/ is up to date ({len(expected)} files).")
        return 0

    for path in set(actual) - set(expected):
        (ROOT / path).unlink()
    for path, text in sorted(expected.items()):
        target = ROOT / path
        target.parent.mkdir(parents=True, exist_ok=True)
        if actual.get(path) != text.encode("utf-8"):
            target.write_bytes(text.encode("utf-8"))  # bytes: no newline translation on any platform
    print(f"wrote generated/ ({len(expected)} files).")
    return 0


def only(module: str, write: bool = False, show_diff: bool = False) -> int:
    """Render one scenario module with every check (``--only``); report, and write with ``write``."""
    started = time.perf_counter()
    pipeline, _, _ = _renderers()
    names = pipeline.module_names()
    if module not in names:
        close = difflib.get_close_matches(module, names, n=3)
        print(f"no scenario module {module!r} under symbolic/scenarios/" + (f"; did you mean {', '.join(close)}?"
                                                                             if close else ""), file=sys.stderr)
        return 2
    try:
        record = pipeline.render_alone(module, CACHE)
    except MlsysymError as error:
        print(f"{module}: {error}", file=sys.stderr)
        return 1
    actual = on_disk()
    problems = differences(record.files, {path: actual[path] for path in record.files if path in actual})
    for path, problem in problems:
        print(f"{path}: {problem}", file=sys.stderr)
        if show_diff:
            sys.stderr.writelines(difflib.unified_diff(
                _bytes(actual.get(path, b"")).decode("utf-8", errors="replace").splitlines(keepends=True),
                record.files[path].splitlines(keepends=True), fromfile=f"{path} (on disk)", tofile=f"{path} (rendered)"))
    if write:
        for path, text in sorted(record.files.items()):
            target = ROOT / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(text.encode("utf-8"))
    elapsed = time.perf_counter() - started
    verb = "wrote" if write else ("differ from generated/ (run with --write, or make generate)" if problems else
                                  "match generated/")
    count = len(problems) if problems and not write else len(record.files)
    print(f"{module}: every check passed; {count} file(s) {verb} ({elapsed:.1f} s)")
    return 0
