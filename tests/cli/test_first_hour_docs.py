"""Issue 42 items 6-8: the reference library explained once and linked from every page; an installed user
told how a declared scenario is evaluated (and able to, exactly); progress on a terminal, nothing on a pipe."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from symbolic.calibration import conditions, machine
from symbolic.cli.progress import line, progress_line

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "generated" / "docs"


# -- item 6 ---------------------------------------------------------------------------------------------
def test_the_index_says_once_what_the_reference_library_is() -> None:
    index = (DOCS / "index.md").read_text(encoding="utf-8")
    section = index.split("## The reference library", 1)[1].split("\n## ", 1)[0]
    assert "mlsysim 0.3.0" in section and "Differs from the reference library" in section
    assert index.count("## The reference library") == 1


def test_every_scenario_page_links_to_it() -> None:
    pages = sorted((DOCS / "scenarios").glob("*.md"))
    assert len(pages) > 40
    unlinked = [page.name for page in pages
                if "](../index.md#the-reference-library)" not in page.read_text(encoding="utf-8")]
    assert unlinked == []
    assert "](index.md#the-reference-library)" in (DOCS / "models.md").read_text(encoding="utf-8")


# -- item 7 ---------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def declared():
    from symbolic.catalog.workloads import TransformerWorkload
    from symbolic.model import Input, Output, Scenario, WorkloadInput

    class FirstHourKvScenario(Scenario):
        """Weights and KV cache of a transformer serving `tokens` tokens (the README's example)."""
        workload = WorkloadInput(TransformerWorkload, requires=("heads",), doc="The model.")
        tokens = Input(integer=True, positive=True, doc="Tokens cached.")
        bytes_per_value = Input("byte", positive=True, doc="Width of one stored value.")
        weights = Output(workload.size_in_bytes(bytes_per_value), "GB", doc="P·w.")
        kv_bytes = Output(workload.kv_cache_bytes_per_token(bytes_per_value) * tokens, "GB", doc="K and V.")

    return FirstHourKvScenario


def test_a_declared_scenario_is_evaluated_exactly_without_generation(declared) -> None:
    import sympy

    import mlsysym
    from symbolic.catalog import Models

    found = mlsysym.evaluate_declared(declared, workload=Models.Language.Llama3_70B, tokens=8192, bytes_per_value=2)
    # 70.6e9 x 2 byte = 141.2 GB; K and V x 80 layers x 8 KV heads x 128 x 2 byte x 8192 = 2,684,354,560 byte
    assert found["weights"] == (sympy.Rational(706, 5), "GB")
    assert found["kv_bytes"] == (sympy.Rational(2_684_354_560, 10**9), "GB")


@pytest.mark.parametrize(("bad", "message"), [
    ({"tokens": -1}, "input 'tokens' is -1; expected a positive number"),
    ({"tokens": 1.5}, "input 'tokens' is 1.5; expected an integer"),
    ({"tokenz": 3}, "unknown input 'tokenz'; did you mean tokens?"),
])
def test_its_inputs_are_checked(declared, bad: dict, message: str) -> None:
    import mlsysym
    from symbolic.catalog import Models

    given = {"workload": Models.Language.Llama3_70B, "bytes_per_value": 2, "tokens": 8, **bad}
    with pytest.raises(mlsysym.ScenarioInputError, match=message.replace("?", r"\?")):
        mlsysym.evaluate_declared(declared, **given)


def test_calling_a_declaration_says_what_to_do(declared) -> None:
    with pytest.raises(TypeError, match=r"is a scenario declaration, not an evaluator: in a checkout, `make generate`"
                                        r".*mlsysym\.evaluate_declared\(FirstHourKvScenario, \.\.\.\)"):
        declared(tokens=1)


# -- item 8 ---------------------------------------------------------------------------------------------
class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_bar_on_a_terminal_nothing_on_a_pipe() -> None:
    pipe = io.StringIO()
    with progress_line(stream=pipe) as progress:
        assert progress is None
    assert pipe.getvalue() == ""
    terminal = Terminal()
    with progress_line(stream=terminal) as progress:
        assert progress is not None
        progress("block 2/7: matmul", 3, 10)
    drawn = terminal.getvalue()
    assert "[#########.....................]  30% block 2/7: matmul" in drawn
    assert drawn.endswith("\r" + " " * 78 + "\r")  # rubbed out: the result starts on a clean line
    with progress_line(json_output=True, stream=Terminal()) as progress:
        assert progress is None  # a script asking for JSON gets no bar


def test_line_without_a_total_is_the_text() -> None:
    assert line("searching") == "searching"
    assert line("done", 12, 10).startswith("[" + "#" * 30 + "] 100%")


def test_calibrate_draws_its_progress_on_a_terminal_only(monkeypatch, capsys) -> None:
    from symbolic.calibration import calibrate as calibration
    from symbolic.calibration.probes import Figure, Probe
    from symbolic.cli import main

    def probe(name: str, unit: str, value: float) -> Probe:
        return Probe(name, {name: Figure(unit, "fake")}, lambda clock, min_time: {name: value})

    chosen = [probe("matmul_fp32_t1", "GFLOP/s", 50.0), probe("stream_add_t1", "GB/s", 12.0),
              probe("numpy_op_alloc", "µs", 1.5)]
    monkeypatch.setattr(conditions, "system_load", lambda: (0.1, 0.1, 0.1))
    monkeypatch.setattr(machine, "facts", lambda: {"cpu_model": "Fake", "cores": 2, "memory": "1 GiB",
                                                   "caches": [], "blas": "x", "blas_kernel": "y", "numpy": "2",
                                                   "torch": "not installed"})
    monkeypatch.setattr(calibration, "standard_probes", lambda *args: chosen)
    assert main(["calibrate", "--quick", "--threads", "1"]) == 0
    assert capsys.readouterr().err == ""  # a pipe (pytest's capture): nothing drawn
    terminal = Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    assert main(["calibrate", "--quick", "--threads", "1"]) == 0
    assert "block 3/3: numpy_op_alloc" in terminal.getvalue() and "[" in terminal.getvalue()


def test_the_pdf_build_reports_each_pass(monkeypatch, tmp_path: Path) -> None:
    import subprocess
    import sys

    sys.path.insert(0, str(ROOT / "tests"))
    from docsite_support import docsite_build

    build = docsite_build()
    passes: list[tuple] = []

    def pdflatex(command, **kwargs):  # the second pass settles: no "Rerun" in its output
        return subprocess.CompletedProcess(command, 0, stdout="Rerun to get cross-references right"
                                           if not passes[1:] else "", stderr="")

    monkeypatch.setattr(build.shutil, "which", lambda name: "/usr/bin/pdflatex")
    monkeypatch.setattr(build.subprocess, "run", pdflatex)
    build.build_pdf(tmp_path, progress=lambda text, done=None, total=None: passes.append((text, done, total)))
    assert passes == [("pdf: pdflatex pass 1 (at most 4)", 0, 4), ("pdf: pdflatex pass 2 (at most 4)", 1, 4)]
