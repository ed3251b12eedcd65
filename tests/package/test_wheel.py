"""The wheel works installed: built once, installed with ``[generator]`` into a fresh venv in a
temporary folder outside the checkout, the README's Python and CLI examples (``solve``,
``explain`` and ``scaling`` included) run there and give what they give in the checkout, and
nothing is written next to the installed code (caches go to ``$XDG_CACHE_HOME/mlsysym``).

Kept fast and offline: the wheel is built by this interpreter's setuptools (the dev extra pins a
version that builds wheels; no isolated build environment to download), the venv gets no pip and
no downloaded dependencies: its ``deps.pth`` points at a folder of links to this interpreter's
installed libraries (numpy, pint, sympy, ...), minus mlsysym itself, and ``pip --python`` installs
the wheel with ``--no-index``, so the ``[generator]`` extra must be satisfied by what is there.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
# what the build reads (the rest of the checkout is tests, benchmarks and the docs site)
SOURCES = ("pyproject.toml", "setup.py", "README.md", "symbolic", "generated", "mlsysym", "templates")
OWN = ("symbolic", "generated", "mlsysym")  # never linked into the venv: the wheel must bring them


def readme_commands() -> list[list[str]]:
    """Every ``mlsysym ...`` line of the README's ``sh`` blocks (continuations joined, comments dropped)."""
    commands = []
    for block in re.findall(r"```sh\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.S):
        for line in block.replace("\\\n", " ").splitlines():
            argv = shlex.split(line, comments=True)
            if argv and argv[0] == "mlsysym":
                commands.append(argv)
    return commands


def _snapshot(folder: Path) -> dict[str, tuple[int, int]]:
    return {path.relative_to(folder).as_posix(): (path.stat().st_size, path.stat().st_mtime_ns)
            for path in folder.rglob("*") if path.is_file() or path.is_dir()}


def _deps_folder(target: Path) -> Path:
    """Links to every installed library of this interpreter except mlsysym (and the .pth hooks that
    would put the checkout on the path: an editable install's finder)."""
    target.mkdir()
    for entry in Path(sysconfig.get_paths()["purelib"]).iterdir():
        name = entry.name
        if (name.endswith(".pth") or name.startswith(("mlsysym", "__editable__", "_distutils_hack"))
                or name in OWN or name == "__pycache__"):
            continue
        (target / name).symlink_to(entry)
    return target


# Run by the installed interpreter, in one process (each process start would load sympy again): the
# README's doctests, its declaration example, the runtime API's docstring, solve / scaling / explain
# through `import mlsysym`, then every README command through the CLI's main, and the generator.
SCRIPT = r'''
import contextlib, doctest, io, json, re, sys
import mlsysym
readme = open(sys.argv[1], encoding="utf-8").read()
found = {"where": {m: getattr(__import__(m), "__file__") for m in ("mlsysym", "symbolic", "generated")}}
test = doctest.DocTestParser().get_doctest(readme, {}, "README.md", "README.md", 0)
runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
runner.run(test)
found["readme"] = [runner.tries, runner.failures]
result = doctest.testmod(mlsysym, optionflags=doctest.ELLIPSIS)
found["api"] = [result.attempted, result.failed]
for block in re.findall(r"```python\n(.*?)```", readme, flags=re.S):
    if ">>>" not in block:  # a declaration: it must build as in the checkout
        space = {}
        exec(block, space)
        found.setdefault("declared", []).extend(sorted(k for k, v in space.items() if isinstance(v, type)))
step = mlsysym.Scenarios.MnistTwoLayerTrainingStepOnH100
found["solve"] = mlsysym.solve(step, "batch_size", "compute_time", "memory_time").values
found["phone"] = mlsysym.solve(mlsysym.Scenarios.PhoneFullUpdateWorkingSet, "parameters", "total", mlsysym.Q_(8, "GiB")).values
found["scaling"] = {k: str(v) for k, v in mlsysym.scaling("UpdateWorkingSetScenario", "total").per_input.items()}
found["explain"] = str(step.explain("compute_time"))
from symbolic.codegen.records import record_module  # a template rendered installed: packaged, its cache in XDG
found["records"] = "class TransformerWorkload(" in record_module("workloads", [])


def captured(main, argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main(argv)
        except SystemExit as exit:
            status = exit.code
    return [status, out.getvalue(), err.getvalue()]


from symbolic.cli import main
from symbolic import generate
found["cli"] = {command: captured(main, argv) for command, argv in json.loads(sys.argv[2]).items()}
found["generate"] = captured(generate.main, ["--check"])
print(json.dumps(found))
'''


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Build, install, run every example once; the tests below look at the results."""
    work = tmp_path_factory.mktemp("wheel")
    assert not work.resolve().is_relative_to(ROOT)
    source = work / "source"  # a copy: setuptools writes build/ and *.egg-info into what it builds
    source.mkdir()
    for name in SOURCES:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, source / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(ROOT / name, source / name)
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
    subprocess.run([*pip, "wheel", "--no-deps", "--no-build-isolation", str(source), "-w", str(work / "dist")], check=True)
    [wheel] = (work / "dist").glob("mlsysym-*.whl")
    venv = work / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    site = Path(subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               check=True, capture_output=True, text=True).stdout.strip())
    (site / "deps.pth").write_text(f"{_deps_folder(work / 'deps')}\n", encoding="utf-8")
    subprocess.run([*pip, "--python", str(python), "install", "--no-index", f"mlsysym[generator] @ {wheel.as_uri()}"],
                   check=True)

    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    env.update(PATH=f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}", HOME=str(work / "home"),
               XDG_CACHE_HOME=str(work / "xdg"))
    (work / "home").mkdir()
    run = work / "run"
    run.mkdir()
    shutil.copytree(ROOT / "examples", run / "examples")  # `describe examples/.../config.json`, as from a checkout
    before = _snapshot(venv)

    def call(argv: list[str]) -> subprocess.CompletedProcess[str]:
        return subprocess.run(argv, check=False, cwd=run, env=env, capture_output=True, text=True, timeout=300)

    script = work / "examples.py"
    script.write_text(SCRIPT, encoding="utf-8")
    commands = {shlex.join(argv): argv[1:] for argv in readme_commands()}
    python_run = call([str(python), str(script), str(README), json.dumps(commands)])
    # the console script itself, once (the rest ran through its main in one process above)
    entry = call([str(venv / "bin" / "mlsysym"), "list"])
    return {"work": work, "site": site, "before": before, "after": _snapshot(venv), "python": python_run,
            "found": json.loads(python_run.stdout) if python_run.returncode == 0 else {}, "entry": entry}


TIMING = re.compile(r"\(\d+(\.\d+)? s\b")  # search reports its own wall time


def test_python_examples_run_installed(installed):
    run = installed["python"]
    assert run.returncode == 0, run.stderr
    found = installed["found"]
    for module, path in found["where"].items():  # the installed copy, not the checkout
        assert Path(path).is_relative_to(installed["site"]), (module, path)
    tries, failures = found["readme"]
    assert tries > 10 and failures == 0
    attempted, failed = found["api"]
    assert attempted > 0 and failed == 0
    assert "KvExampleScenario" in found["declared"]
    # the README's answers: the step stops being memory-bound near batch 93.08 (from 94 up); a phone
    # fine-tunes about 2.39e8 parameters in 8 GiB; the working set is linear in parameters
    assert [round(v, 2) for v in found["solve"]] == [93.08]
    assert [float(f"{v:.3g}") for v in found["phone"]] == [2.39e8]
    assert found["scaling"]["parameters"] == "1"
    assert "compute_time" in found["explain"] and "195.531 ns" in found["explain"]  # read at its scale
    assert found["records"] is True  # the generator's templates are package data


def test_cli_examples_run_installed_as_in_the_checkout(installed, tmp_path, monkeypatch, capsys):
    """Every README command exits 0 installed and prints what it prints from the checkout."""
    from symbolic.cli import main

    commands = installed["found"]["cli"]
    assert {"solve", "explain", "scaling", "list", "show", "eval", "sweep", "sensitivity", "search"} <= {
        command.split()[1] for command in commands}
    monkeypatch.chdir(tmp_path)  # `sweep --out sweep.csv` writes where it runs
    shutil.copytree(ROOT / "examples", tmp_path / "examples")  # the config `describe` reads
    for command, (status, out, err) in commands.items():
        assert status == 0, (command, err)
        assert main(shlex.split(command)[1:]) == 0, command
        here = capsys.readouterr()
        assert TIMING.sub("(time)", out) == TIMING.sub("(time)", here.out), command
    solve = next(c for c in commands if " solve " in c and "batch_size" in c)
    assert "batch_size = 93.08" in commands[solve][1]
    assert (installed["work"] / "run" / "sweep.csv").is_file()
    entry = installed["entry"]  # the console script
    assert entry.returncode == 0 and "MnistTwoLayerTrainingStepOnH100" in entry.stdout, entry.stderr


def test_nothing_is_written_next_to_the_installed_code(installed):
    before, after = installed["before"], installed["after"]
    assert sorted(set(after) - set(before)) == []
    assert [path for path in before if before[path] != after[path]] == []
    # the caches went to $XDG_CACHE_HOME/mlsysym, not to ~/.cache
    assert any((installed["work"] / "xdg" / "mlsysym").rglob("*.cache"))  # the template's bytecode
    assert not (installed["work"] / "home" / ".cache" / "mlsysym").exists()


def test_generate_refuses_an_installed_copy(installed):
    """Regenerating would overwrite the installed generated/ package: it needs a checkout and says so."""
    status, _, err = installed["found"]["generate"]
    assert status == 2
    assert "source checkout" in err and "installed copy" in err
