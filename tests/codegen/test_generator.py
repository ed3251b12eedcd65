"""The generator: freshness, determinism, refusal of bad declarations, the sympy-free runtime."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from symbolic.codegen import keys
from symbolic.scenarios.discover import ScenarioModule
from symbolic.codegen.render import render_all
from symbolic.generate import differences, on_disk
from symbolic.generate import rendered as cached_render
from symbolic.model import Input, Output, Scenario, Table
from symbolic.runtime.errors import (
    CycleError,
    DeclarationError,
    DuplicateNameError,
    UndeclaredSymbolError,
    UnitMismatchError,
    UnsupportedNodeError,
)

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def rendered() -> dict[str, str]:
    """Every generated file, through the generator's cache (``make check``, run before the tests, fills it;
    ``test_a_fresh_render_of_a_sample_agrees_with_the_cache_across_hash_seeds`` holds the cache to a fresh render)."""
    return cached_render()


def test_generated_tree_is_fresh(rendered):
    problems = differences(rendered, on_disk())
    assert not problems, f"run `make generate`: {problems}"


def test_check_reports_hand_edits_and_orphans(rendered):
    expected = rendered
    actual = dict(expected)
    actual["generated/host_dispatch.py"] += "# edited\n"
    actual["generated/old_scenario.py"] = "x = 1\n"
    del actual["generated/registry.py"]
    assert differences(expected, actual) == [
        ("generated/host_dispatch.py", "stale or edited by hand"),
        ("generated/old_scenario.py", "orphaned: no source generates it"),
        ("generated/registry.py", "missing"),
    ]


def sample() -> list[str]:
    """Scenarios re-rendered from scratch below: the first of each family, and the one containing the most others."""
    sources = keys.scenario_sources()
    first = {path.parent.name: name for name, path in sorted(sources.items(), reverse=True)}
    contains = keys.dependencies(sources)
    return sorted(set(first.values()) | {max(sorted(contains), key=lambda name: len(contains[name]))})


def _fresh(seeds: tuple[str, ...], names: list[str]) -> list[dict[str, str]]:
    """The files of ``names`` rendered from scratch, one interpreter per hash seed, all at once
    (each takes a minute under load; side by side they take one)."""
    code = (
        "import json, sys; from symbolic.scenarios.discover import load; from symbolic.codegen.render import render_scenario; "
        "print(json.dumps({p: t for n in sys.argv[1:] for p, t in render_scenario(load(n)).files.items()}))"
    )
    children = [subprocess.Popen([sys.executable, "-c", code, *names], cwd=ROOT, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True,
                                 env={"PYTHONHASHSEED": seed, "PATH": "/usr/bin:/bin", "MPLBACKEND": "Agg"})
                for seed in seeds]
    renders = []
    for child in children:
        out, err = child.communicate()
        assert child.returncode == 0, err[-2000:]
        renders.append(json.loads(out))
    return renders


def test_a_fresh_render_of_a_sample_agrees_with_the_cache_across_hash_seeds(rendered):
    names = sample()
    first, second = _fresh(("1", "4242"), names)
    assert first == second
    assert {path: rendered[path] for path in first} == first
    assert any(path.startswith("generated/docs/charts/") for path in first)


def _loaded_after(statements: str) -> str:
    code = f"import sys; {statements}; print(sorted(m for m in ('sympy', 'pint', 'jinja2') if m in sys.modules))"
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                          check=True).stdout.strip()


def test_importing_generated_loads_no_sympy_pint_or_jinja():
    assert _loaded_after("import generated") == "[]"
    # Raw evaluation with catalog numbers needs no pint either.
    assert _loaded_after(
        "from generated import Hardware; from generated.mlp_training_step import evaluate; "
        "n = Hardware.Cloud.H100; evaluate(batch_size=32, input_width=784, hidden_width=128, output_width=10, "
        "bytes_per_value=4, label_bytes=8, loss_flops_per_logit=3, optimizer_values_moved=7, "
        "hardware_peak=n.peak_flops_per_second('fp32'), hardware_bandwidth=n.bandwidth_bytes_per_second, "
        "forward_ops=4, backward_ops=5, dispatch=10, launch=5)"
    ) == "[]"
    # Quantities need pint, never sympy.
    assert _loaded_after("from generated import Scenarios; Scenarios.MnistTwoLayerTrainingStepOnH100.host") == "['pint']"


def test_every_generated_file_has_the_do_not_edit_header(rendered):
    for path, text in rendered.items():
        lines = text.splitlines()
        if path.endswith(".pdf"):  # a PDF must open with its version line; the header follows as comments
            assert lines[0].startswith("%PDF-"), path
            lines = lines[1:]
        assert "Code generated by make generate; DO NOT EDIT." in lines[0], path
        assert "template: templates/" in lines[1], path


def _module(scenario: type[Scenario]) -> ScenarioModule:
    return ScenarioModule("bad_scenario", "framework", scenario.model, ())


def test_unit_mismatch_stops_generation_naming_scenario_output_and_units():
    class BadScenario(Scenario):
        """A time that is really bytes."""

        size = Input("byte", positive=True)
        rate = Input("byte/s", positive=True)
        wrong_time = Output(size * rate, "ms")

    with pytest.raises(UnitMismatchError) as caught:
        render_all([_module(BadScenario)])
    message = str(caught.value)
    for word in ("BadScenario.wrong_time", "'ms'", "[time]", "[data] ** 2"):
        assert word in message


def test_adding_bytes_to_flops_is_refused():
    class Mixed(Scenario):
        """Bytes plus flops."""

        size = Input("byte", positive=True)
        work = Input("flop", positive=True)
        nonsense = Output(size + work, "byte")

    with pytest.raises(DeclarationError, match="Mixed.nonsense.*different dimensions"):
        render_all([_module(Mixed)])


def test_duplicate_names_are_refused():
    with pytest.raises(DuplicateNameError, match="Twice: 't' is declared twice"):
        class Twice(Scenario):
            """Twice."""

            x = Input(positive=True)
            t = Table({"a": x}, "")
            t = Table({"b": x}, "")  # noqa: F811 - the point of the test



def test_undeclared_symbols_are_refused():
    import sympy

    class Stray(Scenario):
        """Uses a symbol nobody declared."""

        x = Input(positive=True)
        y = Output(x * sympy.Symbol("z"))

    with pytest.raises(UndeclaredSymbolError, match="Stray.y.*undeclared symbol z"):
        render_all([_module(Stray)])


def test_cycles_are_refused():
    import sympy

    class Loop(Scenario):
        """a needs b, b needs a (a hand-made Symbol closes the loop)."""

        x = Input(positive=True)
        a = Output(x * sympy.Symbol("b", real=True))
        b = Output(a + x)

    with pytest.raises(CycleError, match="Loop: outputs are defined in a loop: a -> b -> a"):
        render_all([_module(Loop)])


def test_unsupported_sympy_nodes_are_refused():
    import sympy

    class Trig(Scenario):
        """The printers have no rule for sin."""

        x = Input(positive=True)
        y = Output(sympy.sin(x))

    with pytest.raises(UnsupportedNodeError, match="Trig.y.*sin"):
        render_all([_module(Trig)])


def test_generated_evaluator_has_no_sympy_or_pint_import():
    for path in (ROOT / "generated").glob("*.py"):
        text = path.read_text()
        assert "import sympy" not in text and "import pint" not in text, path



def test_possible_division_by_zero_is_refused():
    """y may be 0 (nonnegative), so x/y is undefined at a valid input."""
    from symbolic.runtime.errors import UndefinedOutputError

    class Ratio(Scenario):
        """x over y."""

        x = Input(positive=True)
        y = Input(nonnegative=True)
        ratio = Output(x / y)

    with pytest.raises(UndefinedOutputError, match="Ratio.ratio: divides by y"):
        render_all([_module(Ratio)])


def test_requirements_and_list_lengths_prove_divisions_defined():
    """⌊E/b⌋ ≥ 1 once E ≥ b is required; a sum over a list of ≥ 2 positive widths is positive."""
    import sympy

    from symbolic.analysis.domains import unproven_divisions
    from symbolic.model.functions import Len, index
    from symbolic.model import ListInput, Require

    k = index("k")

    class Steps(Scenario):
        """Work per step."""

        examples = Input(integer=True, nonnegative=True)
        batch = Input(integer=True, positive=True)
        widths = ListInput(integer=True, positive=True, min_length=2)
        enough = Require(examples >= batch, "at least one batch")
        per_step = Output(1 / sympy.floor(examples / batch))
        per_width = Output(1 / sympy.Sum(widths[k], (k, 1, Len(widths) - 1)))

    closed = {"per_step": Steps.model.quantities[0].expr, "per_width": Steps.model.quantities[1].expr}
    assert unproven_divisions(Steps.model, closed) == {}


def test_division_proof_reads_the_workload_records_checks(monkeypatch):
    """A cache per sequence, ν·(L·min(S, W) + (L − L_w)·max(S − W, 0))·e, is positive only because the record
    declares sliding_layers ≤ layers (a Check on TransformerWorkload): the proof reads it, and without it refuses."""
    import symbolic.analysis.domains as domains
    from symbolic.catalog.workloads import TransformerWorkload
    from symbolic.model import WorkloadInput

    class Cache(Scenario):
        """Sequences a memory holds."""

        workload = WorkloadInput(TransformerWorkload, requires=("heads",))
        tokens = Input(integer=True, positive=True)
        width = Input("byte", positive=True)
        memory = Input("GB", positive=True)
        sequences = Output(memory / workload.kv_cache_bytes(tokens, width))

    decl = next(item for item in Cache.model.structured if item.name == "workload")
    assert any(str(c) == "workload_sliding_layers <= workload_layers" for c in decl.checks)
    closed = {"sequences": Cache.model.quantities[0].expr}
    assert domains.unproven_divisions(Cache.model, closed) == {}
    monkeypatch.setattr(domains, "_record_checks", lambda model: {})
    assert list(domains.unproven_divisions(Cache.model, closed)) == ["sequences"]


def test_render_cache_misses_on_any_input_change(tmp_path, monkeypatch):
    """The cache key covers every file the generator reads: an edit, a new file or a
    removed one all change it, so a stale cache can never be served."""
    import symbolic.generate as generate

    (tmp_path / "symbolic").mkdir()
    (tmp_path / "templates").mkdir()
    (tmp_path / "symbolic" / "model.py").write_text("x = 1\n")
    (tmp_path / "templates" / "page.md.j2").write_text("{{ x }}\n")
    monkeypatch.setattr(generate, "ROOT", tmp_path)
    first = generate.digest()
    assert generate.digest() == first
    (tmp_path / "templates" / "page.md.j2").write_text("{{ x }}!\n")
    edited = generate.digest()
    (tmp_path / "symbolic" / "units.txt").write_text("byte = [data]\n")
    added = generate.digest()
    (tmp_path / "symbolic" / "model.py").unlink()
    removed = generate.digest()
    assert len({first, edited, added, removed}) == 4


def test_render_cache_serves_unchanged_sources(tmp_path, monkeypatch):
    import symbolic.codegen.pipeline as pipeline
    import symbolic.codegen.render as render
    import symbolic.generate as generate
    import symbolic.generate.cli_page as cli_page

    calls = []
    monkeypatch.setattr(cli_page, "cli_page", lambda: {})
    monkeypatch.setattr(generate, "CACHE", tmp_path)
    monkeypatch.setattr(pipeline, "render_cached", lambda cache: calls.append(cache) or {"generated/x.py": "y = 2\n"})
    monkeypatch.setattr(render, "render_all", lambda: calls.append("all") or {"generated/x.py": "y = 3\n"})
    assert generate.rendered() == {"generated/x.py": "y = 2\n"} and calls == [tmp_path]
    assert generate.rendered() == {"generated/x.py": "y = 2\n"} and calls == [tmp_path]  # the whole tree's entry
    assert generate.rendered(use_cache=False) == {"generated/x.py": "y = 3\n"}
    assert calls == [tmp_path, "all"]


def test_check_compares_bytes_and_reports_every_orphan(tmp_path, monkeypatch, capsys):
    """A non-UTF-8 file, CRLF line endings and orphans of any extension are each reported
    (``generate --check`` used to crash on the first and miss the other two)."""
    import symbolic.generate as generate

    expected = {"generated/a.py": "x = 1\ny = 2\n", "generated/b.py": "z = 3\n"}
    tree = tmp_path / "generated"
    (tree / "docs").mkdir(parents=True)
    (tree / "__pycache__").mkdir()
    (tree / "a.py").write_bytes(b"x = 1\r\ny = 2\r\n")
    (tree / "b.py").write_bytes(b"z = \xff\n")
    (tree / "docs" / "old.png").write_bytes(b"\x89PNG\xff")
    (tree / "notes.txt").write_text("left behind")
    (tree / "__pycache__" / "a.cpython-311.pyc").write_bytes(b"\x00")  # byte caches are not ours to report
    assert differences(expected, on_disk(tree)) == [
        ("generated/a.py", "line endings changed (generated files use \\n)"),
        ("generated/b.py", "not UTF-8 (edited by hand or by another tool)"),
        ("generated/docs/old.png", "orphaned: no source generates it"),
        ("generated/notes.txt", "orphaned: no source generates it"),
    ]
    monkeypatch.setattr(generate, "GENERATED", tree)
    monkeypatch.setattr(generate, "ROOT", tmp_path)
    monkeypatch.setattr(generate, "rendered", lambda use_cache=True: expected)
    assert generate.main(["--diff"]) == 1
    assert "4 generated file(s) out of date" in capsys.readouterr().err
    assert generate.main([]) == 0  # write mode: rewrites both, removes the orphans
    assert differences(expected, on_disk(tree)) == []
    assert (tree / "a.py").read_bytes() == b"x = 1\ny = 2\n"


def test_every_character_of_the_latex_pages_is_one_pdflatex_can_set():
    """pdflatex stops on a Unicode character its preamble does not declare (a Φ in one scenario's
    prose did, twice in two sessions). Checked here without TeX: every character beyond ASCII in
    generated/latex is Latin-1 (inputenc's utf8 with T1 and textcomp sets those) or declared in
    the handbook's preamble."""
    import re

    latex = ROOT / "generated" / "latex"
    declared = {chr(int(code, 16)) for code in
                re.findall(r"\\DeclareUnicodeCharacter\{([0-9A-F]+)\}", (latex / "handbook.tex").read_text("utf-8"))}
    unset = {}
    for page in sorted(latex.glob("*.tex")):
        for character in set(page.read_text("utf-8")):
            if ord(character) > 0xFF and character not in declared:
                unset.setdefault(f"U+{ord(character):04X} {character}", page.name)
    assert not unset, f"characters the handbook does not declare (add them to templates/handbook.tex.j2): {unset}"
